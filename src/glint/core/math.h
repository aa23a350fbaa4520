#pragma once
// Small fixed-size vector/matrix types shared by host code and kernels. Plain aggregates
// with no alignment requirements: flat float buffers are read through load3/store3 so
// that no backend (CPU lanes or CUDA) ever assumes a 16-byte float3.
#include <cmath>

#include "glint/core/hd.h"

namespace glint {

template <class T>
struct Vec2 {
  T x, y;
};

template <class T>
struct Vec3 {
  T x, y, z;
};

template <class T>
struct Vec4 {
  T x, y, z, w;
};

// Quaternion in the stored order (w, x, y, z).
template <class T>
struct Quat {
  T w, x, y, z;
};

// Row-major 3x3: m[r*3 + c].
template <class T>
struct Mat3 {
  T m[9];
  GLINT_HD T& operator()(int r, int c) { return m[r * 3 + c]; }
  GLINT_HD T operator()(int r, int c) const { return m[r * 3 + c]; }
};

using Vec2f = Vec2<float>;
using Vec3f = Vec3<float>;
using Vec4f = Vec4<float>;
using Quatf = Quat<float>;
using Mat3f = Mat3<float>;
using Vec2d = Vec2<double>;
using Vec3d = Vec3<double>;
using Vec4d = Vec4<double>;
using Quatd = Quat<double>;
using Mat3d = Mat3<double>;

// Helpers that let one piece of per-element math run on plain numbers and, in the CPU
// backend, on eight splats at once (backend/cpu/lanes.h overloads them for its lane type,
// found by argument-dependent lookup). Comparisons give bool here and a lane mask there,
// so branch-free code selects instead of branching.
template <class T>
GLINT_HD inline T lane_select(bool m, T a, T b) {
  return m ? a : b;
}
GLINT_HD inline float lane_sqrt(float x) { return std::sqrt(x); }
GLINT_HD inline double lane_sqrt(double x) { return std::sqrt(x); }
GLINT_HD inline float lane_exp(float x) { return std::exp(x); }
GLINT_HD inline double lane_exp(double x) { return std::exp(x); }
GLINT_HD inline float lane_log(float x) { return std::log(x); }
GLINT_HD inline double lane_log(double x) { return std::log(x); }

template <class T>
GLINT_HD inline Vec3<T> load3(const T* p, long i) {
  return {p[3 * i], p[3 * i + 1], p[3 * i + 2]};
}
template <class T>
GLINT_HD inline void store3(T* p, long i, Vec3<T> v) {
  p[3 * i] = v.x;
  p[3 * i + 1] = v.y;
  p[3 * i + 2] = v.z;
}
template <class T>
GLINT_HD inline Vec4<T> load4(const T* p, long i) {
  return {p[4 * i], p[4 * i + 1], p[4 * i + 2], p[4 * i + 3]};
}
template <class T>
GLINT_HD inline void store4(T* p, long i, Vec4<T> v) {
  p[4 * i] = v.x;
  p[4 * i + 1] = v.y;
  p[4 * i + 2] = v.z;
  p[4 * i + 3] = v.w;
}

template <class T>
GLINT_HD inline Quat<T> load_quat(const T* p, long i) {
  return {p[4 * i], p[4 * i + 1], p[4 * i + 2], p[4 * i + 3]};
}
template <class T>
GLINT_HD inline void store_quat(T* p, long i, Quat<T> q) {
  p[4 * i] = q.w;
  p[4 * i + 1] = q.x;
  p[4 * i + 2] = q.y;
  p[4 * i + 3] = q.z;
}

template <class T> GLINT_HD inline Vec2<T> operator+(Vec2<T> a, Vec2<T> b) { return {a.x + b.x, a.y + b.y}; }
template <class T> GLINT_HD inline Vec2<T> operator-(Vec2<T> a, Vec2<T> b) { return {a.x - b.x, a.y - b.y}; }
template <class T> GLINT_HD inline Vec2<T> operator*(T s, Vec2<T> a) { return {s * a.x, s * a.y}; }

template <class T> GLINT_HD inline Vec3<T> operator+(Vec3<T> a, Vec3<T> b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
template <class T> GLINT_HD inline Vec3<T> operator-(Vec3<T> a, Vec3<T> b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
template <class T> GLINT_HD inline Vec3<T> operator-(Vec3<T> a) { return {-a.x, -a.y, -a.z}; }
template <class T> GLINT_HD inline Vec3<T> operator*(T s, Vec3<T> a) { return {s * a.x, s * a.y, s * a.z}; }
template <class T> GLINT_HD inline Vec3<T> operator*(Vec3<T> a, T s) { return {s * a.x, s * a.y, s * a.z}; }
template <class T> GLINT_HD inline Vec3<T> mul(Vec3<T> a, Vec3<T> b) { return {a.x * b.x, a.y * b.y, a.z * b.z}; }
template <class T> GLINT_HD inline T dot(Vec3<T> a, Vec3<T> b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
template <class T> GLINT_HD inline Vec3<T> cross(Vec3<T> a, Vec3<T> b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class T> GLINT_HD inline T norm(Vec3<T> a) { return lane_sqrt(dot(a, a)); }
template <class T> GLINT_HD inline Vec3<T> normalize(Vec3<T> a) {
  T n = norm(a);
  return n > T(0) ? (T(1) / n) * a : Vec3<T>{T(0), T(0), T(1)};
}

template <class T> GLINT_HD inline Vec3<T> operator*(const Mat3<T>& A, Vec3<T> v) {
  return {A.m[0] * v.x + A.m[1] * v.y + A.m[2] * v.z,
          A.m[3] * v.x + A.m[4] * v.y + A.m[5] * v.z,
          A.m[6] * v.x + A.m[7] * v.y + A.m[8] * v.z};
}
template <class T> GLINT_HD inline Mat3<T> operator*(const Mat3<T>& A, const Mat3<T>& B) {
  Mat3<T> C{};
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      C.m[r * 3 + c] = A.m[r * 3] * B.m[c] + A.m[r * 3 + 1] * B.m[3 + c] + A.m[r * 3 + 2] * B.m[6 + c];
  return C;
}
template <class T> GLINT_HD inline Mat3<T> transpose(const Mat3<T>& A) {
  return {{A.m[0], A.m[3], A.m[6], A.m[1], A.m[4], A.m[7], A.m[2], A.m[5], A.m[8]}};
}
template <class T> GLINT_HD inline Mat3<T> identity3() {
  return {{T(1), T(0), T(0), T(0), T(1), T(0), T(0), T(0), T(1)}};
}

// Rotation of the quaternion (w, x, y, z), normalised here because stored quaternions
// are not. A zero quaternion has no rotation to give; it maps to the identity.
// Branch-free (lane_select), so that it also runs on lanes.
template <class T>
GLINT_HD inline Mat3<T> quat_to_rotmat(Quat<T> q) {
  T n2 = q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z;
  const auto ok = n2 > T(0);
  T s = T(1) / lane_sqrt(lane_select(ok, n2, T(1)));
  // the zero quaternion becomes (1, 0, 0, 0), whose matrix below is exactly the identity
  T w = lane_select(ok, q.w * s, T(1)), x = lane_select(ok, q.x * s, T(0)), y = lane_select(ok, q.y * s, T(0)),
    z = lane_select(ok, q.z * s, T(0));
  return {{T(1) - T(2) * (y * y + z * z), T(2) * (x * y - w * z), T(2) * (x * z + w * y),
           T(2) * (x * y + w * z), T(1) - T(2) * (x * x + z * z), T(2) * (y * z - w * x),
           T(2) * (x * z - w * y), T(2) * (y * z + w * x), T(1) - T(2) * (x * x + y * y)}};
}

// Inverse of quat_to_rotmat for a proper rotation; returns (w, x, y, z) with w >= 0.
template <class T>
inline Quat<T> rotmat_to_quat(const Mat3<T>& R) {
  T tr = R.m[0] + R.m[4] + R.m[8];
  Quat<T> q;
  if (tr > T(0)) {
    T s = std::sqrt(tr + T(1)) * T(2);
    q = {T(0.25) * s, (R.m[7] - R.m[5]) / s, (R.m[2] - R.m[6]) / s, (R.m[3] - R.m[1]) / s};
  } else if (R.m[0] > R.m[4] && R.m[0] > R.m[8]) {
    T s = std::sqrt(T(1) + R.m[0] - R.m[4] - R.m[8]) * T(2);
    q = {(R.m[7] - R.m[5]) / s, T(0.25) * s, (R.m[1] + R.m[3]) / s, (R.m[2] + R.m[6]) / s};
  } else if (R.m[4] > R.m[8]) {
    T s = std::sqrt(T(1) + R.m[4] - R.m[0] - R.m[8]) * T(2);
    q = {(R.m[2] - R.m[6]) / s, (R.m[1] + R.m[3]) / s, T(0.25) * s, (R.m[5] + R.m[7]) / s};
  } else {
    T s = std::sqrt(T(1) + R.m[8] - R.m[0] - R.m[4]) * T(2);
    q = {(R.m[3] - R.m[1]) / s, (R.m[2] + R.m[6]) / s, (R.m[5] + R.m[7]) / s, T(0.25) * s};
  }
  if (q.w < T(0)) q = {-q.w, -q.x, -q.y, -q.z};
  T n = std::sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
  return {q.w / n, q.x / n, q.y / n, q.z / n};
}

}  // namespace glint
