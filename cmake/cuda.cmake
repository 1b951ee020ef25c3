# Decide whether the CUDA modules are built. NPGPU_CUDA=AUTO builds them when nvcc is found;
# ON fails the configure without it; OFF never looks.
set(NPGPU_HAVE_CUDA OFF CACHE INTERNAL "whether the CUDA modules are built")
npgpu_tristate(NPGPU_CUDA _npgpu_cuda_mode)

if(_npgpu_cuda_mode STREQUAL "OFF")
  set(NPGPU_CUDA_SUMMARY "off (NPGPU_CUDA=OFF): CPU-only modules")
else()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      # 75: the oldest target nvcc 13 builds, with PTX the driver can compile for newer chips;
      # 90: native code for Hopper (H100, H200).
      set(CMAKE_CUDA_ARCHITECTURES 75 90)
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(NPGPU_HAVE_CUDA ON CACHE INTERNAL "whether the CUDA modules are built")
    set(NPGPU_CUDA_SUMMARY "on: CUDA ${CUDAToolkit_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES}")
  elseif(_npgpu_cuda_mode STREQUAL "ON")
    message(FATAL_ERROR "NPGPU_CUDA=ON but no CUDA compiler (nvcc) was found: put nvcc on PATH or set CUDACXX")
  else()
    set(NPGPU_CUDA_SUMMARY "not found (nvcc missing): CPU-only modules")
  endif()
endif()
