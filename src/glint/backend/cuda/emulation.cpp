#include "glint/backend/cuda/emulation.h"

#include <ucontext.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define GLINT_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GLINT_EMU_ASAN 1
#endif
#endif
#if defined(GLINT_EMU_ASAN)
#include <sanitizer/common_interface_defs.h>
#endif

namespace glint::cuda_emu {
namespace {

// A block's threads are fibers (ucontext) on the launching thread: each runs until it
// meets __syncthreads or returns, then the next one runs; once every thread still running
// waits at the barrier, all go on. One host thread, no locks, the same interleaving every
// run, and a context switch in user space per barrier and thread instead of an OS thread
// per CUDA thread meeting the others at a shared barrier.
enum class FiberState { kRunnable, kWaiting, kDone };

struct Fiber {
  ucontext_t context{};
  FiberState state = FiberState::kRunnable;
  dim3 thread_idx;
};

// Stack of one emulated thread: kernels keep their arrays in __shared__ (statics) and a few
// locals on it; sanitizer builds need more room for their redzones.
#if defined(GLINT_EMU_ASAN)
constexpr std::size_t kStackBytes = 512 << 10;
#else
constexpr std::size_t kStackBytes = 128 << 10;
#endif

struct Scheduler {
  ucontext_t context{};
  std::vector<Fiber> fibers;
  std::unique_ptr<char[]> stacks;  // kStackBytes a fiber, kept for the next launch
  std::size_t stack_count = 0;
  const std::function<void()>* body = nullptr;
  std::size_t current = 0;
#if defined(GLINT_EMU_ASAN)
  const void* main_stack_bottom = nullptr;
  std::size_t main_stack_size = 0;
#endif
};
thread_local Scheduler sched;

char* stack_of(std::size_t t) { return sched.stacks.get() + t * kStackBytes; }

// Into fiber t from the scheduler, and back.
void switch_to_fiber(std::size_t t) {
  sched.current = t;
  tls.thread_idx = sched.fibers[t].thread_idx;
#if defined(GLINT_EMU_ASAN)
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, stack_of(t), kStackBytes);
  swapcontext(&sched.context, &sched.fibers[t].context);
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#else
  swapcontext(&sched.context, &sched.fibers[t].context);
#endif
}
// From the running fiber to the scheduler (it is resumed here unless it is done).
void switch_to_scheduler(bool done) {
  Fiber& f = sched.fibers[sched.current];
#if defined(GLINT_EMU_ASAN)
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(done ? nullptr : &fake, sched.main_stack_bottom, sched.main_stack_size);
  swapcontext(&f.context, &sched.context);
  __sanitizer_finish_switch_fiber(fake, &sched.main_stack_bottom, &sched.main_stack_size);
#else
  (void)done;
  swapcontext(&f.context, &sched.context);
#endif
}

void fiber_entry() {
#if defined(GLINT_EMU_ASAN)
  __sanitizer_finish_switch_fiber(nullptr, &sched.main_stack_bottom, &sched.main_stack_size);
#endif
  (*sched.body)();
  sched.fibers[sched.current].state = FiberState::kDone;
  switch_to_scheduler(true);
  std::abort();  // a finished fiber is never resumed
}

void run_block_fibers(dim3 grid, dim3 block, dim3 block_idx, const std::function<void()>& body) {
  const std::size_t n = static_cast<std::size_t>(block.x) * block.y * block.z;
  if (sched.stack_count < n) {
    sched.stacks.reset(new char[n * kStackBytes]);
    sched.stack_count = n;
  }
  sched.fibers.assign(n, Fiber{});
  sched.body = &body;
  tls.block_idx = block_idx;
  tls.block_dim = block;
  tls.grid_dim = grid;
  tls.in_block = true;
  for (std::size_t t = 0; t < n; ++t) {
    Fiber& f = sched.fibers[t];
    const auto u = static_cast<unsigned>(t);
    f.thread_idx = dim3(u % block.x, u / block.x % block.y, u / (block.x * block.y));
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = stack_of(t);
    f.context.uc_stack.ss_size = kStackBytes;
    f.context.uc_link = nullptr;
    makecontext(&f.context, fiber_entry, 0);
  }
  std::size_t live = n;
  while (live > 0) {
    for (std::size_t t = 0; t < n; ++t) {
      if (sched.fibers[t].state != FiberState::kRunnable) continue;
      switch_to_fiber(t);
      if (sched.fibers[t].state == FiberState::kDone) --live;
    }
    for (Fiber& f : sched.fibers)  // every live thread waits at the barrier: it opens
      if (f.state == FiberState::kWaiting) f.state = FiberState::kRunnable;
  }
  tls.in_block = false;
}

}  // namespace

void sync_threads() {
  if (!tls.in_block) {
    std::fprintf(stderr, "CUDA emulation: __syncthreads in a kernel launched with independent threads (shape_for)\n");
    std::abort();
  }
  sched.fibers[sched.current].state = FiberState::kWaiting;
  switch_to_scheduler(false);
}

void run_grid(dim3 grid, dim3 block, bool independent, const std::function<void()>& body) {
  const unsigned per_block = block.x * block.y * block.z;
  if (per_block == 0) return;
  if (tls.in_block) {
    std::fprintf(stderr, "CUDA emulation: a launch from inside a kernel\n");
    std::abort();
  }
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        if (!independent) {
          run_block_fibers(grid, block, dim3(bx, by, bz), body);
          continue;
        }
        tls.block_idx = dim3(bx, by, bz);
        tls.block_dim = block;
        tls.grid_dim = grid;
        for (unsigned t = 0; t < per_block; ++t) {
          tls.thread_idx = dim3(t % block.x, t / block.x % block.y, t / (block.x * block.y));
          body();
        }
      }
}

}  // namespace glint::cuda_emu
