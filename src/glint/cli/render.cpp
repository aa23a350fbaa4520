#include <filesystem>
#include <memory>

#include "glint/backend/backend.h"
#include "glint/cli/aov_output.h"
#include "glint/cli/backend_flag.h"
#include "glint/cli/camera_source.h"
#include "glint/cli/commands.h"
#include "glint/cli/output_dir.h"
#include "glint/cli/progress.h"
#include "glint/io/atomic_file.h"
#include "glint/io/image_io.h"
#include "glint/io/image_ops.h"
#include "glint/io/model_file.h"

namespace glint::cli {

void add_render(CLI::App& app) {
  struct Args {
    std::string model, cameras, out, split = "test";
    DatasetFlags flags;
    bool force = false, antialiased = false;
    int sh_degree = -1;
    std::vector<std::string> aovs{"rgb"};
    DepthFilterParams filter;
    std::string backend = "auto";
  };
  auto a = std::make_shared<Args>();
  auto* sub = app.add_subcommand("render", "Render a splat file from a dataset's cameras or a cameras.json");
  sub->add_option("model", a->model, "Splat file (.ply / .splat / .spz)")->required();
  sub->add_option("cameras", a->cameras, "Dataset folder, transforms .json, or cameras.json")->required();
  sub->add_option("-o,--output", a->out, "Output folder for the PNGs")->required();
  sub->add_option("--split", a->split, "Dataset split to render: train, test or all")
      ->check(CLI::IsMember({"train", "test", "all"}));
  sub->add_option("--sh-degree", a->sh_degree, "SH degree to evaluate (default: the model's)")->check(CLI::Range(0, 3));
  sub->add_flag("--antialiased", a->antialiased, "Mip-Splatting 2D filter (on by itself for a model whose file says it was trained with it)");
  std::string aov_list;
  for (const std::string& n : aov_names()) aov_list += (aov_list.empty() ? "" : ", ") + n;
  sub->add_option("--aov", a->aovs,
                  "Outputs, comma separated: " + aov_list +
                      " (PNG visualisations; float data as PFM for all but rgb)")
      ->delimiter(',')
      ->check(CLI::IsMember(aov_names()));
  sub->add_option("--depth-sigma-px", a->filter.sigma_spatial_px, "depth_normal: spatial sigma of the bilateral filter (px)");
  sub->add_option("--depth-sigma-color", a->filter.sigma_range, "depth_normal: colour sigma of the bilateral filter");
  sub->add_flag("-f,--force", a->force, "Overwrite existing files in the output folder");
  add_backend_flag(*sub, a->backend);
  add_dataset_flags(*sub, a->flags);
  sub->callback([a] {
    auto backend = open_backend(a->backend);
    GaussianModel model = load_model(a->model);
    CameraSource src = load_cameras(a->cameras, a->split, a->flags);
    AovSet aov = parse_aovs(a->aovs);
    std::vector<std::string> names;
    for (const Camera& c : src.cameras)
      for (const std::string& f : aov_files(aov, output_stem(c.name))) names.push_back(f);
    prepare_output_dir(a->out, names, a->force);
    RenderSettings rs;
    rs.for_backward = false;  // rendered, never differentiated
    for (int c = 0; c < 3; ++c) rs.background[c] = src.background[static_cast<std::size_t>(c)];
    rs.sh_degree = a->sh_degree;
    rs.antialiased = a->antialiased;  // a marked model renders with the filter anyway
    set_wanted_outputs(aov, rs);
    Progress progress("render", static_cast<long>(src.cameras.size()));
    RenderOutput o;  // reused from camera to camera
    for (std::size_t i = 0; i < src.cameras.size(); ++i) {
      backend->forward_into(model, src.cameras[i], rs, o);
      write_aovs(aov, a->out, output_stem(src.cameras[i].name), src.cameras[i], o, a->filter);
      progress.update(static_cast<long>(i + 1));
    }
    progress.finish();
    std::printf("wrote %zu files for %zu cameras (%zu splats) to %s\n", names.size(), src.cameras.size(), model.size(),
                a->out.c_str());
  });
}

}  // namespace glint::cli
