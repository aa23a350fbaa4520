#include "glint/backend/cuda/emulation.h"

#include <thread>
#include <vector>

namespace glint::cuda_emu {

void run_grid(dim3 grid, dim3 block, const std::function<void()>& body) {
  const unsigned per_block = block.x * block.y * block.z;
  if (per_block == 0) return;
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        std::barrier<> bar(static_cast<std::ptrdiff_t>(per_block));
        std::vector<std::thread> threads;
        threads.reserve(per_block);
        for (unsigned t = 0; t < per_block; ++t)
          threads.emplace_back([&, t] {
            tls.thread_idx = dim3(t % block.x, t / block.x % block.y, t / (block.x * block.y));
            tls.block_idx = dim3(bx, by, bz);
            tls.block_dim = block;
            tls.grid_dim = grid;
            tls.block_barrier = &bar;
            body();
            bar.arrive_and_drop();
          });
        for (std::thread& th : threads) th.join();
      }
}

}  // namespace glint::cuda_emu
