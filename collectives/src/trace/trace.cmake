# The trace recorder and its HDF5 writer (included from collectives/CMakeLists.txt).
# PCOLL_WITH_HDF5=ON needs a PARALLEL HDF5 (the file is written collectively); OFF builds a
# stub writer and PCOLL_TRACE then says it is ignored.
target_sources(pcoll_collectives PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/recorder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/summary.cpp
  ${CMAKE_CURRENT_LIST_DIR}/c_api.cpp)

if(PCOLL_WITH_HDF5)
  set(HDF5_PREFER_PARALLEL TRUE)
  find_package(HDF5 COMPONENTS C)
  if(NOT HDF5_FOUND)
    message(FATAL_ERROR "pcoll: PCOLL_WITH_HDF5=ON but HDF5 was not found; install parallel HDF5 "
                        "(Debian: libhdf5-openmpi-dev) or configure with -DPCOLL_WITH_HDF5=OFF")
  endif()
  if(NOT HDF5_IS_PARALLEL)
    message(FATAL_ERROR "pcoll: the HDF5 found (${HDF5_C_INCLUDE_DIRS}) is not parallel; install "
                        "libhdf5-openmpi-dev, set HDF5_ROOT, or configure with -DPCOLL_WITH_HDF5=OFF")
  endif()
  message(STATUS "pcoll: parallel HDF5 ${HDF5_VERSION} (${HDF5_C_INCLUDE_DIRS})")
  target_sources(pcoll_collectives PRIVATE ${CMAKE_CURRENT_LIST_DIR}/hdf5_writer.cpp)
  # Absolute paths, private: the installed package needs no HDF5 lookup of its own.
  target_include_directories(pcoll_collectives SYSTEM PRIVATE ${HDF5_C_INCLUDE_DIRS})
  target_compile_definitions(pcoll_collectives PRIVATE ${HDF5_C_DEFINITIONS})
  target_link_libraries(pcoll_collectives PRIVATE ${HDF5_C_LIBRARIES})
  execute_process(COMMAND git -C ${PROJECT_SOURCE_DIR} rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE _pcoll_git OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(_pcoll_git)
    set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/hdf5_writer.cpp PROPERTIES
      COMPILE_DEFINITIONS "PCOLL_GIT_REVISION=\"${_pcoll_git} (at configure time)\"")
  endif()
else()
  target_sources(pcoll_collectives PRIVATE ${CMAKE_CURRENT_LIST_DIR}/no_writer.cpp)
endif()
