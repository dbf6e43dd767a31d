! An unmodified Fortran application on the older bindings: `include 'mpif.h'`, or `use mpi`
! when built with -DPCOLL_USE_MPI_MODULE (both call mpi_allreduce_ & co., which Open MPI 4.1
! implements in C by converting the handles and MPI_IN_PLACE and calling PMPI_Allreduce: where
! libpcoll_mpi.so receives them). Every collective pcoll intercepts, exact integer results; rank
! 0 prints its call counts for the test driver, as plain_mpi.c does.
program plain_mpi_legacy
#ifdef PCOLL_USE_MPI_MODULE
  use mpi
  implicit none
#else
  implicit none
  include 'mpif.h'
#endif
  integer :: rank, nproc, ierr, i, q, root, tot
  integer :: a(1000), b(1000), sc(64), sd(64)
  integer :: na, nr, nag, nat, nav, nb, nred, nbar

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  na = 0; nr = 0; nag = 0; nat = 0; nav = 0; nb = 0; nred = 0; nbar = 0

  a = [(rank * 1000 + i, i = 0, 999)]
  call MPI_Allreduce(a, b, 1000, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  do i = 1, 1000
    call expect(b(i) == nproc * (i - 1) + 1000 * nproc * (nproc - 1) / 2, 'allreduce')
  end do
  call MPI_Allreduce(MPI_IN_PLACE, a, 7, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD, ierr)
  do i = 1, 7
    call expect(a(i) == i - 1, 'allreduce in place')
  end do
  na = na + 2

  a(1:2 * nproc) = [(rank + i, i = 0, 2 * nproc - 1)]
  call MPI_Reduce_scatter_block(a, b, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  do i = 1, 2
    call expect(b(i) == nproc * (rank * 2 + i - 1) + nproc * (nproc - 1) / 2, 'reduce_scatter')
  end do
  nr = nr + 1

  a(1) = rank * 100
  call MPI_Allgather(a, 1, MPI_INTEGER, b, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do q = 0, nproc - 1
    call expect(b(q + 1) == q * 100, 'allgather')
  end do
  nag = nag + 1

  a(1:nproc) = [(rank * 100 + q, q = 0, nproc - 1)]
  call MPI_Alltoall(a, 1, MPI_INTEGER, b, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do q = 0, nproc - 1
    call expect(b(q + 1) == q * 100 + rank, 'alltoall')
  end do
  nat = nat + 1

  ! alltoallv: rank r sends mod(r + q, 2) + 1 copies of r * 100 + q to q (symmetric counts)
  tot = 0
  do q = 0, nproc - 1
    sc(q + 1) = mod(rank + q, 2) + 1
    sd(q + 1) = tot
    a(tot + 1:tot + sc(q + 1)) = rank * 100 + q
    tot = tot + sc(q + 1)
  end do
  call MPI_Alltoallv(a, sc, sd, MPI_INTEGER, b, sc, sd, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do q = 0, nproc - 1
    do i = 1, sc(q + 1)
      call expect(b(sd(q + 1) + i) == q * 100 + rank, 'alltoallv')
    end do
  end do
  nav = nav + 1

  root = nproc - 1
  a(1:30) = -1
  if (rank == root) a(1:30) = [(root * 1000 + i, i = 1, 30)]
  call MPI_Bcast(a, 30, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  do i = 1, 30
    call expect(a(i) == root * 1000 + i, 'bcast')
  end do
  a(1:30) = [(rank + i, i = 1, 30)]
  call MPI_Reduce(a, b, 30, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    do i = 1, 30
      call expect(b(i) == nproc * i + nproc * (nproc - 1) / 2, 'reduce')
    end do
  end if
  nb = nb + 1
  nred = nred + 1

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  nbar = nbar + 1
  if (rank == 0) then
    print '(a,8(a,i0),a)', 'plain_mpi counts:', ' allreduce=', na, ' reduce_scatter_block=', nr, &
      ' allgather=', nag, ' alltoall=', nat, ' alltoallv=', nav, ' bcast=', nb, ' reduce=', nred, &
      ' barrier=', nbar, ' fallback=0'
    print '(a,i0,a)', 'plain_mpi_legacy: P=', nproc, ', all results exact'
  end if
  call MPI_Finalize(ierr)

contains

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    integer :: e
    if (.not. ok) then
      print '(a,i0,2a)', 'rank ', rank, ': wrong result in ', what
      call MPI_Abort(MPI_COMM_WORLD, 2, e)
    end if
  end subroutine expect

end program plain_mpi_legacy
