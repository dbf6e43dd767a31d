# pcoll_kokkos.cmake -- locate Kokkos (Serial + OpenMP) for pcoll.
#
# Usage in the top-level CMakeLists.txt (after project()):
#   include(${PROJECT_SOURCE_DIR}/cmake/pcoll_kokkos.cmake)
#   target_link_libraries(foo PRIVATE Kokkos::kokkos)
#
# Kokkos_ROOT defaults to the project-local install made by
# scripts/setup-deps.sh (${PROJECT_SOURCE_DIR}/.deps/kokkos) when that exists
# and neither -DKokkos_ROOT nor $ENV{Kokkos_ROOT} was given.
include_guard(GLOBAL)

set(_pcoll_kokkos_local "${PROJECT_SOURCE_DIR}/.deps/kokkos")
if(NOT DEFINED Kokkos_ROOT AND NOT DEFINED ENV{Kokkos_ROOT}
   AND EXISTS "${_pcoll_kokkos_local}/lib/cmake/Kokkos/KokkosConfig.cmake")
  set(Kokkos_ROOT "${_pcoll_kokkos_local}" CACHE PATH "Kokkos install prefix")
endif()

find_package(Kokkos 3.4 CONFIG)
if(NOT Kokkos_FOUND)
  message(FATAL_ERROR
    "pcoll: Kokkos not found. Run scripts/setup-deps.sh (installs it into "
    "${_pcoll_kokkos_local}) or pass -DKokkos_ROOT=<prefix>.")
endif()
# Fails configuration if the installed Kokkos has no OpenMP backend.
kokkos_check(DEVICES OpenMP)
message(STATUS "pcoll: Kokkos ${Kokkos_VERSION} from ${Kokkos_DIR} (devices: ${Kokkos_DEVICES})")
unset(_pcoll_kokkos_local)
