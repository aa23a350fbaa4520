// Stage depth_sort: the visible splats by depth key, stable (ties stay in splat order).
#include "glint/backend/cpu/radix_sort.h"
#include "glint/backend/cpu/stages/stages.h"

namespace glint::cpu::stage {

void depth_sort(CpuForwardState& st, int threads) { radix_sort_pairs(st.sorted, st.sorted2, st.hist, st.key_range, threads); }

}  // namespace glint::cpu::stage
