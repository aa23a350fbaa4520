// `glint convert IN OUT`: splat files between formats; the extensions choose them.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "glint/cli/commands.h"
#include "glint/core/error.h"
#include "glint/io/model_file.h"
#include "glint/io/spz.h"

namespace glint::cli {
namespace {

struct ConvertOptions {
  std::string in, out;
  bool force = false;
  int spz_version = 3;
};

void run_convert(const ConvertOptions& o) {
  // Check both names before the (possibly long) read, so a typo fails at once.
  const ModelFormat in_format = model_format_for(o.in);
  const ModelFormat out_format = model_format_for(o.out);
  std::error_code ec;
  if (std::filesystem::exists(o.out, ec) && !o.force)
    throw Error(o.out, "already exists; pass --force to overwrite it");

  const GaussianModel m = load_model(o.in);
  std::printf("read %s: %zu splats (%s, SH degree %d)\n", o.in.c_str(), m.size(), model_format_name(in_format),
              m.sh_degree);
  if (out_format == ModelFormat::Splat) {
    GaussianModel colour_only = m;
    colour_only.sh_degree = 0;  // .splat holds the DC colour only
    save_model(o.out, colour_only);
    std::printf("wrote %s: %zu splats (SH degree 0%s%s)\n", o.out.c_str(), m.size(),
                m.sh_degree > 0 ? "; view-dependent colour dropped" : "",
                m.antialiased ? "; .splat cannot say the model was trained with the 2D filter: render it with --antialiased" : "");
  } else if (out_format == ModelFormat::Spz) {
    SpzWriteOptions so;
    so.version = o.spz_version;
    write_spz(o.out, m, so);
    std::printf("wrote %s: %zu splats (SH degree %d; SPZ version %d, positions in steps of 1/%d)\n", o.out.c_str(),
                m.size(), m.sh_degree, so.version, 1 << spz_fractional_bits(m, o.out));
  } else {
    save_model(o.out, m);
    std::printf("wrote %s: %zu splats (SH degree %d)\n", o.out.c_str(), m.size(), m.sh_degree);
  }
}

}  // namespace

void add_convert(CLI::App& app) {
  auto opts = std::make_shared<ConvertOptions>();
  auto* sub = app.add_subcommand("convert", "Convert a splat file between .ply, .splat and .spz (chosen by extension)");
  sub->add_option("IN", opts->in, "Input splat file (.ply, .splat or .spz)")->required();
  sub->add_option("OUT", opts->out, "Output splat file (.ply, .splat or .spz); written atomically")->required();
  sub->add_flag("-f,--force", opts->force, "Overwrite OUT if it already exists");
  sub->add_option("--spz-version", opts->spz_version,
                  "SPZ version to write: 3 (rotations as their smallest three components, 10 bits each) or 2 "
                  "(8-bit x y z, for older readers)")
      ->check(CLI::IsMember({2, 3}));
  sub->callback([opts] { run_convert(*opts); });
}

}  // namespace glint::cli
