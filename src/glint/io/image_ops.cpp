#include "glint/io/image_ops.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace glint {

namespace {

// For one axis: the source pixels each output pixel overlaps, with their overlap weights.
struct Span {
  int first = 0;
  std::vector<float> weights;
};

std::vector<Span> area_spans(int src, int dst) {
  std::vector<Span> spans(static_cast<std::size_t>(dst));
  double scale = static_cast<double>(src) / dst;
  for (int o = 0; o < dst; ++o) {
    double a = o * scale, b = (o + 1) * scale;
    int first = static_cast<int>(std::floor(a));
    int last = std::min(src - 1, static_cast<int>(std::ceil(b)) - 1);
    Span& s = spans[static_cast<std::size_t>(o)];
    s.first = first;
    for (int i = first; i <= last; ++i) {
      double w = std::min(b, i + 1.0) - std::max(a, static_cast<double>(i));
      s.weights.push_back(static_cast<float>(std::max(0.0, w) / scale));
    }
  }
  return spans;
}

}  // namespace

Image8 resize_area(const Image8& src, int width, int height) {
  if (width == src.width && height == src.height) return src;
  const int c = src.channels;
  std::vector<Span> xs = area_spans(src.width, width), ys = area_spans(src.height, height);
  Image8 out;
  out.width = width;
  out.height = height;
  out.channels = c;
  out.data.resize(static_cast<std::size_t>(width) * height * c);
#pragma omp parallel for schedule(static)
  for (int oy = 0; oy < height; ++oy) {
    std::vector<float> row(static_cast<std::size_t>(src.width) * c);
    const Span& sy = ys[static_cast<std::size_t>(oy)];
    std::fill(row.begin(), row.end(), 0.f);
    for (std::size_t k = 0; k < sy.weights.size(); ++k) {
      const std::uint8_t* in = src.row(sy.first + static_cast<int>(k));
      float w = sy.weights[k];
      for (std::size_t i = 0; i < row.size(); ++i) row[i] += w * in[i];
    }
    std::uint8_t* dst = out.row(oy);
    for (int ox = 0; ox < width; ++ox) {
      const Span& sx = xs[static_cast<std::size_t>(ox)];
      for (int ch = 0; ch < c; ++ch) {
        float acc = 0.f;
        for (std::size_t k = 0; k < sx.weights.size(); ++k)
          acc += sx.weights[k] * row[static_cast<std::size_t>(sx.first + static_cast<int>(k)) * c + ch];
        dst[ox * c + ch] = static_cast<std::uint8_t>(std::clamp(std::lround(acc), 0L, 255L));
      }
    }
  }
  return out;
}

Image8 to_rgb(const Image8& src, const std::array<float, 3>& background) {
  if (src.channels == 3) return src;
  return to_image8(composite_float(src, background));
}

Image8 to_rgba(const Image8& src) {
  if (src.channels == 4) return src;
  Image8 out;
  out.width = src.width;
  out.height = src.height;
  out.channels = 4;
  const std::size_t n = static_cast<std::size_t>(src.width) * src.height;
  out.data.resize(n * 4);
  for (std::size_t p = 0; p < n; ++p) {
    const std::uint8_t* in = &src.data[p * src.channels];
    bool grey = src.channels <= 2;
    for (int c = 0; c < 3; ++c) out.data[p * 4 + c] = in[grey ? 0 : c];
    out.data[p * 4 + 3] = (src.channels == 2) ? in[1] : 255;
  }
  return out;
}

Image8 drop_alpha(const Image8& src) {
  if (src.channels == 3) return src;
  Image8 out;
  out.width = src.width;
  out.height = src.height;
  out.channels = 3;
  const std::size_t n = static_cast<std::size_t>(src.width) * src.height;
  out.data.resize(n * 3);
  const bool grey = src.channels <= 2;
  for (std::size_t p = 0; p < n; ++p)
    for (int c = 0; c < 3; ++c) out.data[p * 3 + c] = src.data[p * src.channels + (grey ? 0 : c)];
  return out;
}

Image8 channel_plane(const Image8& src, int c) {
  Image8 out;
  out.width = src.width;
  out.height = src.height;
  out.channels = 1;
  const std::size_t n = static_cast<std::size_t>(src.width) * src.height;
  out.data.resize(n);
  for (std::size_t p = 0; p < n; ++p) out.data[p] = src.data[p * src.channels + c];
  return out;
}

