# Test registration helpers.
#   pcoll_add_mpi_test(NAME <name> TARGET <exe> RANKS 1 2 3 ... [ARGS ...] [ENV VAR=value ...]
#                      [TIMEOUT s] [PASS_REGEX re] [WILL_FAIL])
# registers one ctest test per rank count, named <name>.np<P>, run with mpiexec (oversubscribed:
# these are correctness tests, more ranks than cores is fine).
#   pcoll_mpiexec_env(<out-var> VAR=value ...)
# sets <out-var> to the launcher flags that give every rank VAR=value (and only the ranks, not
# mpiexec itself: LD_PRELOAD): `-x VAR=value` for Open MPI, `-genv VAR value` for MPICH's Hydra.
#   PCOLL_MPIEXEC_KIND   openmpi | hydra: which launcher MPIEXEC_EXECUTABLE is (detected from its
#                        --version; a cache variable, so another launcher can be named by hand)
#   PCOLL_MPI_FLAVOUR    openmpi | mpich | other: which MPI library the tests link (from mpi.h:
#                        OPEN_MPI or MPICH_VERSION, which MPICH derivatives define too)
#   pcoll_mpi_test_programs  a target that builds every program an `mpi`-labelled test runs
#                        (scripts/test.sh builds only it in the MPICH tree)
include_guard(GLOBAL)

if(NOT PCOLL_MPIEXEC_KIND)
  execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _pcoll_mpiexec_v
                  ERROR_VARIABLE _pcoll_mpiexec_v RESULT_VARIABLE _pcoll_mpiexec_rc TIMEOUT 30)
  if(_pcoll_mpiexec_v MATCHES "Open MPI|OpenRTE")
    set(_pcoll_kind openmpi)
  elseif(_pcoll_mpiexec_v MATCHES "HYDRA|Intel\\(R\\) MPI")
    set(_pcoll_kind hydra)
  else()
    message(FATAL_ERROR "pcoll tests: cannot tell which launcher ${MPIEXEC_EXECUTABLE} is (its "
                        "--version said: ${_pcoll_mpiexec_v}); configure with "
                        "-DPCOLL_MPIEXEC_KIND=openmpi (-x VAR=value) or hydra (-genv VAR value)")
  endif()
  set(PCOLL_MPIEXEC_KIND ${_pcoll_kind} CACHE STRING
      "the tests' MPI launcher: openmpi (-x VAR=value) or hydra (MPICH: -genv VAR value)")
endif()
if(NOT PCOLL_MPIEXEC_KIND MATCHES "^(openmpi|hydra)$")
  message(FATAL_ERROR "PCOLL_MPIEXEC_KIND=${PCOLL_MPIEXEC_KIND}: must be openmpi or hydra")
endif()
include(CheckSymbolExists)
set(CMAKE_REQUIRED_LIBRARIES MPI::MPI_C)
set(CMAKE_REQUIRED_QUIET ON)
check_symbol_exists(OPEN_MPI mpi.h PCOLL_MPI_H_OPEN_MPI)
check_symbol_exists(MPICH_VERSION mpi.h PCOLL_MPI_H_MPICH)
unset(CMAKE_REQUIRED_LIBRARIES)
unset(CMAKE_REQUIRED_QUIET)
if(PCOLL_MPI_H_OPEN_MPI)
  set(PCOLL_MPI_FLAVOUR openmpi)
elseif(PCOLL_MPI_H_MPICH)
  set(PCOLL_MPI_FLAVOUR mpich)
else()
  set(PCOLL_MPI_FLAVOUR other)
endif()
message(STATUS "pcoll tests: MPI ${PCOLL_MPI_FLAVOUR}, launcher ${MPIEXEC_EXECUTABLE} "
               "(${PCOLL_MPIEXEC_KIND})")

if(PCOLL_MPIEXEC_KIND STREQUAL "openmpi")
  execute_process(COMMAND id -u OUTPUT_VARIABLE _pcoll_uid OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET)
  set(PCOLL_MPI_TEST_ENV "OMPI_MCA_rmaps_base_oversubscribe=1" "OMPI_MCA_mpi_yield_when_idle=1")
  if(_pcoll_uid STREQUAL "0")
    # Open MPI refuses to run as root unless told to; only then.
    list(APPEND PCOLL_MPI_TEST_ENV "OMPI_ALLOW_RUN_AS_ROOT=1" "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
  endif()
else()
  # Hydra oversubscribes by default and runs as root without being told.
  set(PCOLL_MPI_TEST_ENV "")
endif()
# Every single-node communicator of the MPI tests maps a node segment (by default only those
# whose PCOLL_<COLL> names a shared-memory algorithm do): the tests push the shared-memory
# variants per communicator, and every other test then runs with segments made and freed beside
# its operations (communicators freed with operations outstanding included).
list(APPEND PCOLL_MPI_TEST_ENV "PCOLL_SHM=on")

function(pcoll_mpiexec_env out)
  set(flags "")
  foreach(kv IN LISTS ARGN)
    if(PCOLL_MPIEXEC_KIND STREQUAL "openmpi")
      list(APPEND flags -x ${kv})
    else()
      string(FIND "${kv}" "=" eq)
      string(SUBSTRING "${kv}" 0 ${eq} var)
      math(EXPR eq "${eq} + 1")
      string(SUBSTRING "${kv}" ${eq} -1 value)
      list(APPEND flags -genv ${var} ${value})
    endif()
  endforeach()
  set(${out} ${flags} PARENT_SCOPE)
endfunction()

if(NOT TARGET pcoll_mpi_test_programs)
  add_custom_target(pcoll_mpi_test_programs)
endif()

function(pcoll_add_mpi_test)
  cmake_parse_arguments(T "WILL_FAIL" "NAME;TARGET;TIMEOUT;PASS_REGEX" "RANKS;ARGS;ENV" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  add_dependencies(pcoll_mpi_test_programs ${T_TARGET})
  foreach(np IN LISTS T_RANKS)
    set(test_name ${T_NAME}.np${np})
    add_test(NAME ${test_name}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${MPIEXEC_PREFLAGS}
                     $<TARGET_FILE:${T_TARGET}> ${MPIEXEC_POSTFLAGS} ${T_ARGS})
    set_tests_properties(${test_name} PROPERTIES
      ENVIRONMENT "${PCOLL_MPI_TEST_ENV};${T_ENV}"
      TIMEOUT ${T_TIMEOUT}
      PROCESSORS 2
      LABELS "mpi")
    if(T_PASS_REGEX)
      set_tests_properties(${test_name} PROPERTIES PASS_REGULAR_EXPRESSION "${T_PASS_REGEX}")
    endif()
    if(T_WILL_FAIL)
      set_tests_properties(${test_name} PROPERTIES WILL_FAIL TRUE)
    endif()
  endforeach()
endfunction()
