#pragma once
// The trainable state of a scene as one object: the model, Adam's moments of each parameter
// array and the densification statistics, all with one row a splat. Rows are only ever
// removed, appended or copied through the methods here, which visit every per-splat array
// through arrays(), so no array can be forgotten when splats come and go.
//
// New rows (append_copies) copy their parent's parameters and start with zero moments and
// zero statistics — what 3DGS does (cat_tensors_to_optimizer appends zeros to exp_avg and
// exp_avg_sq). Adam's per-group step counts are untouched by row edits, as in 3DGS.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "glint/core/gaussians.h"
#include "glint/train/adam.h"

namespace glint {

// The parameter groups, in Adam's registration order.
enum ParamGroup : int { kMeans = 0, kLogScales, kQuats, kOpacity, kShDc, kShRest, kNumParamGroups };
inline constexpr std::array<const char*, kNumParamGroups> kParamGroupNames = {
    "means", "log_scales", "quats", "opacity_logits", "sh_dc", "sh_rest"};
inline constexpr std::array<int, kNumParamGroups> kParamGroupWidths = {3, 3, 4, 1, 3, kShRestCoeffs * 3};

// One per-splat array: `width` floats a splat.
struct SplatArray {
  std::string name;  // "means", "adam_m.means", "adam_v.means", ..., "grad_accum", ...
  std::vector<float>* data;
  int width;
};

// Per-group gradient pointers (same layout as the parameters) and learning rates.
using GroupGrads = std::array<const float*, kNumParamGroups>;
using GroupRates = std::array<float, kNumParamGroups>;

struct SplatSet {
  GaussianModel model;
  Adam adam;  // groups in ParamGroup order, rows = splats
  // Densification statistics since the last densification (densify.h).
  std::vector<float> grad_accum;  // sum of view-space positional gradient norms
  std::vector<float> grad_count;  // views in which the splat was visible (float like 3DGS's
                                  // denom; exact far beyond any step count)
  std::vector<float> max_radii;   // largest screen radius seen, pixels

  SplatSet() : SplatSet(GaussianModel{}) {}
  explicit SplatSet(GaussianModel m, const AdamOptions& options = {});

  std::size_t size() const { return model.size(); }
  std::vector<float>& param(int group);
  const std::vector<float>& param(int group) const;

  // Every per-splat array: 6 parameter arrays, their 6 m and 6 v arrays, 3 statistics.
  std::vector<SplatArray> arrays();

  // Throws std::logic_error naming the first array whose size is not size() * width, or
  // an Adam group that is missing, renamed or reordered.
  void check_consistent() const;

  // Removes the rows whose mask byte is non-zero (mask has size() bytes); survivors keep
  // their order.
  void remove(std::span<const std::uint8_t> mask);
  // Appends one row a parent index (parents may repeat), copying the parent's parameters;
  // moments and statistics of the new rows are zero. Returns the index of the first new row.
  std::size_t append_copies(std::span<const std::uint32_t> parents);
  // Zeroes both Adam moments of the given rows in every group.
  void zero_moments(std::span<const std::uint32_t> rows);
  // Zeroes both Adam moments of every row of one group.
  void zero_group_moments(int group);
  // Zeroes the densification statistics of every row.
  void reset_stats();

  // Adam's view of this step for the current arrays (pointers are valid until the next row
  // edit) and the step itself. visible: one byte a splat or nullptr (adam.h). sh_degree:
  // the highest SH degree any step has rendered with so far; the coefficients above it have
  // had zero gradients and so have zero moments, and Adam skips them (used_width).
  std::array<AdamParamGroup, kNumParamGroups> param_groups(const GroupGrads& grads, const GroupRates& lrs,
                                                           int sh_degree = kMaxShDegree);
  // Returns Adam::step's answer: the first ParamGroup it left with a non-finite value, or -1.
  int adam_step(const GroupGrads& grads, const GroupRates& lrs, const std::uint8_t* visible = nullptr,
                int sh_degree = kMaxShDegree);
};

// Gradient pointers from a model-shaped gradient container (e.g. the rasterizer's).
GroupGrads grads_of(const GaussianModel& g);

}  // namespace glint
