# libpcoll.so beside libpcoll.a (included from collectives/CMakeLists.txt): the same objects,
# linked whole into a shared library whose only exported symbols are the public C API
# (pcoll.h, trace.h: PCOLL_*; pcoll.hpp is inline over it) -- libpcoll.map is the export
# list, everything else is local. SONAME libpcoll.so.MAJOR.MINOR: while the version is 0.x a
# minor release may change the ABI (the CMake package says SameMinorVersion likewise).
add_library(pcoll_shared SHARED ${CMAKE_CURRENT_LIST_DIR}/src/shared_library.cpp)
add_library(pcoll::collectives_shared ALIAS pcoll_shared)
target_link_libraries(pcoll_shared
  PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,pcoll_collectives>"
  PUBLIC MPI::MPI_C MPI::MPI_CXX)
target_include_directories(pcoll_shared PUBLIC
  $<BUILD_INTERFACE:${CMAKE_CURRENT_LIST_DIR}/include> $<INSTALL_INTERFACE:include>)
set(_pcoll_map ${CMAKE_CURRENT_LIST_DIR}/libpcoll.map)
target_link_options(pcoll_shared PRIVATE -Wl,--version-script=${_pcoll_map} -Wl,--no-undefined)
set_target_properties(pcoll_shared PROPERTIES
  OUTPUT_NAME pcoll
  EXPORT_NAME collectives_shared
  LINK_DEPENDS ${_pcoll_map}
  CXX_VISIBILITY_PRESET hidden
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
install(TARGETS pcoll_shared EXPORT pcollTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

# pkg-config: `pkg-config --cflags --libs pcoll` (shared; compile with the MPI wrapper, mpicc).
# The prefix is found from the .pc file's own place, so an installed tree can be moved.
set(PCOLL_PC_LIBS_PRIVATE "-lstdc++ -lm")
if(PCOLL_WITH_HDF5)
  foreach(lib IN LISTS HDF5_C_LIBRARIES)
    string(APPEND PCOLL_PC_LIBS_PRIVATE " ${lib}")
  endforeach()
endif()
file(RELATIVE_PATH PCOLL_PC_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
configure_file(${PROJECT_SOURCE_DIR}/cmake/pcoll.pc.in ${CMAKE_CURRENT_BINARY_DIR}/pcoll.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/pcoll.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
