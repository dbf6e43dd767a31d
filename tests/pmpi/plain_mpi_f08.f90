! An unmodified Fortran application on the mpi_f08 bindings: every collective pcoll intercepts,
! with exactly known integer results (a wrong element stops the run). Open MPI 4.1's
! mpi_allreduce_f08_ & co. call ompi_allreduce_f, which converts the handles and MPI_IN_PLACE
! and calls PMPI_Allreduce: that is where libpcoll_mpi.so receives these calls. Rank 0 prints
! its call counts for the test driver, as plain_mpi.c does. Then MPI_Iallreduce of doubles (sums
! whose bits depend on the order of additions) completed by MPI_Wait, and again by one
! MPI_Waitall with a ring of point-to-point messages: bit for bit the blocking MPI_Allreduce's
! when pcoll serves both (PCOLL_ALLREDUCE not vendor), within round-off otherwise.
program plain_mpi_f08
  use mpi_f08
  implicit none
  integer :: rank, nproc, i, q, k, root, n, na, nr, nag, nat, nav, nb, nred, nbar
  integer, allocatable :: a(:), b(:), sc(:), sd(:), rc(:), rd(:)
  double precision, allocatable :: x(:), bl(:), nbl(:)
  type(MPI_Request) :: reqs(3)
  integer :: token, got
  character(len=32) :: algo

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  na = 0; nr = 0; nag = 0; nat = 0; nav = 0; nb = 0; nred = 0; nbar = 0

  ! allreduce, out of place and in place
  do n = 0, 1000, 200
    allocate(a(max(n, 1)), b(max(n, 1)))
    a = [(rank * 1000 + i, i = 0, size(a) - 1)]
    call MPI_Allreduce(a, b, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    do i = 1, n
      call expect(b(i) == nproc * (i - 1) + 1000 * nproc * (nproc - 1) / 2, 'allreduce')
    end do
    call MPI_Allreduce(MPI_IN_PLACE, a, n, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
    do i = 1, n
      call expect(a(i) == (nproc - 1) * 1000 + i - 1, 'allreduce in place')
    end do
    na = na + 2
    deallocate(a, b)
  end do

  ! reduce_scatter_block: 3 elements per rank
  allocate(a(3 * nproc), b(3))
  a = [(rank + i, i = 0, 3 * nproc - 1)]
  call MPI_Reduce_scatter_block(a, b, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  do k = 1, 3
    call expect(b(k) == nproc * (rank * 3 + k - 1) + nproc * (nproc - 1) / 2, 'reduce_scatter')
  end do
  nr = nr + 1
  deallocate(a, b)

  ! allgather (2 per rank, in place) and alltoall (2 per destination)
  allocate(a(2 * nproc), b(2 * nproc))
  a(2 * rank + 1) = rank * 100
  a(2 * rank + 2) = rank * 100 + 1
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, 2, MPI_INTEGER, MPI_COMM_WORLD)
  do q = 0, nproc - 1
    call expect(a(2 * q + 1) == q * 100 .and. a(2 * q + 2) == q * 100 + 1, 'allgather')
  end do
  nag = nag + 1
  do q = 0, nproc - 1
    a(2 * q + 1) = rank * 10000 + q * 100
    a(2 * q + 2) = rank * 10000 + q * 100 + 1
  end do
  call MPI_Alltoall(a, 2, MPI_INTEGER, b, 2, MPI_INTEGER, MPI_COMM_WORLD)
  do q = 0, nproc - 1
    call expect(b(2 * q + 1) == q * 10000 + rank * 100, 'alltoall')
    call expect(b(2 * q + 2) == q * 10000 + rank * 100 + 1, 'alltoall')
  end do
  nat = nat + 1
  deallocate(a, b)

  ! alltoallv: rank r sends mod(r + q, 3) + 1 elements to q (symmetric)
  allocate(sc(nproc), sd(nproc), rc(nproc), rd(nproc))
  do q = 0, nproc - 1
    sc(q + 1) = mod(rank + q, 3) + 1
  end do
  rc = sc
  sd(1) = 0
  do q = 2, nproc
    sd(q) = sd(q - 1) + sc(q - 1)
  end do
  rd = sd
  allocate(a(sum(sc)), b(sum(rc)))
  do q = 0, nproc - 1
    do k = 0, sc(q + 1) - 1
      a(sd(q + 1) + k + 1) = rank * 10000 + q * 100 + k
    end do
  end do
  call MPI_Alltoallv(a, sc, sd, MPI_INTEGER, b, rc, rd, MPI_INTEGER, MPI_COMM_WORLD)
  do q = 0, nproc - 1
    do k = 0, rc(q + 1) - 1
      call expect(b(rd(q + 1) + k + 1) == q * 10000 + rank * 100 + k, 'alltoallv')
    end do
  end do
  nav = nav + 1
  deallocate(a, b, sc, sd, rc, rd)

  ! bcast and reduce at the first and the last rank
  allocate(a(50), b(50))
  do root = 0, nproc - 1, max(nproc - 1, 1)
    a = -1
    if (rank == root) a = [(root * 1000 + i, i = 1, 50)]
    call MPI_Bcast(a, 50, MPI_INTEGER, root, MPI_COMM_WORLD)
    do i = 1, 50
      call expect(a(i) == root * 1000 + i, 'bcast')
    end do
    a = [(rank + i, i = 1, 50)]
    b = -7
    call MPI_Reduce(a, b, 50, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD)
    do i = 1, 50
      if (rank == root) then
        call expect(b(i) == nproc * i + nproc * (nproc - 1) / 2, 'reduce')
      else
        call expect(b(i) == -7, 'reduce: non-root buffer untouched')
      end if
    end do
    nb = nb + 1
    nred = nred + 1
  end do
  deallocate(a, b)

  call MPI_Barrier(MPI_COMM_WORLD)
  nbar = nbar + 1

  ! MPI_Iallreduce against MPI_Allreduce on the same doubles
  call get_environment_variable('PCOLL_ALLREDUCE', algo)
  allocate(x(997), bl(997), nbl(997))
  x = [(1d0 / dble(1 + mod(rank * 31 + i * 7, 97)) * merge(1d12, 1d-7, mod(i + rank, 3) == 0), &
        i = 1, 997)]
  call MPI_Allreduce(x, bl, 997, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  na = na + 1
  nbl = -1d0
  call MPI_Iallreduce(x, nbl, 997, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, reqs(1))
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
  call check_iallreduce('MPI_Iallreduce + MPI_Wait')
  nbl = -1d0
  token = rank
  got = -1
  call MPI_Iallreduce(x, nbl, 997, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, reqs(1))
  call MPI_Irecv(got, 1, MPI_INTEGER, mod(rank + nproc - 1, nproc), 5, MPI_COMM_WORLD, reqs(2))
  call MPI_Isend(token, 1, MPI_INTEGER, mod(rank + 1, nproc), 5, MPI_COMM_WORLD, reqs(3))
  call MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE)
  call check_iallreduce('MPI_Iallreduce in MPI_Waitall')
  call expect(got == mod(rank + nproc - 1, nproc), 'point-to-point in MPI_Waitall')
  deallocate(x, bl, nbl)

  if (rank == 0) then
    print '(a,8(a,i0),a)', 'plain_mpi counts:', ' allreduce=', na, ' reduce_scatter_block=', nr, &
      ' allgather=', nag, ' alltoall=', nat, ' alltoallv=', nav, ' bcast=', nb, ' reduce=', nred, &
      ' barrier=', nbar, ' fallback=0'
    print '(a,i0,a)', 'plain_mpi_f08: P=', nproc, ', all results exact'
  end if
  call MPI_Finalize()

contains

  subroutine check_iallreduce(what)
    character(len=*), intent(in) :: what
    if (trim(algo) == 'vendor') then  ! the vendor's nonblocking sum may add in another order
      call expect(all(abs(nbl - bl) <= 1d-12 * abs(bl)), what)
    else
      call expect(all(transfer(nbl, 1_8, size(nbl)) == transfer(bl, 1_8, size(bl))), what)
    end if
  end subroutine check_iallreduce

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'rank ', rank, ': wrong result in ', what
      call MPI_Abort(MPI_COMM_WORLD, 2)
    end if
  end subroutine expect

end program plain_mpi_f08
