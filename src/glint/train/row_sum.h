#pragma once
#include <cmath>
// Sums of one image row in double, in a fixed order whatever the thread count. One running
// sum is a chain of dependent additions, four cycles each; eight interleaved sums, combined
// pairwise at the end, keep the order fixed and the adder busy (both of the loss's row
// sums use them).

namespace glint {

// sum over j < n of f(j), f returning double
template <class F>
inline double row_sum(long n, F&& f) {
  double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  long j = 0;
  for (; j + 8 <= n; j += 8)
    for (int k = 0; k < 8; ++k) s[k] += f(j + k);
  for (int k = 0; j < n; ++j, ++k) s[k] += f(j);
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

// sum over j < n of |a[j] - b[j]|: the L1 loss's row sums, the same bits whether the loss
// takes them in a pass of its own or folded into SSIM's gradient (SsimL1Fold)
template <class T>
inline double abs_diff_row_sum(const T* a, const T* b, long n) {
  return row_sum(n, [a, b](long j) { return std::fabs(static_cast<double>(a[j] - b[j])); });
}

}  // namespace glint
