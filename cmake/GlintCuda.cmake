# The CUDA backend's device code (src/glint/backend/cuda/*.cu), built where nvcc is found.
# The CPU build never needs the toolkit: without nvcc GLINT_CUDA defaults to OFF.
include(CheckLanguage)
if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
  set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
endif()
check_language(CUDA)
set(glint_cuda_default OFF)
if(CMAKE_CUDA_COMPILER AND NOT GLINT_SANITIZE AND NOT GLINT_FUZZ)
  set(glint_cuda_default ON)
endif()
option(GLINT_CUDA "Build the CUDA backend's device code (needs nvcc)" ${glint_cuda_default})

if(GLINT_CUDA)
  if(NOT CMAKE_CUDA_COMPILER)
    message(FATAL_ERROR "GLINT_CUDA is on but no CUDA compiler (nvcc) was found; set CUDACXX or turn it off")
  endif()
  # Ampere, Ada and Hopper as machine code, and PTX of sm_90 for GPUs after them.
  # CI compiles for sm_90 alone (scripts/test.sh passes -DCMAKE_CUDA_ARCHITECTURES=90).
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 80-real 86-real 89-real 90)
  endif()
  enable_language(CUDA)
  # CMake 3.25 does not know that nvcc 12+ compiles C++20 (and CUDA targets follow
  # CXX_STANDARD 20): tell it how to ask for it.
  if(NOT "cuda_std_20" IN_LIST CMAKE_CUDA_COMPILE_FEATURES)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_COMPILE_FEATURES cuda_std_20)
    list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
  endif()
  set(CMAKE_CUDA_STANDARD 20)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
endif()
