# libpcoll_mpi.so, the PMPI interposer for unmodified programs (included from
# collectives/CMakeLists.txt; see interpose.hpp). pcoll is linked in statically and kept local by
# the version script, so the one file is all LD_PRELOAD needs. Native builds only (SimGrid renames
# the MPI functions itself).
add_library(pcoll_mpi SHARED ${CMAKE_CURRENT_LIST_DIR}/interpose.cpp
                             ${CMAKE_CURRENT_LIST_DIR}/collectives.cpp
                             ${CMAKE_CURRENT_LIST_DIR}/completion.cpp
                             ${CMAKE_CURRENT_LIST_DIR}/traced.cpp)
add_library(pcoll::mpi ALIAS pcoll_mpi)
target_include_directories(pcoll_mpi PRIVATE ${CMAKE_CURRENT_LIST_DIR}/..)
target_link_libraries(pcoll_mpi PRIVATE pcoll_collectives MPI::MPI_C ${CMAKE_DL_LIBS})
set(_map ${CMAKE_CURRENT_LIST_DIR}/libpcoll_mpi.map)
target_link_options(pcoll_mpi PRIVATE -Wl,--version-script=${_map} -Wl,--no-undefined)
set_target_properties(pcoll_mpi PROPERTIES
  EXPORT_NAME mpi
  LINK_DEPENDS ${_map}
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
pcoll_warnings(pcoll_mpi)
install(TARGETS pcoll_mpi EXPORT pcollTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
