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
  # CUDA 13 ships no nvToolsExt library (NVTX is header-only, nvtx3), and CMake 3.25's
  # FindCUDAToolkit marks CUDA::nvToolsExt deprecated without checking that it found one:
  # find_package(CUDAToolkit) then stops. An empty stand-in, made here so that src/ and
  # tests/ both see it, lets it finish; nothing links it.
  if(NOT TARGET CUDA::nvToolsExt)
    add_library(CUDA::nvToolsExt INTERFACE IMPORTED)
  endif()
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

# Floating-point contraction of the CUDA backend, chosen per kernel family (one .cu file
# each; docs/ARCHITECTURE.md, "Floating-point and indexing rules for GPU backends"). nvcc
# fuses multiply-adds unless told not to, so every file of backend/cuda/ is named in one of
# the two lists (src/CMakeLists.txt stops at a file named in neither), and the emulated
# suite is built a second time with the same choice (tests/CMakeLists.txt).
# --fmad=true, held to tolerances: the rasterizer (projection, tile lists, blend and their
# backward) and the photometric loss, the arithmetic-heavy kernels of every step.
set(GLINT_CUDA_FMAD_TRUE forward_stages project_stage loss_stage)
# --fmad=false, the CPU's bits for the same inputs: Adam, the step's per-splat bookkeeping
# and regularisers, refinement, the training targets, and the backend's host code.
set(GLINT_CUDA_FMAD_FALSE train_stages device_training_session refine_stages target_stage cuda_backend)
