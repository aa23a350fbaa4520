#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "glint/backend/backend.h"
#include "glint/cli/backend_flag.h"
#include "glint/cli/commands.h"
#include "glint/cli/dataset_options.h"
#include "glint/cli/progress.h"
#include "glint/core/error.h"
#include "glint/io/atomic_file.h"
#include "glint/io/model_file.h"
#include "glint/train/evaluate.h"

namespace glint::cli {

void add_eval(CLI::App& app) {
  struct Args {
    std::string model, dataset, json, split = "test";
    DatasetFlags flags;
    int sh_degree = -1;
    bool antialiased = false;
    std::string backend = "auto";
  };
  auto a = std::make_shared<Args>();
  auto* sub = app.add_subcommand("eval", "PSNR and SSIM of a splat file on a dataset's held-out views");
  sub->add_option("model", a->model, "Splat file (.ply / .splat / .spz), from Glint or any graphdeco-style trainer")->required();
  sub->add_option("dataset", a->dataset, "Dataset folder or transforms .json")->required();
  sub->add_option("--split", a->split, "Split to evaluate: test or train")->check(CLI::IsMember({"test", "train"}));
  sub->add_option("--json", a->json, "Also write the scores as JSON to this file ('-' for stdout)");
  sub->add_option("--sh-degree", a->sh_degree, "SH degree to evaluate (default: the model's)")->check(CLI::Range(0, 3));
  sub->add_flag("--antialiased", a->antialiased, "Mip-Splatting 2D filter (on by itself for a model whose file says it was trained with it)");
  add_backend_flag(*sub, a->backend);
  add_dataset_flags(*sub, a->flags);
  sub->callback([a] {
    auto backend = open_backend(a->backend);
    GaussianModel model = load_model(a->model);
    Dataset data = load_dataset(a->dataset, resolve(a->flags));
    const std::vector<View>& views = a->split == "test" ? data.test : data.train;
    if (views.empty()) throw Error(a->dataset, "the " + a->split + " split is empty (see --test-every)");
    ImageCache images(data, views, std::size_t{1} << 30);
    RenderSettings rs;
    rs.for_backward = false;  // rendered, never differentiated
    for (int c = 0; c < 3; ++c) rs.background[c] = data.background[static_cast<std::size_t>(c)];
    rs.want_alpha = false;
    rs.sh_degree = a->sh_degree;
    rs.antialiased = a->antialiased;  // a marked model renders with the filter anyway
    Progress progress("eval", static_cast<long>(views.size()));
    EvalReport r = evaluate(model, views, images, *backend, rs, [&](std::size_t i, const ViewScore&, const ImageF&) {
      progress.update(static_cast<long>(i + 1));
    });
    progress.finish();
    const bool json_stdout = a->json == "-";
    if (!json_stdout) {
      const bool masked = r.masked_views > 0;
      std::printf("%-32s %9s %8s %10s%s\n", "view", "PSNR(dB)", "SSIM", "render ms", masked ? "  mask kept" : "");
      for (const auto& v : r.views) {
        std::printf("%-32s %9.3f %8.4f %10.1f", v.name.c_str(), v.psnr, v.ssim, v.render_ms);
        if (v.masked) std::printf("  %8.1f%%", 100.0 * v.mask_coverage);
        std::printf("\n");
      }
      std::printf("%-32s %9.3f %8.4f\n", ("mean of " + std::to_string(r.views.size())).c_str(), r.mean_psnr,
                  r.mean_ssim);
      if (masked)
        std::printf("%zu of %zu views scored on the pixels their masks keep (unmasked pixels only)\n", r.masked_views,
                    r.views.size());
    }
    if (!a->json.empty()) {
      nlohmann::json j;
      j["model"] = a->model;
      j["dataset"] = data.root;
      j["split"] = a->split;
      j["splats"] = model.size();
      j["backend"] = backend->name();
      j["device"] = backend->device();
      if (const long long peak = backend->peak_device_memory_bytes(); peak >= 0)
        j["peak_device_memory_mb"] = static_cast<double>(peak) / (1024.0 * 1024.0);
      j["mean_psnr"] = r.mean_psnr;
      j["mean_ssim"] = r.mean_ssim;
      j["scored_pixels"] = r.masked_views == 0 ? "all" : "unmasked only";
      if (r.masked_views > 0) j["masked_views"] = r.masked_views;
      for (const auto& v : r.views) {
        nlohmann::json jv = {{"name", v.name}, {"psnr", v.psnr}, {"ssim", v.ssim}};
        if (v.masked) jv["mask_coverage"] = v.mask_coverage;
        j["views"].push_back(jv);
      }
      if (json_stdout)
        std::printf("%s\n", j.dump(2).c_str());
      else
        write_file_atomic(a->json, j.dump(2) + "\n");
    }
  });
}

}  // namespace glint::cli
