#pragma once
// Row edits of the device model, shared by ADC and MCMC: a new set of rows is described
// as a "grown" list (the old rows, then appended copies, each naming its source row) that
// an optional compaction map picks from; gather_rows_kernel builds one array of the new set
// from the old one. Appended rows ("fresh", grown index >= first_fresh) get zero moments
// and statistics, as SplatSet::append_copies gives them.
#include <cstddef>
#include <cstdint>

#include "glint/backend/cuda/cuda_api.h"
#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/device_span.h"
#include "glint/backend/cuda/indexing.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

struct RowPlan {
  DeviceSpan<const std::uint32_t> out_to_grown;  // new row -> grown row; empty: the identity
  DeviceSpan<const std::uint32_t> grown_source;  // grown row -> old row it copies
  std::uint32_t first_fresh;                     // grown rows from here on are appended copies
  std::uint32_t pad = 0;
};
static_assert(sizeof(RowPlan) == 40 && offsetof(RowPlan, grown_source) == 16 && offsetof(RowPlan, first_fresh) == 32);

GLINT_HD inline std::uint32_t grown_row(const RowPlan& p, std::uint32_t out_row) {
  return p.out_to_grown.size > 0 ? p.out_to_grown[out_row] : out_row;
}

// out = the new set's array (width floats a row) from `in`, the old one. zero_fresh: a
// moment or statistic, zero on appended rows; else a parameter, copied from the source.
GLINT_KERNEL void gather_rows_kernel(DeviceSpan<const float> in, DeviceSpan<float> out, std::uint32_t width,
                                     RowPlan plan, std::uint32_t zero_fresh) {
  const std::uint64_t j = thread_index();
  if (j >= out.size) return;
  const std::uint32_t g = grown_row(plan, static_cast<std::uint32_t>(j / width));  // rows <= kMaxRows
  if (zero_fresh != 0 && g >= plan.first_fresh) {
    out[j] = 0.f;
    return;
  }
  out[j] = in[row_element(plan.grown_source[g], width, static_cast<std::uint32_t>(j % width))];
}

// rows[pos[i]] = i where flag[i] (the rows a flag marks, in order: pos is flag's
// exclusive prefix sum).
GLINT_KERNEL void list_flagged_kernel(DeviceSpan<const std::uint32_t> flag, DeviceSpan<const std::uint32_t> pos,
                                      DeviceSpan<std::uint32_t> rows) {
  const std::uint64_t i = thread_index();
  if (i >= flag.size || flag[i] == 0) return;
  rows[pos[i]] = static_cast<std::uint32_t>(i);  // rows <= kMaxRows
}

// source[g] for the old rows then one appended copy a sample: g < n the row itself, else
// samples[g - n].
GLINT_KERNEL void append_rows_kernel(DeviceSpan<const std::uint32_t> samples, std::uint32_t n,
                                     DeviceSpan<std::uint32_t> source) {
  const std::uint64_t g = thread_index();
  if (g >= source.size) return;
  source[g] = g < n ? static_cast<std::uint32_t>(g) : samples[g - n];  // rows <= kMaxRows
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda
