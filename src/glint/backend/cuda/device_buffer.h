#pragma once
// Device memory with its element type and length: allocated once, resized only to grow,
// freed with its owner; span() is what kernels take. Under nvcc it is cudaMalloc'd memory,
// under the emulator (cuda_api.h) host memory, so the stages that own buffers compile both
// ways. The few transfers the stages make (a scalar down, an upload, a clear) are the
// functions below; device_algorithms.h has the scan and the sort.
#include <atomic>
#include <cstddef>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "glint/backend/cuda/cuda_api.h"
#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/device_span.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

#if defined(__CUDACC__)
inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(e));
}
#endif
// Reports an error of the launches so far (the emulator's kernels have none to report).
inline void check_launches(const char* what) {
#if defined(__CUDACC__)
  check(cudaGetLastError(), what);
#else
  (void)what;
#endif
}

// Bytes of device memory the backend's buffers hold now and at most so far (the CUDA
// runtime's own context and caches are not counted): eval.json's peak device memory.
struct DeviceMemoryUse {
  std::atomic<long long> now{0}, peak{0};
  void add(long long bytes) {
    const long long v = now.fetch_add(bytes) + bytes;
    for (long long p = peak.load(); v > p && !peak.compare_exchange_weak(p, v);) {
    }
  }
};
inline DeviceMemoryUse& device_memory_use() {
  static DeviceMemoryUse use;
  return use;
}

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) { resize(n); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : data_(o.data_), size_(o.size_), capacity_(o.capacity_) {
    o.data_ = nullptr;
    o.size_ = o.capacity_ = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(capacity_, o.capacity_);
    return *this;
  }
  ~DeviceBuffer() { release(); }

  // Room for n elements (contents are lost when it grows); size() becomes n.
  void resize(std::size_t n) {
    reserve(n);
    size_ = n;
  }
  std::size_t size() const { return size_; }
  T* data() const { return data_; }
  DeviceSpan<T> span() const { return {data_, size_}; }
  DeviceSpan<const T> cspan() const { return {data_, size_}; }

 private:
  void release() {
    device_memory_use().add(-static_cast<long long>(capacity_ * sizeof(T)));
#if defined(__CUDACC__)
    cudaFree(data_);
#else
    ::operator delete(static_cast<void*>(data_), std::align_val_t{256});
#endif
    data_ = nullptr;
  }
  void reserve(std::size_t n) {
    if (n <= capacity_) return;
    release();
    capacity_ = 0;
#if defined(__CUDACC__)
    check(cudaMalloc(reinterpret_cast<void**>(&data_), n * sizeof(T)), "cudaMalloc");
#else
    // uninitialised, as cudaMalloc's memory is, and aligned as it is
    data_ = static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{256}));
#endif
    capacity_ = n;
    device_memory_use().add(static_cast<long long>(n * sizeof(T)));
  }
  T* data_ = nullptr;
  std::size_t size_ = 0, capacity_ = 0;
};

// n elements from host memory into b (resized to n).
template <class T>
void upload(DeviceBuffer<T>& b, const T* src, std::size_t n) {
  b.resize(n);
  if (n == 0) return;
#if defined(__CUDACC__)
  check(cudaMemcpy(b.data(), src, n * sizeof(T), cudaMemcpyHostToDevice), "upload");
#else
  std::memcpy(static_cast<void*>(b.data()), src, n * sizeof(T));
#endif
}
template <class T, class A>
void upload(DeviceBuffer<T>& b, const std::vector<T, A>& src) {
  upload(b, src.data(), src.size());
}

// n elements of device memory from src into host memory.
template <class T>
void download(const T* src, std::size_t n, T* dst) {
  if (n == 0) return;
#if defined(__CUDACC__)
  check(cudaMemcpy(dst, src, n * sizeof(T), cudaMemcpyDeviceToHost), "download");
#else
  std::memcpy(static_cast<void*>(dst), src, n * sizeof(T));
#endif
}
template <class T, class A>
void download(const DeviceBuffer<T>& b, std::vector<T, A>& out) {
  out.resize(b.size());
  download(b.data(), b.size(), out.data());
}
// One value of device memory (a count, a sum, a flag).
template <class T>
T download_value(const T* src) {
  T v{};
  download(src, 1, &v);
  return v;
}

// Sets n elements of device memory from p on to zero bytes.
template <class T>
void clear(T* p, std::size_t n) {
  if (n == 0) return;
#if defined(__CUDACC__)
  check(cudaMemset(p, 0, n * sizeof(T)), "clear");
#else
  std::memset(static_cast<void*>(p), 0, n * sizeof(T));
#endif
}
template <class T>
void clear(DeviceBuffer<T>& b) {
  clear(b.data(), b.size());
}

// n elements from one place in device memory to another.
template <class T>
void copy_device(const T* src, std::size_t n, T* dst) {
  if (n == 0) return;
#if defined(__CUDACC__)
  check(cudaMemcpy(dst, src, n * sizeof(T), cudaMemcpyDeviceToDevice), "copy");
#else
  std::memmove(static_cast<void*>(dst), src, n * sizeof(T));
#endif
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
