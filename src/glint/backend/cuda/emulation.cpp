#include "glint/backend/cuda/emulation.h"

#include <ucontext.h>

#include <cstddef>
#include <cstdint>
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

// A context switch between fibers. On x86-64 a few instructions of our own that keep the
// callee-saved registers and the floating-point control words (what the ABI says survives
// a call); swapcontext also saves and restores the signal mask, a system call each switch,
// which made it most of an emulated kernel's time. Elsewhere swapcontext.
#if defined(__x86_64__) && !defined(GLINT_EMU_UCONTEXT)
#define GLINT_EMU_OWN_SWITCH 1
extern "C" void glint_emu_switch(void** save_sp, void* load_sp);
asm(R"(
.text
.globl glint_emu_switch
.type glint_emu_switch, @function
glint_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
.size glint_emu_switch, .-glint_emu_switch
)");
#endif

namespace glint::cuda_emu {
namespace {

struct Context {
#if defined(GLINT_EMU_OWN_SWITCH)
  void* sp = nullptr;
#else
  ucontext_t uc{};
#endif
};

void context_switch(Context& from, Context& to) {
#if defined(GLINT_EMU_OWN_SWITCH)
  glint_emu_switch(&from.sp, to.sp);
#else
  swapcontext(&from.uc, &to.uc);
#endif
}

// `c` starts at entry (which never returns) on the given stack at its first switch.
void context_start(Context& c, char* stack, std::size_t bytes, void (*entry)()) {
#if defined(GLINT_EMU_OWN_SWITCH)
  // The frame glint_emu_switch pops: the control words, six registers, then entry as the
  // return address, with the stack 16-byte aligned at entry's call boundary.
  auto top = reinterpret_cast<std::uintptr_t>(stack + bytes) & ~std::uintptr_t{15};
  auto* frame = reinterpret_cast<std::uint64_t*>(top) - 9;
  std::uint32_t mxcsr = 0;
  std::uint16_t fpucw = 0;
  asm volatile("stmxcsr %0" : "=m"(mxcsr));
  asm volatile("fnstcw %0" : "=m"(fpucw));
  frame[0] = static_cast<std::uint64_t>(mxcsr) | (static_cast<std::uint64_t>(fpucw) << 32);
  for (int r = 1; r <= 6; ++r) frame[r] = 0;  // r15, r14, r13, r12, rbx, rbp
  frame[7] = reinterpret_cast<std::uint64_t>(entry);
  frame[8] = 0;  // entry's return address: it never returns
  c.sp = frame;
#else
  getcontext(&c.uc);
  c.uc.uc_stack.ss_sp = stack;
  c.uc.uc_stack.ss_size = bytes;
  c.uc.uc_link = nullptr;
  makecontext(&c.uc, entry, 0);
#endif
}

// A block's threads are fibers on the launching thread: each runs until it
// meets __syncthreads or returns, then the next one runs; once every thread still running
// waits at the barrier, all go on. One host thread, no locks, the same interleaving every
// run, and a context switch in user space per barrier and thread instead of an OS thread
// per CUDA thread meeting the others at a shared barrier.
enum class FiberState { kRunnable, kWaiting, kDone };

struct Fiber {
  Context context;
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
  Context context;
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
  context_switch(sched.context, sched.fibers[t].context);
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#else
  context_switch(sched.context, sched.fibers[t].context);
#endif
}
// From the running fiber to the scheduler (it is resumed here unless it is done).
void switch_to_scheduler(bool done) {
  Fiber& f = sched.fibers[sched.current];
#if defined(GLINT_EMU_ASAN)
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(done ? nullptr : &fake, sched.main_stack_bottom, sched.main_stack_size);
  context_switch(f.context, sched.context);
  __sanitizer_finish_switch_fiber(fake, &sched.main_stack_bottom, &sched.main_stack_size);
#else
  (void)done;
  context_switch(f.context, sched.context);
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
    context_start(f.context, stack_of(t), kStackBytes, fiber_entry);
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
