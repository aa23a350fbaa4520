#pragma once
// Device memory with its element type and length (nvcc only): allocated once, resized
// only to grow, freed with its owner; span() is what kernels take.
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

#include "glint/backend/cuda/device_span.h"

namespace glint::cuda {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(e));
}

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) { reserve(n); }
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
  ~DeviceBuffer() { cudaFree(data_); }

  // Room for n elements (contents are lost when it grows); size() becomes n.
  void resize(std::size_t n) {
    reserve(n);
    size_ = n;
  }
  std::size_t size() const { return size_; }
  T* data() const { return data_; }
  DeviceSpan<T> span() const { return {data_, static_cast<std::uint32_t>(size_)}; }
  DeviceSpan<const T> cspan() const { return {data_, static_cast<std::uint32_t>(size_)}; }

 private:
  void reserve(std::size_t n) {
    if (n <= capacity_) return;
    cudaFree(data_);
    data_ = nullptr;
    check(cudaMalloc(reinterpret_cast<void**>(&data_), n * sizeof(T)), "cudaMalloc");
    capacity_ = n;
  }
  T* data_ = nullptr;
  std::size_t size_ = 0, capacity_ = 0;
};

}  // namespace glint::cuda
