#pragma once
// The CPU kernels' one SIMD dialect: eight lanes as GCC/Clang vector extensions (one AVX
// register where the file is compiled for AVX, two SSE registers otherwise). Two faces of
// the same vectors:
//  - vf / vi, the raw vectors, with bc / bci (broadcast), masks as vi lanes of all ones or
//    zero, lane_bits, fmadd, v_sqrt, v_exp and the roundings: the tile kernels
//    (raster_kernels_impl.h) write their hand-scheduled blend loops with them;
//  - F8 / M8, the same vectors as number types (scalar constructors, operators, compares
//    that give masks), so that the branch-free templated math of render/ (project_splat,
//    its VJP, SH) runs on eight splats at once in the per-splat kernels
//    (splat_kernels_impl.h): the same source, each lane computing exactly what the scalar
//    code would for its splat, except that lane_exp is render::fast_exp's polynomial
//    rather than libm's expf. No lane reads another, so results do not depend on how
//    splats are grouped. F8(v).v and F8 x; x.v convert between the faces for free.
// The inline namespace gives the AVX2 and AVX-512 builds their own names, for the reason
// render/isa.h gives.
#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "glint/render/blend.h"

// raster_avx2.cpp and raster_avx512.cpp define it before any include (as they do
// GLINT_RENDER_NS); every other file gets the baseline names.
#ifndef GLINT_LANES_NS
#define GLINT_LANES_NS lanes_base
#endif

