#pragma once
// Eight floats as one number, so that the branch-free render/ math (project_splat_vjp and
// what it calls) runs on eight splats at once in the CPU backend: the same source, each
// lane computing exactly what the scalar code would for its splat, except that lane_exp is
// render::fast_exp's polynomial rather than libm's expf. No lane reads another, so results
// do not depend on how splats are grouped. GCC/Clang vector extensions: one AVX register
// where the file is compiled for AVX, two SSE registers otherwise; the inline namespace
// gives the AVX2 and AVX-512 builds their own names, for the reason render/isa.h gives.
#include <cmath>
#include <cstdint>

#include "glint/render/blend.h"

// raster_avx2.cpp and raster_avx512.cpp define it before any include (as they do
// GLINT_RENDER_NS); every other file gets the baseline names.
#ifndef GLINT_LANES_NS
#define GLINT_LANES_NS lanes_base
#endif

namespace glint::cpu {
inline namespace GLINT_LANES_NS {

typedef float f8v __attribute__((vector_size(32)));
typedef std::int32_t i8v __attribute__((vector_size(32)));
// The same vector at any float's address: a load through it stays in registers, where a
// memcpy into an f8v went through the stack in 16-byte halves (GCC's generic AVX tuning
// splits unaligned 32-byte moves), and the 32-byte reload then stalled on the two stores.
typedef float f8u __attribute__((vector_size(32), aligned(4)));
inline f8v load_f8(const float* p) { return *reinterpret_cast<const f8u*>(p); }

struct M8 {  // lane mask: all ones or zero per lane
  i8v v;
};

struct F8 {
  f8v v;
  F8() = default;
  F8(float x) : v{x, x, x, x, x, x, x, x} {}
  F8(double x) : F8(float(x)) {}
  F8(int x) : F8(float(x)) {}
  explicit F8(f8v x) : v(x) {}
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
inline F8 lane_sqrt(F8 a) {
  f8v r;
  for (int l = 0; l < 8; ++l) r[l] = std::sqrt(a.v[l]);  // one vector sqrt without errno
  return F8(r);
}
// render::fast_exp on eight lanes (the same operations, so the same results).
inline F8 lane_exp(F8 a) {
  const f8v lo = {-87.f, -87.f, -87.f, -87.f, -87.f, -87.f, -87.f, -87.f};
  const f8v hi = {88.f, 88.f, 88.f, 88.f, 88.f, 88.f, 88.f, 88.f};
  f8v x = a.v < lo ? lo : a.v;
  x = x > hi ? hi : x;
  const f8v magic = F8(12582912.f).v;
  const f8v t = x * F8(1.44269504088896341f).v;
  const f8v n = (t + magic) - magic;
  const f8v f = t - n;
  const f8v y = ((((F8(render::kExp2C5).v * f + F8(render::kExp2C4).v) * f + F8(render::kExp2C3).v) * f +
                  F8(render::kExp2C2).v) * f + F8(render::kExp2C1).v) * f + F8(render::kExp2C0).v;
  const i8v e = __builtin_convertvector(n, i8v);
  const i8v e1 = e >> 1, e2 = e - e1;
  return F8(y * (f8v)((e1 + 127) << 23) * (f8v)((e2 + 127) << 23));
}

// log for x > 0 (the opacity-aware cut, log(255 opacity)): the Cephes logf polynomial,
// within a few ulp of libm. x = m 2^e with m in [sqrt(1/2), sqrt(2)).
inline F8 lane_log(F8 a) {
  const i8v bits = (i8v)a.v;
  i8v e = ((bits >> 23) & 0xff) - 126;
  f8v m = (f8v)((bits & 0x807fffff) | 0x3f000000);  // [0.5, 1)
  const i8v small = m < F8(0.707106781186547524f).v;
  e = e + small;  // small is -1 where true
  m = (small ? m + m : m) - F8(1.f).v;
  const f8v z = m * m;
  f8v y = F8(7.0376836292E-2f).v;
  y = y * m + F8(-1.1514610310E-1f).v;
  y = y * m + F8(1.1676998740E-1f).v;
  y = y * m + F8(-1.2420140846E-1f).v;
  y = y * m + F8(1.4249322787E-1f).v;
  y = y * m + F8(-1.6668057665E-1f).v;
  y = y * m + F8(2.0000714765E-1f).v;
  y = y * m + F8(-2.4999993993E-1f).v;
  y = y * m + F8(3.3333331174E-1f).v;
  y = y * m * z;
  const f8v ef = __builtin_convertvector(e, f8v);
  y = y + ef * F8(-2.12194440e-4f).v;
  y = y - F8(0.5f).v * z;
  return F8(m + y + ef * F8(0.693359375f).v);
}

// Transposes an 8x8 block of floats held as eight vectors (row r, element c becomes
// row c, element r): the step between "eight consecutive floats of one splat" and "one
// value of eight splats" (SH coefficients, packed records). Shuffles only, no rounding.
inline void transpose8(f8v* r) {
  const f8v t0 = __builtin_shufflevector(r[0], r[1], 0, 8, 1, 9, 4, 12, 5, 13);
  const f8v t1 = __builtin_shufflevector(r[0], r[1], 2, 10, 3, 11, 6, 14, 7, 15);
  const f8v t2 = __builtin_shufflevector(r[2], r[3], 0, 8, 1, 9, 4, 12, 5, 13);
  const f8v t3 = __builtin_shufflevector(r[2], r[3], 2, 10, 3, 11, 6, 14, 7, 15);
  const f8v t4 = __builtin_shufflevector(r[4], r[5], 0, 8, 1, 9, 4, 12, 5, 13);
  const f8v t5 = __builtin_shufflevector(r[4], r[5], 2, 10, 3, 11, 6, 14, 7, 15);
  const f8v t6 = __builtin_shufflevector(r[6], r[7], 0, 8, 1, 9, 4, 12, 5, 13);
  const f8v t7 = __builtin_shufflevector(r[6], r[7], 2, 10, 3, 11, 6, 14, 7, 15);
  const f8v u0 = __builtin_shufflevector(t0, t2, 0, 1, 8, 9, 4, 5, 12, 13);
  const f8v u1 = __builtin_shufflevector(t0, t2, 2, 3, 10, 11, 6, 7, 14, 15);
  const f8v u2 = __builtin_shufflevector(t1, t3, 0, 1, 8, 9, 4, 5, 12, 13);
  const f8v u3 = __builtin_shufflevector(t1, t3, 2, 3, 10, 11, 6, 7, 14, 15);
  const f8v u4 = __builtin_shufflevector(t4, t6, 0, 1, 8, 9, 4, 5, 12, 13);
  const f8v u5 = __builtin_shufflevector(t4, t6, 2, 3, 10, 11, 6, 7, 14, 15);
  const f8v u6 = __builtin_shufflevector(t5, t7, 0, 1, 8, 9, 4, 5, 12, 13);
  const f8v u7 = __builtin_shufflevector(t5, t7, 2, 3, 10, 11, 6, 7, 14, 15);
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
inline unsigned lane_bits(M8 m) {  // bit l set where lane l is
#if defined(__AVX__)
  return unsigned(__builtin_ia32_movmskps256((f8v)m.v));
#else
  unsigned b = 0;
  for (int l = 0; l < 8; ++l) b |= unsigned(m.v[l] != 0) << l;
  return b;
#endif
}

}  // namespace GLINT_LANES_NS
}  // namespace glint::cpu
