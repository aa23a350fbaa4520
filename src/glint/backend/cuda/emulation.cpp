#include "glint/backend/cuda/emulation.h"

#include <ucontext.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define GLINT_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GLINT_EMU_ASAN 1
#endif
#endif
#if defined(GLINT_EMU_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

// The bounds of the section that every emulated __shared__ variable lives in (emulation.h);
// null when the binary has none.
extern "C" {
extern char __start_glint_emu_shared[] __attribute__((weak));
extern char __stop_glint_emu_shared[] __attribute__((weak));
}

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

// A block's threads are fibers on the launching thread: each runs until it meets
// __syncthreads or returns, then the next one in the phase's order runs; once every thread
// still running waits at the barrier, all go on. One host thread, no locks, an order drawn
// from the seed, and a context switch in user space per barrier and thread instead of an
// OS thread per CUDA thread meeting the others at a shared barrier.
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
  std::vector<std::uint32_t> order;  // the running phase's thread order
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

// Orders -------------------------------------------------------------------------------

std::uint64_t mix64(std::uint64_t z) {  // splitmix64's finaliser
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// order = 0 .. n-1 in the options' order; `key` draws the shuffle.
void make_order(std::vector<std::uint32_t>& order, std::size_t n, ThreadOrder how, std::uint64_t key) {
  order.resize(n);
  std::iota(order.begin(), order.end(), 0u);
  if (how == ThreadOrder::kReverse) {
    std::reverse(order.begin(), order.end());
  } else if (how == ThreadOrder::kShuffled) {
    for (std::size_t i = n; i > 1; --i) {  // Fisher-Yates
      key += 0x9e3779b97f4a7c15ULL;
      const auto j = static_cast<std::size_t>((static_cast<unsigned __int128>(mix64(key)) * i) >> 64);
      std::swap(order[i - 1], order[j]);
    }
  }
}

// Options -------------------------------------------------------------------------------

Options from_environment() {
  Options o;
  if (const char* v = std::getenv("GLINT_EMU_ORDER")) {
    const std::string s(v);
    if (s == "index") o.order = ThreadOrder::kIndex;
    else if (s == "reverse") o.order = ThreadOrder::kReverse;
    else if (s == "shuffled") o.order = ThreadOrder::kShuffled;
    else {
      std::fprintf(stderr, "CUDA emulation: GLINT_EMU_ORDER=%s is not index, reverse or shuffled\n", v);
      std::abort();
    }
  }
  if (const char* v = std::getenv("GLINT_EMU_SEED")) {
    char* end = nullptr;
    o.seed = std::strtoull(v, &end, 0);
    if (end == v || *end != 0) {
      std::fprintf(stderr, "CUDA emulation: GLINT_EMU_SEED=%s is not an integer\n", v);
      std::abort();
    }
  }
  return o;
}
Options& current_options() {
  static Options o = from_environment();
  return o;
}

// Shared memory ------------------------------------------------------------------------

// Bytes [b, e) set to the poison, each byte as its address's place in the 8-byte pattern.
void fill_poison(char* b, char* e) {
  const auto byte_at = [](const char* p) {
    return static_cast<char>(kSharedPoison >> (8 * (reinterpret_cast<std::uintptr_t>(p) & 7)));
  };
  for (; b < e && (reinterpret_cast<std::uintptr_t>(b) & 7) != 0; ++b) *b = byte_at(b);
  for (; e - b >= 8; b += 8) std::memcpy(b, &kSharedPoison, 8);
  for (; b < e; ++b) *b = byte_at(b);
}

// Every __shared__ variable of every kernel (one block runs at a time), skipping the
// redzones AddressSanitizer may have put between them.
void poison_shared() {
  char* b = __start_glint_emu_shared;
  char* const e = __stop_glint_emu_shared;
  if (b == nullptr || e == nullptr || b >= e) return;
#if defined(GLINT_EMU_ASAN)
  while (b < e) {
    char* bad = static_cast<char*>(__asan_region_is_poisoned(b, static_cast<std::size_t>(e - b)));
    fill_poison(b, bad ? bad : e);
    if (!bad) break;
    b = bad;
    while (b < e && __asan_address_is_poisoned(b)) ++b;
  }
#else
  fill_poison(b, e);
#endif
}

// Blocks -------------------------------------------------------------------------------

void run_block_fibers(dim3 grid, dim3 block, dim3 block_idx, const std::function<void()>& body,
                      const Options& opt, std::uint64_t block_key) {
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
  std::uint64_t phase = 0;
  while (live > 0) {
    make_order(sched.order, n, opt.order, mix64(block_key ^ mix64(++phase)));
    for (const std::uint32_t t : sched.order) {
      if (sched.fibers[t].state != FiberState::kRunnable) continue;
      switch_to_fiber(t);
      if (sched.fibers[t].state == FiberState::kDone) --live;
    }
    for (Fiber& f : sched.fibers)  // every live thread waits at the barrier: it opens
      if (f.state == FiberState::kWaiting) f.state = FiberState::kRunnable;
  }
  tls.in_block = false;
}

dim3 unflatten(std::uint64_t i, dim3 shape) {
  return dim3(static_cast<unsigned>(i % shape.x), static_cast<unsigned>(i / shape.x % shape.y),
              static_cast<unsigned>(i / (std::uint64_t{shape.x} * shape.y)));
}

// Launches in flight in this process (one at most: they share the __shared__ storage).
std::atomic<int> launches_running{0};
std::atomic<std::uint64_t> launch_count{0};

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
  const std::uint64_t per_block = std::uint64_t{block.x} * block.y * block.z;
  const std::uint64_t blocks = std::uint64_t{grid.x} * grid.y * grid.z;
  if (per_block == 0 || blocks == 0) return;
  if (tls.in_block) {
    std::fprintf(stderr, "CUDA emulation: a launch from inside a kernel\n");
    std::abort();
  }
  if (launches_running.fetch_add(1) != 0) {
    std::fprintf(stderr, "CUDA emulation: a launch while another runs (emulated launches share the __shared__ "
                         "storage: one host thread at a time)\n");
    std::abort();
  }
  const Options opt = current_options();
  const std::uint64_t key = mix64(opt.seed ^ mix64(launch_count.fetch_add(1) + 1));
  tls.block_dim = block;
  tls.grid_dim = grid;
  if (independent) {
    // one order over every thread of the grid: no thread may read what another writes
    if (opt.poison_shared) poison_shared();
    std::vector<std::uint32_t> order;
    const std::uint64_t threads = blocks * per_block;
    if (threads > 0xffffffffULL) {
      std::fprintf(stderr, "CUDA emulation: more than 2^32 threads in one launch\n");
      std::abort();
    }
    make_order(order, static_cast<std::size_t>(threads), opt.order, key);
    for (const std::uint32_t g : order) {
      tls.block_idx = unflatten(g / per_block, grid);
      tls.thread_idx = unflatten(g % per_block, block);
      body();
    }
  } else {
    std::vector<std::uint32_t> block_order;
    make_order(block_order, static_cast<std::size_t>(blocks), opt.order, mix64(key ^ 1));
    for (const std::uint32_t b : block_order) {
      if (opt.poison_shared) poison_shared();
      run_block_fibers(grid, block, unflatten(b, grid), body, opt, mix64(key ^ mix64(std::uint64_t{b} + 2)));
    }
  }
  launches_running.fetch_sub(1);
}

Options options() { return current_options(); }

ScopedOptions::ScopedOptions(const Options& o) : saved_(current_options()), saved_launches_(launch_count.load()) {
  current_options() = o;
  launch_count = 0;
}
ScopedOptions::~ScopedOptions() {
  current_options() = saved_;
  launch_count = saved_launches_;
}

}  // namespace glint::cuda_emu