namespace glint::cpu {
inline namespace GLINT_LANES_NS {

typedef float vf __attribute__((vector_size(32)));
typedef std::int32_t vi __attribute__((vector_size(32)));
// The same vector at any float's address: a load through it stays in registers, where a
// memcpy into a vf went through the stack in 16-byte halves (GCC's generic AVX tuning
// splits unaligned 32-byte moves), and the 32-byte reload then stalled on the two stores.
typedef float vf_unaligned __attribute__((vector_size(32), aligned(4)));
inline vf load_f8(const float* p) { return *reinterpret_cast<const vf_unaligned*>(p); }

inline vf bc(float x) { return vf{x, x, x, x, x, x, x, x}; }
inline vi bci(std::int32_t x) { return vi{x, x, x, x, x, x, x, x}; }

// Bit l set when lane l of a mask (all-ones / zero lanes) is set: one movemask on AVX,
// two on SSE, instead of eight lane extracts.
inline unsigned lane_bits(vi m) {
#if defined(__AVX__)
  __m256 f;
  std::memcpy(&f, &m, sizeof(f));
  return unsigned(_mm256_movemask_ps(f));
#elif defined(__SSE__)
  __m128 lo, hi;
  std::memcpy(&lo, &m, 16);
  std::memcpy(&hi, reinterpret_cast<const char*>(&m) + 16, 16);
  return unsigned(_mm_movemask_ps(lo) | (_mm_movemask_ps(hi) << 4));
#else
  unsigned b = 0;
  for (int l = 0; l < 8; ++l) b |= unsigned(m[l] != 0) << l;
  return b;
#endif
}

// a * b + c: one fused operation where the build has FMA (shorter dependency chains in the
// exp polynomial), two roundings otherwise. Explicit rather than left to -ffp-contract
// (the kernels compile with it off), so that a tile kernel's forward and backward (one
// inline function, many call sites) round every step the same way and reach the same
// decisions.
inline vf fmadd(vf a, vf b, vf c) {
#if defined(__FMA__)
  __m256 ra, rb, rc;
  std::memcpy(&ra, &a, 32);
  std::memcpy(&rb, &b, 32);
  std::memcpy(&rc, &c, 32);
  const __m256 r = _mm256_fmadd_ps(ra, rb, rc);
  vf o;
  std::memcpy(&o, &r, 32);
  return o;
#else
  return a * b + c;
#endif
}

inline vf v_sqrt(vf x) {  // correctly rounded, without errno
#if defined(__AVX__)
  __m256 r;
  std::memcpy(&r, &x, 32);
  r = _mm256_sqrt_ps(r);
  vf o;
  std::memcpy(&o, &r, 32);
  return o;
#else
  vf o;
  for (int l = 0; l < 8; ++l) o[l] = std::sqrt(x[l]);
  return o;
#endif
}
inline vi v_floor_int(vf x) {  // |x| well inside the int range
  const vi t = __builtin_convertvector(x, vi);  // towards zero
  return t - (__builtin_convertvector(t, vf) > x ? bci(1) : bci(0));
}
inline vi v_ceil_int(vf x) {
  const vi t = __builtin_convertvector(x, vi);
  return t + (__builtin_convertvector(t, vf) < x ? bci(1) : bci(0));
}

// render::fast_exp on eight lanes for the tile kernels: the same exp2 polynomial, evaluated
// with fmadd (equal to fast_exp on the portable path, within an ulp of it on the FMA path).
// Only the lower clamp is needed: callers pass x = -power <= ~0.
// Two instructions fewer than the textbook form, same results: the clamp is one max (a
// NaN power becomes -87 instead of staying NaN; either way the step is no candidate), and
// 2^n comes from the bits of t + magic, which are magic's bits plus n (|n| < 2^22).
inline vf v_exp(vf x) {
#if defined(__AVX__)
  __m256 xr;
  std::memcpy(&xr, &x, 32);
  xr = _mm256_max_ps(xr, _mm256_set1_ps(-87.f));
  std::memcpy(&x, &xr, 32);
#else
  x = x < bc(-87.f) ? bc(-87.f) : x;
#endif
  const vf magic = bc(12582912.f);  // 1.5 * 2^23, bits 0x4B400000
  const vf t = x * bc(1.44269504088896341f);
  const vf tm = t + magic;
  const vf f = t - (tm - magic);
  vf y = fmadd(bc(render::kExp2C5), f, bc(render::kExp2C4));
  y = fmadd(y, f, bc(render::kExp2C3));
  y = fmadd(y, f, bc(render::kExp2C2));
  y = fmadd(y, f, bc(render::kExp2C1));
  y = fmadd(y, f, bc(render::kExp2C0));
  return y * (vf)((((vi)tm) + bci(127 - 0x4B400000)) << 23);
}

struct M8 {  // lane mask: all ones or zero per lane
  vi v;
};

struct F8 {
  vf v;
  F8() = default;
  F8(float x) : v(bc(x)) {}
  F8(double x) : F8(float(x)) {}
  F8(int x) : F8(float(x)) {}
  explicit F8(vf x) : v(x) {}
  float operator[](int l) const { return v[l]; }
};

inline F8 operator+(F8 a, F8 b) { return F8(a.v + b.v); }
inline F8 operator-(F8 a, F8 b) { return F8(a.v - b.v); }
inline F8 operator*(F8 a, F8 b) { return F8(a.v * b.v); }
inline F8 operator/(F8 a, F8 b) { return F8(a.v / b.v); }
inline F8 operator-(F8 a) { return F8(-a.v); }
inline F8& operator+=(F8& a, F8 b) { return a = a + b; }
inline F8& operator-=(F8& a, F8 b) { return a = a - b; }
inline F8& operator*=(F8& a, F8 b) { return a = a * b; }
inline M8 operator<(F8 a, F8 b) { return M8{a.v < b.v}; }
inline M8 operator>(F8 a, F8 b) { return M8{a.v > b.v}; }
inline M8 operator<=(F8 a, F8 b) { return M8{a.v <= b.v}; }
inline M8 operator>=(F8 a, F8 b) { return M8{a.v >= b.v}; }
inline M8 operator==(F8 a, F8 b) { return M8{a.v == b.v}; }
inline M8 operator&(M8 a, M8 b) { return M8{a.v & b.v}; }
inline M8 operator|(M8 a, M8 b) { return M8{a.v | b.v}; }
inline M8 operator!(M8 a) { return M8{~a.v}; }

inline F8 lane_select(M8 m, F8 a, F8 b) { return F8(m.v ? a.v : b.v); }
inline F8 lane_sqrt(F8 a) { return F8(v_sqrt(a.v)); }
// render::fast_exp on eight lanes for the templated math (the same operations without
// fusing, so the same results as the scalar code).
inline F8 lane_exp(F8 a) {
  const vf lo = {-87.f, -87.f, -87.f, -87.f, -87.f, -87.f, -87.f, -87.f};
  const vf hi = {88.f, 88.f, 88.f, 88.f, 88.f, 88.f, 88.f, 88.f};
  vf x = a.v < lo ? lo : a.v;
  x = x > hi ? hi : x;
  const vf magic = F8(12582912.f).v;
  const vf t = x * F8(1.44269504088896341f).v;
  const vf n = (t + magic) - magic;
  const vf f = t - n;
  const vf y = ((((F8(render::kExp2C5).v * f + F8(render::kExp2C4).v) * f + F8(render::kExp2C3).v) * f +
                  F8(render::kExp2C2).v) * f + F8(render::kExp2C1).v) * f + F8(render::kExp2C0).v;
  const vi e = __builtin_convertvector(n, vi);
  const vi e1 = e >> 1, e2 = e - e1;
  return F8(y * (vf)((e1 + 127) << 23) * (vf)((e2 + 127) << 23));
}

// log for x > 0 (the opacity-aware cut, log(255 opacity)): the Cephes logf polynomial,
// within a few ulp of libm. x = m 2^e with m in [sqrt(1/2), sqrt(2)).
inline F8 lane_log(F8 a) {
  const vi bits = (vi)a.v;
  vi e = ((bits >> 23) & 0xff) - 126;
  vf m = (vf)((bits & 0x807fffff) | 0x3f000000);  // [0.5, 1)
  const vi small = m < F8(0.707106781186547524f).v;
  e = e + small;  // small is -1 where true
  m = (small ? m + m : m) - F8(1.f).v;
  const vf z = m * m;
  vf y = F8(7.0376836292E-2f).v;
  y = y * m + F8(-1.1514610310E-1f).v;
  y = y * m + F8(1.1676998740E-1f).v;
  y = y * m + F8(-1.2420140846E-1f).v;
  y = y * m + F8(1.4249322787E-1f).v;
  y = y * m + F8(-1.6668057665E-1f).v;
  y = y * m + F8(2.0000714765E-1f).v;
  y = y * m + F8(-2.4999993993E-1f).v;
  y = y * m + F8(3.3333331174E-1f).v;
  y = y * m * z;
  const vf ef = __builtin_convertvector(e, vf);
  y = y + ef * F8(-2.12194440e-4f).v;
  y = y - F8(0.5f).v * z;
  return F8(m + y + ef * F8(0.693359375f).v);
}

// Transposes an 8x8 block of floats held as eight vectors (row r, element c becomes
// row c, element r): the step between "eight consecutive floats of one splat" and "one
// value of eight splats" (SH coefficients, packed records). Shuffles only, no rounding.
inline void transpose8(vf* r) {
  const vf t0 = __builtin_shufflevector(r[0], r[1], 0, 8, 1, 9, 4, 12, 5, 13);
  const vf t1 = __builtin_shufflevector(r[0], r[1], 2, 10, 3, 11, 6, 14, 7, 15);
  const vf t2 = __builtin_shufflevector(r[2], r[3], 0, 8, 1, 9, 4, 12, 5, 13);
  const vf t3 = __builtin_shufflevector(r[2], r[3], 2, 10, 3, 11, 6, 14, 7, 15);
  const vf t4 = __builtin_shufflevector(r[4], r[5], 0, 8, 1, 9, 4, 12, 5, 13);
  const vf t5 = __builtin_shufflevector(r[4], r[5], 2, 10, 3, 11, 6, 14, 7, 15);
  const vf t6 = __builtin_shufflevector(r[6], r[7], 0, 8, 1, 9, 4, 12, 5, 13);
  const vf t7 = __builtin_shufflevector(r[6], r[7], 2, 10, 3, 11, 6, 14, 7, 15);
  const vf u0 = __builtin_shufflevector(t0, t2, 0, 1, 8, 9, 4, 5, 12, 13);
  const vf u1 = __builtin_shufflevector(t0, t2, 2, 3, 10, 11, 6, 7, 14, 15);
  const vf u2 = __builtin_shufflevector(t1, t3, 0, 1, 8, 9, 4, 5, 12, 13);
  const vf u3 = __builtin_shufflevector(t1, t3, 2, 3, 10, 11, 6, 7, 14, 15);
  const vf u4 = __builtin_shufflevector(t4, t6, 0, 1, 8, 9, 4, 5, 12, 13);
  const vf u5 = __builtin_shufflevector(t4, t6, 2, 3, 10, 11, 6, 7, 14, 15);
  const vf u6 = __builtin_shufflevector(t5, t7, 0, 1, 8, 9, 4, 5, 12, 13);
  const vf u7 = __builtin_shufflevector(t5, t7, 2, 3, 10, 11, 6, 7, 14, 15);
  r[0] = __builtin_shufflevector(u0, u4, 0, 1, 2, 3, 8, 9, 10, 11);
  r[1] = __builtin_shufflevector(u1, u5, 0, 1, 2, 3, 8, 9, 10, 11);
  r[2] = __builtin_shufflevector(u2, u6, 0, 1, 2, 3, 8, 9, 10, 11);
  r[3] = __builtin_shufflevector(u3, u7, 0, 1, 2, 3, 8, 9, 10, 11);
  r[4] = __builtin_shufflevector(u0, u4, 4, 5, 6, 7, 12, 13, 14, 15);
  r[5] = __builtin_shufflevector(u1, u5, 4, 5, 6, 7, 12, 13, 14, 15);
  r[6] = __builtin_shufflevector(u2, u6, 4, 5, 6, 7, 12, 13, 14, 15);
  r[7] = __builtin_shufflevector(u3, u7, 4, 5, 6, 7, 12, 13, 14, 15);
}

inline bool lane_on(M8 m, int l) { return m.v[l] != 0; }
inline unsigned lane_bits(M8 m) { return lane_bits(m.v); }  // bit l set where lane l is

}  // namespace GLINT_LANES_NS
}  // namespace glint::cpu
