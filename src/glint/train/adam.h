#pragma once
// Adam over named parameter groups of row-structured float arrays (one row a splat).
//
// Moments live here, one m and one v vector a group laid out like the group's parameters,
// so whoever adds, removes or reorders rows (densification) edits them row by row too.
//
// Visibility ("selective Adam", as gsplat's SelectiveAdam): when a row mask is given,
// rows with mask 0 are skipped entirely — parameters, m and v are left bit-for-bit as they
// were. Bias correction uses one step count a group, advanced on every step() whatever the
// mask (torch / gsplat behaviour), not a per-row count: an unseen row resumes with the
// group's current correction, which is ~1 after the first few thousand steps anyway.
//
// The update is torch.optim.Adam's (single-tensor form), evaluated in float:
//   m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2
//   p -= (lr / (1 - b1^t)) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
// Every element is independent, so the result is bit-identical for any thread count.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace glint {

struct AdamOptions {
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float eps = 1e-15f;
  bool operator==(const AdamOptions&) const = default;
};

// One group's view of this step: where its parameters and gradients are (rows * width
// floats each) and its learning rate, which callers may change every step (schedules).
struct AdamParamGroup {
  std::string name;
  float* params = nullptr;
  const float* grads = nullptr;
  std::size_t rows = 0;
  int width = 0;
  float lr = 0;
  // Columns [0, used_width) of each row are updated, the rest left as they are (-1: all).
  // Only for columns whose gradients and both moments are all zero, where the update
  // would change nothing (p -= 0): the SH coefficients above the degree in use, which
  // are 45 of a splat's 59 values at degree 0. The step count advances either way, so the
  // result is bit-identical to updating every column.
  int used_width = -1;
};

// The state Adam keeps for one group.
struct AdamMoments {
  std::string name;
  int width = 0;
  std::uint64_t step = 0;  // steps taken by this group (bias correction)
  std::vector<float> m, v;  // rows * width each
  std::size_t rows() const { return width > 0 ? m.size() / static_cast<std::size_t>(width) : 0; }
  bool operator==(const AdamMoments&) const = default;
};

class Adam {
 public:
  explicit Adam(const AdamOptions& options = {}) : options_(options) {}

  // Registers a group with `rows` zeroed rows; groups are stepped in registration order.
  void add_group(std::string name, int width, std::size_t rows);

  // One update. groups[i] must be the i-th registered group (same name, width and row
  // count as its moments) — anything else is a std::invalid_argument, since it means the
  // caller's arrays and the moments have drifted apart. visible: one byte a row shared by
  // all groups (nullptr = all rows), see the file comment.
  // Returns the index of the first group left with a non-finite value among those the
  // step updated, or -1: the caller's finiteness check then need not read them again.
  int step(std::span<const AdamParamGroup> groups, const std::uint8_t* visible = nullptr);

  std::vector<AdamMoments>& groups() { return groups_; }
  const std::vector<AdamMoments>& groups() const { return groups_; }
  AdamMoments& group(std::string_view name);  // std::invalid_argument when absent
  const AdamMoments& group(std::string_view name) const;

  const AdamOptions& options() const { return options_; }
  void set_options(const AdamOptions& o) { options_ = o; }

  bool operator==(const Adam&) const = default;

 private:
  AdamOptions options_;
  std::vector<AdamMoments> groups_;
};

}  // namespace glint
