#pragma once
// CUDA's execution model on the host, so that the CUDA backend's kernels also run in the
// normal test suite, under the sanitizers and in a debugger. Only what the kernels use is
// here. It is built to fail where a GPU would (emulation.cpp):
// - a grid's blocks run one after another, in an order drawn from the options' seed;
// - the threads of a block are fibers on the launching thread, each running until
//   __syncthreads or its end; between two barriers they run in an order drawn anew (or
//   reversed), so a thread that reads what another wrote without a barrier between them
//   reads the wrong value in some order;
// - __shared__ variables live in one section of static storage (one block runs at a time)
//   that is filled with a poison pattern at each block's start (signalling NaNs as float
//   and double, huge values as integers), so a read of shared memory that this block has
//   not written shows;
// - a kernel launched with independent threads (launch.h's shape_for: no barriers) runs its
//   threads one after another in one order over the whole grid, drawn like the others, so
//   a thread that reads another's output shows too (its shared storage, which such a
//   kernel may use only as scratch of each thread's own, is poisoned at the launch's start).
// A fixed seed gives the same orders every run: failures reproduce, and the kernels must
// give the same bits in any order, which the determinism tests then check. The emulator
// finds indexing errors, uninitialised shared reads and order dependence, not every data
// race (compute-sanitizer's racecheck on a GPU does).
// Included instead of the CUDA runtime when the compiler is not nvcc (cuda_api.h).
#include <atomic>
#include <cstdint>
#include <functional>

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

namespace glint::cuda_emu {
// The running emulated thread's coordinates; in_block while a block's fibers run.
struct ThreadContext {
  dim3 thread_idx, block_idx, block_dim, grid_dim;
  bool in_block = false;
};
inline thread_local ThreadContext tls;

// The order in which threads (between barriers) and blocks run.
enum class ThreadOrder {
  kIndex,     // thread and block index order: the old, forgiving emulator (tests show what it misses)
  kReverse,   // the reverse of index order
  kShuffled,  // an order drawn from the seed, new at every launch, block and barrier
};
struct Options {
  ThreadOrder order = ThreadOrder::kShuffled;
  std::uint64_t seed = 0x5eed;
  bool poison_shared = true;  // fill __shared__ storage with kSharedPoison at each block's start
};
// The options every launch reads: the defaults above, or from the environment at the first
// launch: GLINT_EMU_ORDER=index|reverse|shuffled, GLINT_EMU_SEED=<integer>.
Options options();
// Sets the options while it lives (tests of the emulator itself), and counts launches from
// zero again, so that a seed gives the same orders as at the start of a process.
class ScopedOptions {
 public:
  explicit ScopedOptions(const Options& o);
  ~ScopedOptions();
  ScopedOptions(const ScopedOptions&) = delete;
  ScopedOptions& operator=(const ScopedOptions&) = delete;

 private:
  Options saved_;
  std::uint64_t saved_launches_;
};

// The poison, as 8 bytes repeated from an 8-byte boundary: a float at a multiple of 8 reads
// a signalling NaN (0x7fa5a5a5), one at 4 mod 8 a quiet NaN (0x7ff5a5a5), a double a
// signalling NaN, a 32-bit integer 2.1e9, a byte 0xa5.
inline constexpr std::uint64_t kSharedPoison = 0x7ff5a5a57fa5a5a5ULL;

void sync_threads();

// Runs body() once per thread of the grid. Threads that return early leave the barrier, as
// exited threads no longer take part in __syncthreads on the device. With independent
// (a kernel whose threads never meet at a barrier: launch.h's shape_for) each thread runs
// to its end in turn, no fibers; a __syncthreads there aborts. Launches come from one host
// thread at a time (they share the __shared__ storage); another thread's launch aborts.
void run_grid(dim3 grid, dim3 block, bool independent, const std::function<void()>& body);

template <class T>
inline T atomic_add(T* address, T value) {
  return std::atomic_ref<T>(*address).fetch_add(value);
}
}  // namespace glint::cuda_emu

#define threadIdx (::glint::cuda_emu::tls.thread_idx)
#define blockIdx (::glint::cuda_emu::tls.block_idx)
#define blockDim (::glint::cuda_emu::tls.block_dim)
#define gridDim (::glint::cuda_emu::tls.grid_dim)
#define __syncthreads() ::glint::cuda_emu::sync_threads()
// One section for every kernel's shared variables, so that the emulator can poison them all
// (GNU ld names its bounds __start_glint_emu_shared and __stop_glint_emu_shared).
#define __shared__ static __attribute__((section("glint_emu_shared")))
#define atomicAdd(p, v) ::glint::cuda_emu::atomic_add(p, v)
