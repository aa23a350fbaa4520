#include "glint/backend/vulkan/forward_stages.h"

#include <algorithm>
#include <string>

#include "glint/backend/vulkan/shader_interfaces.h"
#include "glint/core/error.h"

namespace glint::vk {

namespace sh = shaders;

void DeviceModel::upload(Stream& s, const GaussianModel& m) {
  n = m.size();
  Device& d = s.device();
  const auto up = [&](Array<float>& a, const std::vector<float>& v) {
    a.resize(d, v.size());
    s.upload(a.buffer(), 0, v.data(), v.size() * sizeof(float));
  };
  up(means, m.means);
  up(log_scales, m.log_scales);
  up(quats, m.quats);
  up(opacity, m.opacity_logits);
  up(sh_dc, m.sh_dc);
  up(sh_rest, m.sh_rest);
}

std::size_t splat_chunk(const Device& device) {
  const std::uint64_t by_range = device.binding_limit() / (45 * sizeof(float));
  const std::uint64_t chunk = std::min<std::uint64_t>(by_range, std::uint64_t(1) << 24) / 64 * 64;
  if (chunk == 0) throw Error("Vulkan", device.info().name + "'s storage buffer range is too small");
  return static_cast<std::size_t>(chunk);
}

void exclusive_scan(Stream& s, Array<std::uint32_t>& data, std::size_t n, ScanSums& sums, std::size_t level) {
  if (n == 0) return;
  const std::size_t blocks = (n + 1023) / 1024;
  if (level >= sums.size()) throw Error("Vulkan", "a prefix sum too long");
  Array<std::uint32_t>& bs = sums[level];
  bs.resize(s.device(), blocks);
  const CountPush push{static_cast<std::uint32_t>(n), 0, 0, 0};
  dispatch<sh::ScanBlocks>(s, s.groups_for(blocks * 256, 256), push, out(data, 0, n), out(bs, 0, blocks));
  if (blocks == 1) return;
  exclusive_scan(s, bs, blocks, sums, level + 1);
  dispatch<sh::ScanAdd>(s, s.groups_for(n, 256), push, out(data, 0, n), in(bs, 0, blocks));
}

void sort_keys(Stream& s, DeviceFrame& f, std::uint32_t m, unsigned lo_bits, unsigned hi_bits) {
  f.sorted = 0;
  if (m == 0) return;
  Device& d = s.device();
  const std::uint32_t blocks = (m + 4095) / 4096;
  f.hist.resize(d, std::size_t(16) * blocks);
  for (int k = 0; k < 2; ++k) {
    f.key_lo[k].resize(d, m);
    f.key_hi[k].resize(d, m);
    f.slots[k].resize(d, m);
  }
  std::vector<unsigned> shifts;
  for (unsigned b = 0; b < lo_bits; b += 4) shifts.push_back(b);
  for (unsigned b = 0; b < hi_bits; b += 4) shifts.push_back(32 + b);
  for (unsigned shift : shifts) {
    const int a = f.sorted, b = 1 - a;
    const CountPush push{m, shift, blocks, 0};
    const Groups g = s.groups_for(std::size_t(blocks) * 256, 256);
    dispatch<sh::RadixCount>(s, g, push, in(f.key_lo[a], 0, m), in(f.key_hi[a], 0, m), out(f.hist));
    exclusive_scan(s, f.hist, f.hist.size(), f.scan_sums);
    dispatch<sh::RadixScatter>(s, g, push, in(f.key_lo[a], 0, m), in(f.key_hi[a], 0, m), in(f.slots[a], 0, m),
                               in(f.hist), out(f.key_lo[b], 0, m), out(f.key_hi[b], 0, m), out(f.slots[b], 0, m));
    f.sorted = b;
  }
}

namespace {
unsigned bits_for(std::uint32_t values) {  // bits that hold 0 .. values - 1
  unsigned b = 0;
  while (b < 32 && (std::uint64_t(1) << b) < values) ++b;
  return b;
}
}  // namespace

void forward_frame(Stream& s, const DeviceModel& model, const render::ViewT<float>& view, int sh_degree,
                   bool antialiased, const float background[3], DeviceFrame& f, std::uint32_t aov_flags,
                   bool stop_at_median) {
  Device& d = s.device();
  const std::size_t n = model.n;
  f.view = view_params(view);
  f.width = view.width;
  f.height = view.height;
  f.tiles_x = (view.width + 15) / 16;
  f.tiles_y = (view.height + 15) / 16;
  f.sh_degree = sh_degree;
  f.antialiased = antialiased;
  f.flags = aov_flags;
  f.stop_at_median = stop_at_median && (aov_flags & GLINT_AOV_MEDIAN) ? 1u : 0u;
  for (int c = 0; c < 3; ++c) f.background[c] = background[c];
  f.splats.resize(d, n);
  f.radii.resize(d, n);
  f.offsets.resize(d, n + 1);
  f.none_f.resize(d, 4);
  f.none_u.resize(d, 4);
  // project, a chunk at a time; the tile counts go into offsets, which the scan turns into
  // each splat's first key (and, at n, the number of keys)
  s.fill(f.offsets.buffer(), n * 4, 4, 0);
  const std::size_t chunk = splat_chunk(d);
  for (std::size_t first = 0; first < n; first += chunk) {
    const std::size_t c = std::min(chunk, n - first);
    ProjectPush push{};
    push.view = f.view;
    push.first = static_cast<std::uint32_t>(first);
    push.count = static_cast<std::uint32_t>(c);
    push.sh_degree = sh_degree;
    push.antialiased = antialiased ? 1u : 0u;
    dispatch<sh::Project>(s, s.groups_for(c, 256), push, in(model.means, 3 * first, 3 * c),
                          in(model.log_scales, 3 * first, 3 * c), in(model.quats, 4 * first, 4 * c),
                          in(model.opacity, first, c), in(model.sh_dc, 3 * first, 3 * c),
                          in(model.sh_rest, 45 * first, 45 * c), out(f.splats, first, c), out(f.offsets, first, c),
                          out(f.radii, first, c));
  }
  exclusive_scan(s, f.offsets, n + 1, f.scan_sums);
  std::uint32_t m = 0;
  s.download(f.offsets.buffer(), n * 4, &m, 4);
  s.finish();
  f.instances = m;

  const std::uint32_t tiles = static_cast<std::uint32_t>(f.tiles_x * f.tiles_y);
  f.ranges.resize(d, 2 * std::size_t(tiles));
  s.fill(f.ranges.buffer(), 0, f.ranges.bytes(), 0);
  f.splat_of_slot.resize(d, m);
  f.sorted_splat.resize(d, m);
  f.key_lo[0].resize(d, m);
  f.key_hi[0].resize(d, m);
  f.slots[0].resize(d, m);
  if (m > 0) {
    for (std::size_t first = 0; first < n; first += chunk) {
      const std::size_t c = std::min(chunk, n - first);
      const TileKeysPush push{static_cast<std::uint32_t>(first), static_cast<std::uint32_t>(c), view.width,
                              view.height};
      dispatch<sh::TileKeys>(s, s.groups_for(c, 256), push, in(f.splats, first, c), in(f.offsets, first, c + 1),
                             out(f.key_lo[0], 0, m), out(f.key_hi[0], 0, m), out(f.slots[0], 0, m),
                             out(f.splat_of_slot, 0, m));
    }
    // tile-major, depth order within a tile; sentinel keys (tile = tiles) last
    sort_keys(s, f, m, 32, bits_for(tiles + 1));
    const CountPush push{m, 0, tiles, 0};
    dispatch<sh::TileRanges>(s, s.groups_for(m, 256), push, in(f.key_hi[f.sorted], 0, m),
                             in(f.slots[f.sorted], 0, m), in(f.splat_of_slot, 0, m), out(f.sorted_splat, 0, m),
                             out(f.ranges));
  }
  const std::size_t pixels = std::size_t(view.width) * std::size_t(view.height);
  f.rgb.resize(d, 3 * pixels);
  f.alpha.resize(d, pixels);
  f.t_final.resize(d, pixels);
  f.last.resize(d, pixels);
  const auto sized = [&](Array<float>& a, std::uint32_t flag, std::size_t per_pixel) {
    if (aov_flags & flag) {
      a.resize(d, per_pixel * pixels);
      return out(a);
    }
    return out(f.none_f);
  };
  const Out<float> depth = sized(f.depth, GLINT_AOV_DEPTH, 1), depth_sum = sized(f.depth_sum, GLINT_AOV_DEPTH, 1);
  const Out<float> median = sized(f.median, GLINT_AOV_MEDIAN, 1);
  Out<std::uint32_t> median_at = out(f.none_u);
  if (aov_flags & GLINT_AOV_MEDIAN) {
    f.median_at.resize(d, pixels);
    median_at = out(f.median_at);
  }
  const Out<float> normal = sized(f.normal, GLINT_AOV_NORMAL, 3);
  const Out<float> distortion = sized(f.distortion, GLINT_AOV_DISTORTION, 1);
  const Out<float> dist_r = sized(f.dist_r, GLINT_AOV_DISTORTION, 1), dist_z0 = sized(f.dist_z0, GLINT_AOV_DISTORTION, 1);
  const Out<float> count = sized(f.count, GLINT_AOV_COUNT, 1);
  BlendPush push{};
  push.width = view.width;
  push.height = view.height;
  push.tiles_x = f.tiles_x;
  push.flags = aov_flags;
  for (int c = 0; c < 3; ++c) push.background[c] = background[c];
  push.stop_at_median = f.stop_at_median;
  const In<std::uint32_t> sorted_splat = m > 0 ? in(f.sorted_splat, 0, m) : in(f.none_u);
  dispatch<sh::Blend>(s, Groups{static_cast<std::uint32_t>(f.tiles_x), static_cast<std::uint32_t>(f.tiles_y), 1}, push,
                      in(f.splats), sorted_splat, in(f.ranges), out(f.rgb), out(f.alpha), out(f.t_final), out(f.last),
                      depth, depth_sum, median, median_at, normal, distortion, dist_r, dist_z0, count);
}

void backward_frame(Stream& s, const DeviceModel& model, DeviceFrame& f, DeviceGrads& g) {
  Device& d = s.device();
  const std::size_t n = model.n;
  const std::uint32_t m = f.instances;
  const std::uint32_t rec = (f.flags & GLINT_AOV_GEOMETRY) != 0 ? 13u : 9u;
  f.records.resize(d, std::size_t(rec) * m);
  // a sentinel slot (tile_keys.comp) gets no record from the blend: it must add nothing
  s.fill(f.records.buffer(), 0, f.records.bytes(), 0);
  BlendPush push{};
  push.width = f.width;
  push.height = f.height;
  push.tiles_x = f.tiles_x;
  push.flags = f.flags;
  for (int c = 0; c < 3; ++c) push.background[c] = f.background[c];
  push.grad_flags = g.grad_flags;
  push.record_floats = rec;
  const auto opt_f = [&](Array<float>& a, std::uint32_t flag) { return (f.flags & flag) ? in(a) : in(f.none_f); };
  const auto grad = [&](Array<float>& a, std::uint32_t flag) { return (g.grad_flags & flag) ? in(a) : in(f.none_f); };
  if (m > 0)
    dispatch<sh::BlendBackward>(
        s, Groups{static_cast<std::uint32_t>(f.tiles_x), static_cast<std::uint32_t>(f.tiles_y), 1}, push,
        in(f.splats), in(f.sorted_splat, 0, m), in(f.slots[f.sorted], 0, m), in(f.ranges), in(f.t_final), in(f.last),
        opt_f(f.depth_sum, GLINT_AOV_DEPTH), (f.flags & GLINT_AOV_MEDIAN) ? in(f.median_at) : in(f.none_u),
        opt_f(f.dist_r, GLINT_AOV_DISTORTION), opt_f(f.dist_z0, GLINT_AOV_DISTORTION), in(g.d_rgb),
        grad(g.d_alpha, GLINT_GRAD_ALPHA), grad(g.d_depth, GLINT_GRAD_DEPTH), grad(g.d_median, GLINT_GRAD_MEDIAN),
        grad(g.d_normal, GLINT_GRAD_NORMAL), grad(g.d_distortion, GLINT_GRAD_DISTORTION), out(f.records, 0, rec * m));
  g.means.resize(d, 3 * n);
  g.log_scales.resize(d, 3 * n);
  g.quats.resize(d, 4 * n);
  g.opacity.resize(d, n);
  g.sh_dc.resize(d, 3 * n);
  g.sh_rest.resize(d, 45 * n);
  g.mean2d.resize(d, 2 * n);
  const std::size_t chunk = splat_chunk(d);
  const In<float> records = m > 0 ? in(f.records, 0, std::size_t(rec) * m) : in(f.none_f);
  for (std::size_t first = 0; first < n; first += chunk) {
    const std::size_t c = std::min(chunk, n - first);
    SplatBackwardPush sp{};
    sp.view = f.view;
    sp.first = static_cast<std::uint32_t>(first);
    sp.count = static_cast<std::uint32_t>(c);
    sp.sh_degree = f.sh_degree;
    sp.antialiased = f.antialiased ? 1u : 0u;
    sp.record_floats = rec;
    dispatch<sh::SplatBackward>(s, s.groups_for(c, 128), sp, in(model.means, 3 * first, 3 * c),
                                in(model.log_scales, 3 * first, 3 * c), in(model.quats, 4 * first, 4 * c),
                                in(model.opacity, first, c), in(model.sh_dc, 3 * first, 3 * c),
                                in(model.sh_rest, 45 * first, 45 * c), in(f.splats, first, c),
                                in(f.offsets, first, c + 1), records, out(g.means, 3 * first, 3 * c),
                                out(g.log_scales, 3 * first, 3 * c), out(g.quats, 4 * first, 4 * c),
                                out(g.opacity, first, c), out(g.sh_dc, 3 * first, 3 * c),
                                out(g.sh_rest, 45 * first, 45 * c), out(g.mean2d, 2 * first, 2 * c));
  }
}

}  // namespace glint::vk
