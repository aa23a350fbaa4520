#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "glint/core/error.h"
#include "glint/train/ssim.h"

using namespace glint;

namespace {

// Direct definition: for every pixel and channel, explicit sums over the 11x11 window
// (2D Gaussian, taps outside the image count as zero), all in double.
double ssim_reference(const std::vector<double>& a, const std::vector<double>& b, int w, int h, int c) {
  double g1[11], sum = 0;
  for (int i = 0; i < 11; ++i) {
    g1[i] = std::exp(-(i - 5.0) * (i - 5.0) / (2 * 1.5 * 1.5));
    sum += g1[i];
  }
  for (double& v : g1) v /= sum;
  const double C1 = 1e-4, C2 = 9e-4;
  double total = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int ch = 0; ch < c; ++ch) {
        double m1 = 0, m2 = 0, e11 = 0, e22 = 0, e12 = 0;
        for (int dy = -5; dy <= 5; ++dy)
          for (int dx = -5; dx <= 5; ++dx) {
            int xx = x + dx, yy = y + dy;
            if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
            double wt = g1[dx + 5] * g1[dy + 5];
            double va = a[(yy * w + xx) * c + ch], vb = b[(yy * w + xx) * c + ch];
            m1 += wt * va;
            m2 += wt * vb;
            e11 += wt * va * va;
            e22 += wt * vb * vb;
            e12 += wt * va * vb;
          }
        double s11 = e11 - m1 * m1, s22 = e22 - m2 * m2, s12 = e12 - m1 * m2;
        total += (2 * m1 * m2 + C1) * (2 * s12 + C2) / ((m1 * m1 + m2 * m2 + C1) * (s11 + s22 + C2));
      }
  return total / (static_cast<double>(w) * h * c);
}

struct Pair {
  int w, h, c;
  std::vector<double> a, b;
};

// b is a noisy copy of a so the SSIM is far from both 0 and 1.
Pair random_pair(int w, int h, int c, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(0, 1), n(-0.15, 0.15);
  Pair p{w, h, c, std::vector<double>(w * h * c), std::vector<double>(w * h * c)};
  for (std::size_t i = 0; i < p.a.size(); ++i) {
    p.a[i] = u(gen);
    p.b[i] = std::min(1.0, std::max(0.0, p.a[i] + n(gen)));
  }
  return p;
}

}  // namespace

TEST(TrainSsim, MatchesDirectWindowSums) {
  // heights with and without a remainder after blocks of four output rows, and below four
  for (auto [w, h, c] : {std::tuple{13, 9, 3}, std::tuple{7, 15, 1}, std::tuple{23, 17, 3}, std::tuple{3, 5, 2},
                         std::tuple{11, 4, 3}, std::tuple{6, 2, 3}}) {
    Pair p = random_pair(w, h, c, 1u + w);
    double ref = ssim_reference(p.a, p.b, w, h, c);
    double d = ssim<double>(p.a.data(), p.b.data(), w, h, c);
    EXPECT_NEAR(d, ref, 1e-12) << w << "x" << h << "x" << c;
    std::vector<float> fa(p.a.begin(), p.a.end()), fb(p.b.begin(), p.b.end());
    double f = ssim<float>(fa.data(), fb.data(), w, h, c);
    EXPECT_NEAR(f, ref, 2e-5) << w << "x" << h << "x" << c;
  }
}

TEST(TrainSsim, IdenticalImagesGiveOne) {
  Pair p = random_pair(12, 11, 3, 7);
  EXPECT_NEAR(ssim<double>(p.a.data(), p.a.data(), 12, 11, 3), 1.0, 1e-12);
}

TEST(TrainSsim, GradientMatchesFiniteDifferences) {
  const int w = 9, h = 7, c = 2;
  Pair p = random_pair(w, h, c, 42);
  std::vector<double> grad(p.a.size());
  ssim<double>(p.a.data(), p.b.data(), w, h, c, grad.data());
  std::vector<float> fa(p.a.begin(), p.a.end()), fb(p.b.begin(), p.b.end()), fgrad(p.a.size());
  ssim<float>(fa.data(), fb.data(), w, h, c, fgrad.data());
  const double eps = 1e-6;
  double max_g = 0;
  for (double g : grad) max_g = std::max(max_g, std::fabs(g));
  for (std::size_t i = 0; i < p.a.size(); ++i) {
    std::vector<double> ap = p.a, am = p.a;
    ap[i] += eps;
    am[i] -= eps;
    double fd = (ssim_reference(ap, p.b, w, h, c) - ssim_reference(am, p.b, w, h, c)) / (2 * eps);
    EXPECT_NEAR(grad[i], fd, 1e-8 + 1e-6 * std::fabs(fd)) << "i=" << i;
    EXPECT_NEAR(fgrad[i], fd, 2e-3 * max_g) << "float, i=" << i;
  }
}

