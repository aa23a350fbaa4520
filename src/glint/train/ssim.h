#pragma once
// SSIM as 3DGS computes it for its loss: per channel, an 11x11 Gaussian window (sigma 1.5)
// centred on each pixel, zero padding at the borders ('same'-size conv2d with padding 5,
// the window not renormalised there), C1 = 0.01^2, C2 = 0.03^2 for values in [0, 1]; the
// result is the mean of the SSIM map over all pixels and channels.
#include <cstddef>
#include <vector>

#include "glint/core/image.h"
#include "glint/train/ssim_math.h"

namespace glint {

// kSsimWindow, kSsimSigma, kSsimC1, kSsimC2 and the per-value math: ssim_math.h.

// The blurred moments of one image b that SSIM against b needs: the window means of b and
// of b^2 at every value. Training compares against the same images step after step; with
// these kept, a step blurs three planes instead of five.
template <class T>
struct SsimTargetStats {
  int w = 0, h = 0, c = 0;
  std::vector<T> mu, e2;  // [h * w * c] each once filled
  bool filled_for(int w_, int h_, int c_) const { return !mu.empty() && w == w_ && h == h_ && c == c_; }
  std::size_t bytes() const { return (mu.size() + e2.size()) * sizeof(T); }
};

// Fills stats with the blurred moments of image b (width w, height h, c channels): the
// same bits as ssim(a, b, ..., &stats) would leave there, from two blurs instead of five.
template <class T>
void fill_ssim_target_stats(const T* b, int w, int h, int c, SsimTargetStats<T>& stats);

// Which build of the float blur runs: by default (kAuto) the fastest the CPU has; tests
// name one (a build the CPU lacks gives the next one down). kFma and kAvx512 give the same
// bits; kPlain, for CPUs without FMA, rounds differently.
enum class SsimBlur { kAuto, kPlain, kFma, kAvx512 };
void set_ssim_blur(SsimBlur blur);
SsimBlur active_ssim_blur();

// The L1 term of the photometric loss, folded into the last pass of ssim()'s gradient
// (photometric_loss): grad_a then receives l1_scale sign(a - b) - lambda d(mean SSIM)/d(a),
// and l1_rows[y] the sum of |a - b| over row y in double (row_sum's order). The same values
// as a pass of its own after ssim(), without reading and writing the images again.
template <class T>
struct SsimL1Fold {
  T l1_scale, lambda;
  double* l1_rows;  // [h]
};

// Per-pixel weights of the mean (masks: train/loss.h): w [h * w] in [0, 1], and their sum.
// The mean becomes sum_p w_p SSIM_pc / (c sum w), and grad_a receives its derivative times
// w_p: for a = w x (the masked loss passes images multiplied by their weights), the
// derivative with respect to x. A pixel of weight 0 adds nothing to either. With a zero
// sum the mean is 1 and the gradient 0.
template <class T>
struct SsimWeights {
  const T* w;
  double sum;
};

// Mean SSIM of interleaved images a and b (width w, height h, c channels). When grad_a is
// given (same layout as a) it receives d(mean SSIM)/d(a). The mean is accumulated in double
// in a fixed order, so the result does not depend on the thread count.
// stats, when given: filled for (w, h, c), they must be b's, and b's blur is read from them;
// otherwise they are filled from this call. Either way the result has the same bits.
// Instantiated for float (training) and double (evaluation, test references).
// fold: only with grad_a (with weights, its terms are weighted as SSIM's are).
template <class T>
double ssim(const T* a, const T* b, int w, int h, int c, T* grad_a = nullptr, SsimTargetStats<T>* stats = nullptr,
            const SsimL1Fold<T>* fold = nullptr, const SsimWeights<T>* weights = nullptr);

// The same on ImageF; the images must have equal sizes (glint::Error otherwise). grad_a is
// resized to match a.
double ssim(const ImageF& a, const ImageF& b, ImageF* grad_a = nullptr, SsimTargetStats<float>* stats = nullptr,
            const SsimL1Fold<float>* fold = nullptr, const SsimWeights<float>* weights = nullptr);

}  // namespace glint
