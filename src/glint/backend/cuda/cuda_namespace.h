#pragma once
// The CUDA backend's code compiles twice: by nvcc for the device, and by the host compiler
// against the emulator (emulation.h) for the test suite and the sanitizers. One binary can
// hold both (the tests link the CUDA backend too), so every name of backend/cuda/ lives in
// an inline namespace named after the build: the code says glint::cuda::X either way, the
// linker sees glint::cuda::device::X and glint::cuda::emulated::X, and the two copies of an
// inline function or a stage (a <<<>>> launch, an emulated one) never stand in for each
// other.
// The emulated build with nvcc's contraction (tests/CMakeLists.txt) names its own
// (emulated_contracted), so that the test binary holding it never mixes its copies with
// the engine's uncontracted ones.
#if !defined(GLINT_CUDA_NS)
#if defined(__CUDACC__)
#define GLINT_CUDA_NS device
#else
#define GLINT_CUDA_NS emulated
#endif
#endif