TEST(TrainSsim, ImageOverloadChecksSizes) {
  ImageF a(4, 4, 3, 0.5f), b(4, 5, 3, 0.5f);
  EXPECT_THROW(ssim(a, b), Error);
  ImageF g;
  EXPECT_NEAR(ssim(a, a, &g), 1.0, 1e-6);
  EXPECT_EQ(g.data.size(), a.data.size());
}

#include <omp.h>

TEST(TrainSsim, ThreadCountDoesNotChangeResult) {
  // Large enough for the threaded path. 118 rows: one band blurs rows 36-39 as one block of
  // four output rows, where three bands (0-38, 39-77, 78-117) blur 36-38 one row at a time
  // and 39 in the next band's first block; the bits must not depend on that.
  const int w = 160, h = 118, c = 3;
  Pair p = random_pair(w, h, c, 11);
  std::vector<float> fa(p.a.begin(), p.a.end()), fb(p.b.begin(), p.b.end());
  std::vector<float> g1(fa.size()), g3(fa.size());
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  double v1 = ssim<float>(fa.data(), fb.data(), w, h, c, g1.data());
  omp_set_num_threads(3);
  double v3 = ssim<float>(fa.data(), fb.data(), w, h, c, g3.data());
  omp_set_num_threads(saved);
  EXPECT_EQ(v1, v3);
  EXPECT_EQ(std::memcmp(g1.data(), g3.data(), g1.size() * sizeof(float)), 0);
}