Image8 mask_plane(const Image8& src) {
  if (src.channels <= 2) return src.channels == 1 ? src : channel_plane(src, 0);
  Image8 out = channel_plane(src, 0);
  const std::size_t n = out.data.size();
  for (std::size_t p = 0; p < n; ++p)
    out.data[p] = std::max({src.data[p * src.channels], src.data[p * src.channels + 1], src.data[p * src.channels + 2]});
  return out;
}

namespace {
// The opaque and RGBA rows of composite_float_into, built for AVX-512, AVX2 and baseline
// x86-64 (this file has no FMA contraction, so all give the same bits). Training converts a
// target every step, and a per-pixel loop over any channel count is several times slower
// than these rows; threads are counted from output values, so small RGB images use them too.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GLINT_ROW_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define GLINT_ROW_CLONES
#endif
GLINT_ROW_CLONES void opaque_row(const std::uint8_t* __restrict in, std::size_t n, float* __restrict o) {
  for (std::size_t j = 0; j < n; ++j) o[j] = in[j] * (1.f / 255.f);
}
GLINT_ROW_CLONES void rgba_row(const std::uint8_t* __restrict in, std::size_t w, const float* __restrict bg,
                               float* __restrict o) {
  const float b0 = bg[0], b1 = bg[1], b2 = bg[2];
  for (std::size_t x = 0; x < w; ++x) {
    const float a = in[4 * x + 3] * (1.f / 255.f), na = 1.f - a;
    o[3 * x] = in[4 * x] * (1.f / 255.f) * a + b0 * na;
    o[3 * x + 1] = in[4 * x + 1] * (1.f / 255.f) * a + b1 * na;
    o[3 * x + 2] = in[4 * x + 2] * (1.f / 255.f) * a + b2 * na;
  }
}
}  // namespace

void composite_float_into(const Image8& src, const std::array<float, 3>& background, ImageF& out) {
  if (out.width != src.width || out.height != src.height || out.channels != 3 ||
      out.data.size() != static_cast<std::size_t>(src.width) * src.height * 3)
    out = ImageF(src.width, src.height, 3);
  const int ch = src.channels;
  const bool alpha = ch == 4 || ch == 2;
  const bool grey = ch <= 2;
  const std::size_t w = static_cast<std::size_t>(src.width);
  const float bg[3] = {background[0], background[1], background[2]};
  // per value cheap: threads from 64k output values, as the training loss does
#pragma omp parallel for schedule(static) if (3 * w * static_cast<std::size_t>(src.height) >= (1u << 16))
  for (int y = 0; y < src.height; ++y) {
    const std::uint8_t* in = src.data.data() + static_cast<std::size_t>(y) * w * static_cast<std::size_t>(ch);
    float* o = out.data.data() + static_cast<std::size_t>(y) * w * 3;
    if (ch == 3) {  // opaque: a = 1, and v * 1 + bg * 0 is v
      opaque_row(in, 3 * w, o);
      continue;
    }
    if (ch == 4) {
      rgba_row(in, w, bg, o);
      continue;
    }
    for (std::size_t x = 0; x < w; ++x) {
      const std::uint8_t* px = in + x * static_cast<std::size_t>(ch);
      const float a = alpha ? px[ch - 1] * (1.f / 255.f) : 1.f;
      for (int c = 0; c < 3; ++c)
        o[3 * x + static_cast<std::size_t>(c)] = px[grey ? 0 : c] * (1.f / 255.f) * a + bg[c] * (1.f - a);
    }
  }
}

ImageF composite_float(const Image8& src, const std::array<float, 3>& background) {
  ImageF out;
  composite_float_into(src, background, out);
  return out;
}

Image8 to_image8(const ImageF& src) {
  Image8 out;
  out.width = src.width;
  out.height = src.height;
  out.channels = src.channels;
  out.data.resize(src.data.size());
  for (std::size_t i = 0; i < src.data.size(); ++i)
    out.data[i] = to_byte(src.data[i]);
  return out;
}

ImageF to_float(const Image8& src) {
  ImageF out(src.width, src.height, src.channels);
  for (std::size_t i = 0; i < src.data.size(); ++i) out.data[i] = src.data[i] * (1.f / 255.f);
  return out;
}

}  // namespace glint
