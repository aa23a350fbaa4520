// Structs the Vulkan backend's shaders and its C++ code share, written once in the common
// subset of C++ and GLSL: only 32-bit scalars and arrays of them, so that GLSL's std430
// layout (storage buffers and push constants) and C++'s layout are the same. The shaders
// include this file; the C++ side includes it inside a namespace that defines `uint`
// (backend/vulkan/shader_types.h, which pins every size and offset with static_asserts), and
// every pipeline is checked against the SPIR-V's reflection when it is created.
#ifndef GLINT_VK_SHARED_TYPES_H
#define GLINT_VK_SHARED_TYPES_H

// The blend outputs (backend/render_outputs.h's blend rows) as the kernels' flag bits, the
// CPU tile kernels' aov::kernel_flag (static_asserted on the C++ side).
#define GLINT_AOV_DEPTH 1u
#define GLINT_AOV_MEDIAN 2u
#define GLINT_AOV_NORMAL 4u
#define GLINT_AOV_DISTORTION 8u
#define GLINT_AOV_COUNT 16u
// The outputs whose gradient reaches a splat's depth or normal (a record's 13 floats).
#define GLINT_AOV_GEOMETRY 15u
// Backward: the upstream gradients given (BlendPush::grad_flags).
#define GLINT_GRAD_ALPHA 1u
#define GLINT_GRAD_DEPTH 2u
#define GLINT_GRAD_MEDIAN 4u
#define GLINT_GRAD_NORMAL 8u
#define GLINT_GRAD_DISTORTION 16u
#define GLINT_NO_MEDIAN 0xffffffffu

// render::ViewT<float>, member for member.
struct ViewParams {
  float R[9];
  float t[3];
  float campos[3];
  float fx;
  float fy;
  float cx;
  float cy;
  float lim_x_neg;
  float lim_x_pos;
  float lim_y_neg;
  float lim_y_pos;
  float near_plane;
  int width;
  int height;
};

// One splat after projection, as the stages pass it from the project stage to the tile
// lists and the blend (the CUDA backend's ProjectedSplat, the same layout).
struct ProjectedSplat {
  float mx;
  float my;
  float conic[3];
  float depth;
  float opacity;
  float power_cut;
  float ext_x;
  float ext_y;
  uint tiles;  // tiles its cut ellipse reaches (0: not drawn)
  int radius;  // RenderOutput::radii
  float rgb[3];
  float normal[3];
  uint pad[2];
};

// Per-splat stages run over a chunk of splats whose buffers are bound from the chunk's
// first splat (so that no binding passes the device's maxStorageBufferRange); `first` is
// the chunk's first splat in the whole model, `count` its size.
struct ProjectPush {
  ViewParams view;
  uint first;
  uint count;
  int sh_degree;
  uint antialiased;
};

struct TileKeysPush {
  uint first;
  uint count;
  int width;
  int height;
};

// A 1D dispatch over `count` elements (the index arithmetic of linear_index in common.glsl).
struct CountPush {
  uint count;
  uint shift;  // radix passes: the digit's lowest bit (0..60); scans: unused
  uint blocks; // radix passes: the number of blocks the keys are cut into
  uint pad;
};

struct BlendPush {
  int width;
  int height;
  int tiles_x;
  uint flags;           // the blend outputs drawn (aov::kernel_flag bits)
  float background[3];
  uint stop_at_median;  // RenderSettings::median_depth_only
  uint grad_flags;      // backward: which upstream gradients are given (kGrad* bits)
  uint record_floats;   // backward: floats a record
  uint pad[2];
};

struct SplatBackwardPush {
  ViewParams view;
  uint first;
  uint count;
  int sh_degree;
  uint antialiased;
  uint record_floats;
};

// Training: a target from an 8-bit view (4 bytes packed a uint, little-endian), composited
// over the background (the CUDA target kernel's TargetImage).
struct TargetPush {
  int width;
  int height;
  int channels;  // of the 8-bit source
  uint count;    // pixels
  float background[3];
  uint pad;
};

// The photometric loss's image and constants (the CUDA loss kernels' LossImage).
struct LossPush {
  int width;
  int height;
  int channels;
  float l1_scale;   // (1 - lambda) / count (weighted: channels x the weights' sum)
  float lambda;     // D-SSIM weight
  float inv_count;  // 1 / count
  float c1;
  float c2;
  float window[11];
  uint count;       // values (width * height * channels)
  uint with_grad;   // write the gradient
  uint tiles_x;     // 16x16 tiles of the SSIM kernels a row
  uint weighted;    // masks (train/loss.h): the render and target are weighted, the weights bound
};

// Fixed-order block sums: block k sums values [k 4096, (k + 1) 4096).
struct SumPush {
  uint count;
  uint pad[3];
};

// Adam over one parameter group (train/adam_value.h's AdamConsts, then the group's shape).
struct AdamPush {
  float b1;
  float a1;
  float b2;
  float a2;
  float bc2_sqrt;
  float eps;
  float step_size;
  uint count;       // values (rows * width)
  uint width;
  uint used_width;  // columns updated (SH above the degree in use are not)
  uint selective;   // only the rows visible[] marks
  uint group;       // status[group] = 1 when a value is left non-finite
};

// Per-splat training stages (visibility, statistics, regularisers, finiteness).
struct SplatStepPush {
  uint count;  // splats (or values, for the finiteness check)
  float sx;    // densification statistics: half the image's width and height
  float sy;
  float scale;  // flatten: weight / N; MCMC: opacity_reg / N
  float scale2; // MCMC: scale_reg / 3N
  uint slot;    // finiteness: the status word to set
  uint pad[2];
};

// MCMC's position noise (train/mcmc.cpp mcmc_add_noise).
struct NoisePush {
  uint count;  // splats
  float scale; // noise_lr * the means' learning rate
  float k;     // the gate's slope (noise_k) and threshold (noise_t)
  float t;
};

// The geometry regularisers on a render (train/geometry_loss.h; nc_pixel.comp, nc_gather.comp):
// the camera's world-to-camera rotation (row-major) and pinhole, the image, normal
// consistency's thresholds, and the scale (weight / pixels taking part) of the gradients.
struct NcPush {
  float R[9];
  float fx;
  float fy;
  float cx;
  float cy;
  int width;
  int height;
  uint count;             // pixels
  float alpha_threshold;  // normal_consistency_ok's
  float edge_eps;         // normal_consistency_edge's eps (0: no pixel skipped)
  float scale;            // nc_gather: weight / the pixels taking part
  uint pad;
};

// The math check (tests only): `count` inputs of `stride` floats each.
struct MathCheckPush {
  uint count;
  uint function;
  uint in_stride;
  uint out_stride;
};

#endif