TEST(TrainSsim, KeptTargetStatsGiveTheSameBits) {
  // Filled by the first call, read by the next: value and gradient bit for bit as without.
  const int w = 61, h = 47, c = 3;
  Pair p = random_pair(w, h, c, 5);
  Pair q = random_pair(w, h, c, 6);  // another render against the same target
  std::vector<float> fa(p.a.begin(), p.a.end()), fb(p.b.begin(), p.b.end()), fq(q.a.begin(), q.a.end());
  std::vector<float> g0(fa.size()), g1(fa.size()), g2(fa.size()), gq0(fa.size()), gq1(fa.size());
  SsimTargetStats<float> st;
  const double v0 = ssim<float>(fa.data(), fb.data(), w, h, c, g0.data());
  const double v1 = ssim<float>(fa.data(), fb.data(), w, h, c, g1.data(), &st);  // fills
  ASSERT_TRUE(st.filled_for(w, h, c));
  EXPECT_EQ(st.bytes(), 2 * fa.size() * sizeof(float));
  const double v2 = ssim<float>(fa.data(), fb.data(), w, h, c, g2.data(), &st);  // reads
  const double vq0 = ssim<float>(fq.data(), fb.data(), w, h, c, gq0.data());
  const double vq1 = ssim<float>(fq.data(), fb.data(), w, h, c, gq1.data(), &st);
  EXPECT_EQ(v0, v1);
  EXPECT_EQ(v0, v2);
  EXPECT_EQ(vq0, vq1);
  EXPECT_NE(v0, vq0);
  EXPECT_EQ(std::memcmp(g0.data(), g1.data(), g0.size() * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(g0.data(), g2.data(), g0.size() * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(gq0.data(), gq1.data(), gq0.size() * sizeof(float)), 0);
  // without a gradient too, and stats of another size are refilled, not misread
  EXPECT_EQ(ssim<float>(fq.data(), fb.data(), w, h, c, nullptr, &st), vq0);
  const int w2 = 30;
  std::vector<float> sa(fa.begin(), fa.begin() + w2 * h * c), sb(fb.begin(), fb.begin() + w2 * h * c);
  const double s0 = ssim<float>(sa.data(), sb.data(), w2, h, c);
  EXPECT_EQ(ssim<float>(sa.data(), sb.data(), w2, h, c, nullptr, &st), s0);
  EXPECT_TRUE(st.filled_for(w2, h, c));
}

TEST(TrainSsim, TargetStatsFilledAheadGiveTheSameBits) {
  // Filled before any comparison (the trainer does this for every view at its start), on
  // any thread count: SSIM and its gradient read from them have the bits of SSIM with all
  // five planes blurred in the call (no stats), and 1 and 3 threads fill the same stats.
  const int w = 53, h = 41, c = 3;
  Pair p = random_pair(w, h, c, 8);
  std::vector<float> fa(p.a.begin(), p.a.end()), fb(p.b.begin(), p.b.end());
  std::vector<float> g0(fa.size()), g1(fa.size()), g3(fa.size());
  SsimTargetStats<float> ahead1, ahead3;
  const double v0 = ssim<float>(fa.data(), fb.data(), w, h, c, g0.data());
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  fill_ssim_target_stats<float>(fb.data(), w, h, c, ahead1);
  omp_set_num_threads(3);
  fill_ssim_target_stats<float>(fb.data(), w, h, c, ahead3);
  omp_set_num_threads(saved);
  ASSERT_TRUE(ahead1.filled_for(w, h, c));
  ASSERT_EQ(ahead1.mu.size(), fb.size());
  EXPECT_EQ(std::memcmp(ahead1.mu.data(), ahead3.mu.data(), ahead1.mu.size() * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(ahead1.e2.data(), ahead3.e2.data(), ahead1.e2.size() * sizeof(float)), 0);
  EXPECT_EQ(ssim<float>(fa.data(), fb.data(), w, h, c, g1.data(), &ahead1), v0);
  EXPECT_EQ(ssim<float>(fa.data(), fb.data(), w, h, c, g3.data(), &ahead3), v0);
  EXPECT_EQ(std::memcmp(g0.data(), g1.data(), g0.size() * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(g0.data(), g3.data(), g0.size() * sizeof(float)), 0);
  // the blurred mean of a constant image inside the window's reach is the constant
  std::vector<float> flat(fb.size(), 0.5f);
  SsimTargetStats<float> fs;
  fill_ssim_target_stats<float>(flat.data(), w, h, c, fs);
  const std::size_t centre = (static_cast<std::size_t>(h / 2) * w + w / 2) * c;
  EXPECT_NEAR(fs.mu[centre], 0.5f, 1e-6f);
  EXPECT_NEAR(fs.e2[centre], 0.25f, 1e-6f);
}

// The float blur's builds: AVX-512 and AVX2+FMA give the same bits, the unfused build (CPUs
// without FMA) the same value within float rounding. Row lengths that are not a multiple
// of 16 lanes exercise the loops' tails.
TEST(TrainSsim, BlurBuildsAgree) {
  const int w = 157, h = 61, c = 3;
  Pair p = random_pair(w, h, c, 21);
  std::vector<float> fa(p.a.begin(), p.a.end()), fb(p.b.begin(), p.b.end());
  struct Run {
    double v;
    std::vector<float> g;
  };
  const auto run = [&](SsimBlur blur) {
    set_ssim_blur(blur);
    Run r{0, std::vector<float>(fa.size())};
    r.v = ssim<float>(fa.data(), fb.data(), w, h, c, r.g.data());
    return r;
  };
  set_ssim_blur(SsimBlur::kAuto);
  const SsimBlur best = active_ssim_blur();
  const Run plain = run(SsimBlur::kPlain), fma = run(SsimBlur::kFma), avx512 = run(SsimBlur::kAvx512);
  set_ssim_blur(SsimBlur::kAuto);
  if (best == SsimBlur::kPlain) GTEST_SKIP() << "this CPU has no AVX2+FMA: only the unfused blur runs here";
  if (best != SsimBlur::kAvx512) std::printf("[ note ] this CPU has no AVX-512: its blur build is not compared\n");
  EXPECT_EQ(fma.v, avx512.v);
  EXPECT_EQ(std::memcmp(fma.g.data(), avx512.g.data(), fma.g.size() * sizeof(float)), 0);
  EXPECT_NEAR(plain.v, fma.v, 1e-6);
  double gmax = 0, dmax = 0;
  for (std::size_t i = 0; i < fma.g.size(); ++i) {
    gmax = std::max(gmax, double(std::fabs(fma.g[i])));
    dmax = std::max(dmax, double(std::fabs(fma.g[i] - plain.g[i])));
  }
  EXPECT_LT(dmax, 1e-4 * gmax);
  EXPECT_GT(dmax, 0.0);  // the fused build is in use: it rounds differently
}
