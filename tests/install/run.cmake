# ctest driver: install pcoll from the build tree into a scratch prefix, configure and build a
# separate project against it with find_package(pcoll), and run it under mpiexec.
# Then the shared library: the consumer linked to pcoll::collectives_shared runs, libpcoll.so
# has its SONAME and exports the public C API only (PCOLL_*), pkg-config finds it, and
# libpcoll_mpi.so is installed beside it.
# -D BUILD_DIR=... -D SOURCE_DIR=... -D WORK_DIR=... -D MPIEXEC=... [-D SANITIZE=...]
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "cmake --install failed")
endif()
# A sanitized tree (-D SANITIZE=address,undefined) installs instrumented libraries: their
# consumer links the sanitizer runtimes too.
set(_flags "")
if(SANITIZE)
  set(_flags -DCMAKE_C_FLAGS=-fsanitize=${SANITIZE} -DCMAKE_CXX_FLAGS=-fsanitize=${SANITIZE}
             -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=${SANITIZE})
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/consumer -B ${WORK_DIR}/build
                        -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix ${_flags} RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the consumer with find_package(pcoll) failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the consumer against pcoll::collectives failed")
endif()
execute_process(COMMAND ${MPIEXEC} -n 3 ${WORK_DIR}/build/consumer RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "the consumer failed")
endif()
execute_process(COMMAND ${MPIEXEC} -n 2 ${WORK_DIR}/build/consumer_shared RESULT_VARIABLE rc
                OUTPUT_VARIABLE out)
if(rc OR NOT out MATCHES "installed package works")
  message(FATAL_ERROR "the consumer linked to libpcoll.so failed: ${out}")
endif()
file(GLOB_RECURSE so LIST_DIRECTORIES false ${WORK_DIR}/prefix/lib*/libpcoll.so)
file(GLOB_RECURSE mpi_so LIST_DIRECTORIES false ${WORK_DIR}/prefix/lib*/libpcoll_mpi.so)
file(GLOB_RECURSE pc LIST_DIRECTORIES false ${WORK_DIR}/prefix/lib*/pcoll.pc)
if(NOT so OR NOT mpi_so OR NOT pc)
  message(FATAL_ERROR "libpcoll.so, libpcoll_mpi.so or pcoll.pc not installed: '${so}' "
                      "'${mpi_so}' '${pc}'")
endif()
execute_process(COMMAND objdump -p ${so} OUTPUT_VARIABLE dyn)
if(NOT dyn MATCHES "SONAME +libpcoll\\.so\\.[0-9]+\\.[0-9]+")
  message(FATAL_ERROR "libpcoll.so has no libpcoll.so.MAJOR.MINOR SONAME:\n${dyn}")
endif()
# Defined dynamic symbols (nm -D --defined-only): the C API and nothing else.
execute_process(COMMAND nm -D --defined-only ${so} OUTPUT_VARIABLE syms)
string(REGEX MATCHALL "[0-9a-f]+ [A-Za-z] [^\n]+" rows "${syms}")
foreach(row IN LISTS rows)
  if(NOT row MATCHES " PCOLL_[A-Za-z_]+$")
    message(FATAL_ERROR "libpcoll.so exports a non-API symbol: ${row}")
  endif()
endforeach()
if(NOT syms MATCHES "PCOLL_Allreduce" OR NOT syms MATCHES "PCOLL_Trace_start")
  message(FATAL_ERROR "libpcoll.so lacks the C API:\n${syms}")
endif()
# libpcoll_mpi.so exports the intercepted MPI_/PMPI_ collectives and nothing of pcoll.
execute_process(COMMAND nm -D --defined-only ${mpi_so} OUTPUT_VARIABLE syms)
string(REGEX MATCHALL "[0-9a-f]+ [A-Za-z] [^\n]+" rows "${syms}")
foreach(row IN LISTS rows)
  if(NOT row MATCHES " P?MPI_[A-Z][a-z_]+$")
    message(FATAL_ERROR "libpcoll_mpi.so exports a symbol that is not an MPI collective: ${row}")
  endif()
endforeach()
if(NOT syms MATCHES " MPI_Allreduce" OR NOT syms MATCHES " PMPI_Barrier")
  message(FATAL_ERROR "libpcoll_mpi.so lacks its MPI entry points:\n${syms}")
endif()
get_filename_component(pcdir ${pc} DIRECTORY)
set(ENV{PKG_CONFIG_PATH} ${pcdir})
execute_process(COMMAND pkg-config --cflags --libs pcoll RESULT_VARIABLE rc OUTPUT_VARIABLE flags
                OUTPUT_STRIP_TRAILING_WHITESPACE)
string(REGEX MATCH "-I([^ ]+)" inc "${flags}")
if(rc OR NOT EXISTS "${CMAKE_MATCH_1}/pcoll/pcoll.h" OR NOT flags MATCHES "-lpcoll")
  message(FATAL_ERROR "pkg-config --cflags --libs pcoll gave '${flags}'")
endif()
message(STATUS "libpcoll.so, pkg-config (${flags}) and libpcoll_mpi.so: installed package works")
