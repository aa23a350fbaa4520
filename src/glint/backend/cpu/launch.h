#pragma once
// How the CPU backend runs per-element and per-tile work: OpenMP threads. A kernel is a
// struct with a static `run(int index, Args...)` and a `using Args = std::tuple<...>`;
// launch<Kernel>(n, threads, args...) only compiles when the argument types are exactly
// Kernel::Args, so a wrong argument list is a compile error (a CUDA launcher would wrap the
// same Kernel::run in a __global__ function with the same check).
#include <concepts>
#include <tuple>
#include <type_traits>

namespace glint::cpu {

// Static partition of [0, n) over the threads; f(i) for each i. Threads from min_parallel
// elements on: below that the work costs less than a parallel region.
template <class F>
  requires std::invocable<F&, int>
void parallel_for_static(int n, int threads, int min_parallel, F&& f) {
#pragma omp parallel for schedule(static) num_threads(threads) if (n >= min_parallel)
  for (int i = 0; i < n; ++i) f(i);
}

// Kernel::kMinParallel: the fewest indices worth a parallel region (a kernel's own, since
// the work of one index differs from kernel to kernel).
template <class Kernel, class... Given>
void launch(int n, int threads, Given... args) {
  static_assert(std::is_same_v<std::tuple<Given...>, typename Kernel::Args>,
                "launch<Kernel>: argument list does not match Kernel::Args");
  // (GCC cannot expand a parameter pack inside an OpenMP loop, hence the tuple)
  const std::tuple<Given...> packed(args...);
  parallel_for_static(n, threads, Kernel::kMinParallel, [&packed](int i) {
    std::apply([i](auto... a) { Kernel::run(i, a...); }, packed);
  });
}

// Per-tile work with dynamic scheduling (tiles differ a lot in cost). Each call of f must
// only write data owned by its tile, so the result does not depend on the thread count.
template <class F>
  requires std::invocable<F&, int>
void parallel_for_tiles(int n, int threads, F&& f) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int i = 0; i < n; ++i) f(i);
}

// Independent chunks of a range (each chunk's index is its identity, not its thread).
template <class F>
  requires std::invocable<F&, int>
void parallel_for_chunks(int n, int threads, F&& f) {
#pragma omp parallel for schedule(static, 1) num_threads(threads) if (n > 1)
  for (int i = 0; i < n; ++i) f(i);
}

}  // namespace glint::cpu
