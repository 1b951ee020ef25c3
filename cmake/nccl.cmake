# Decide whether the nccl module is built. NPGPU_NCCL=AUTO builds it when CUDA is on and nccl.h and
# libnccl are found: under NPGPU_NCCL_ROOT (its include/ and lib/, e.g. a Python environment's
# site-packages/nvidia/nccl) when given, else in the CUDA toolkit or the system's paths. ON fails
# the configure without them; OFF never looks. NPGPU_NCCL_RPATH adds folders where the binaries
# look for libnccl at run time, for a build that runs on another machine.
set(NPGPU_NCCL AUTO CACHE STRING "Build the nccl module: AUTO (when NCCL is found), ON or OFF")
set_property(CACHE NPGPU_NCCL PROPERTY STRINGS AUTO ON OFF)
set(NPGPU_NCCL_ROOT "" CACHE PATH "Folder holding NCCL's include/nccl.h and lib/libnccl.so*")
set(NPGPU_NCCL_RPATH "" CACHE STRING "More folders (;-separated) to find libnccl in at run time")
set(NPGPU_HAVE_NCCL OFF CACHE INTERNAL "whether the nccl module is built")

npgpu_tristate(NPGPU_NCCL _npgpu_nccl_mode)

if(_npgpu_nccl_mode STREQUAL "OFF")
  set(NPGPU_NCCL_SUMMARY "off (NPGPU_NCCL=OFF)")
elseif(NOT NPGPU_HAVE_CUDA)
  if(_npgpu_nccl_mode STREQUAL "ON")
    message(FATAL_ERROR "NPGPU_NCCL=ON needs CUDA, and this configuration has none")
  endif()
  set(NPGPU_NCCL_SUMMARY "no (needs CUDA)")
else()
  if(NPGPU_NCCL_ROOT)
    set(_npgpu_nccl_where PATHS "${NPGPU_NCCL_ROOT}" NO_DEFAULT_PATH)
  else()
    set(_npgpu_nccl_where HINTS ${CUDAToolkit_INCLUDE_DIRS} ${CUDAToolkit_LIBRARY_DIR})
  endif()
  # The Python wheels ship libnccl.so.2 without the libnccl.so link.
  find_path(NPGPU_NCCL_INCLUDE_DIR nccl.h ${_npgpu_nccl_where} PATH_SUFFIXES include NO_CACHE)
  find_library(NPGPU_NCCL_LIBRARY NAMES nccl libnccl.so.2 ${_npgpu_nccl_where} PATH_SUFFIXES lib lib64 NO_CACHE)
  if(NPGPU_NCCL_INCLUDE_DIR AND NPGPU_NCCL_LIBRARY)
    file(STRINGS "${NPGPU_NCCL_INCLUDE_DIR}/nccl.h" _npgpu_nccl_version_lines REGEX "#define NCCL_(MAJOR|MINOR|PATCH) ")
    string(REGEX REPLACE ".*NCCL_MAJOR ([0-9]+).*NCCL_MINOR ([0-9]+).*NCCL_PATCH ([0-9]+).*" "\\1.\\2.\\3"
           _npgpu_nccl_version "${_npgpu_nccl_version_lines}")
    add_library(npgpu_nccl INTERFACE IMPORTED)
    set_target_properties(npgpu_nccl PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${NPGPU_NCCL_INCLUDE_DIR}"
      INTERFACE_LINK_LIBRARIES "${NPGPU_NCCL_LIBRARY}")
    # The folder it was found in is on the build's RPATH already (CMake adds it); these are extra.
    foreach(_npgpu_dir IN LISTS NPGPU_NCCL_RPATH)
      set_property(TARGET npgpu_nccl APPEND PROPERTY INTERFACE_LINK_OPTIONS "LINKER:-rpath,${_npgpu_dir}")
    endforeach()
    set(NPGPU_HAVE_NCCL ON CACHE INTERNAL "whether the nccl module is built")
    set(NPGPU_NCCL_SUMMARY "on: NCCL ${_npgpu_nccl_version} (${NPGPU_NCCL_LIBRARY})")
    if(NPGPU_NCCL_RPATH)
      string(APPEND NPGPU_NCCL_SUMMARY ", also looked for at run time in ${NPGPU_NCCL_RPATH}")
    endif()
  elseif(_npgpu_nccl_mode STREQUAL "ON")
    message(FATAL_ERROR "NPGPU_NCCL=ON but nccl.h or libnccl was not found: set NPGPU_NCCL_ROOT to a folder with include/nccl.h and lib/libnccl.so*")
  else()
    set(NPGPU_NCCL_SUMMARY "not found (no nccl.h and libnccl; set NPGPU_NCCL_ROOT): nccl not built")
  endif()
endif()
