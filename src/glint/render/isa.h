#pragma once
// The render/ math lives in glint::render::<GLINT_RENDER_NS>, an inline namespace (callers
// just write glint::render::f). A translation unit compiled for another instruction set
// (the AVX2 tile kernels) defines GLINT_RENDER_NS before any include, so its copies of
// these inline functions get different symbol names and the linker can never hand an AVX2
// copy to code that runs on a CPU without AVX2.
#ifndef GLINT_RENDER_NS
#define GLINT_RENDER_NS hd
#endif
