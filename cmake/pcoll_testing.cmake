# Test registration helpers.
#   pcoll_add_mpi_test(NAME <name> TARGET <exe> RANKS 1 2 3 ... [ARGS ...] [ENV VAR=value ...]
#                      [TIMEOUT s] [PASS_REGEX re] [WILL_FAIL])
# registers one ctest test per rank count, named <name>.np<P>, run with mpiexec (oversubscribed:
# these are correctness tests, more ranks than cores is fine).
include_guard(GLOBAL)

execute_process(COMMAND id -u OUTPUT_VARIABLE _pcoll_uid OUTPUT_STRIP_TRAILING_WHITESPACE
                ERROR_QUIET)
set(PCOLL_MPI_TEST_ENV "OMPI_MCA_rmaps_base_oversubscribe=1" "OMPI_MCA_mpi_yield_when_idle=1")
if(_pcoll_uid STREQUAL "0")
  # Open MPI refuses to run as root unless told to; only then.
  list(APPEND PCOLL_MPI_TEST_ENV "OMPI_ALLOW_RUN_AS_ROOT=1" "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
endif()

function(pcoll_add_mpi_test)
  cmake_parse_arguments(T "WILL_FAIL" "NAME;TARGET;TIMEOUT;PASS_REGEX" "RANKS;ARGS;ENV" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
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
