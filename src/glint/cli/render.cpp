#include <filesystem>
#include <memory>

#include "glint/backend/backend.h"
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
  };
  auto a = std::make_shared<Args>();
  auto* sub = app.add_subcommand("render", "Render a splat file from a dataset's cameras or a cameras.json");
  sub->add_option("model", a->model, "Splat file (.ply / .splat)")->required();
  sub->add_option("cameras", a->cameras, "Dataset folder, transforms .json, or cameras.json")->required();
  sub->add_option("-o,--output", a->out, "Output folder for the PNGs")->required();
  sub->add_option("--split", a->split, "Dataset split to render: train, test or all")
      ->check(CLI::IsMember({"train", "test", "all"}));
  sub->add_option("--sh-degree", a->sh_degree, "SH degree to evaluate (default: the model's)")->check(CLI::Range(0, 3));
  sub->add_flag("--antialiased", a->antialiased, "Mip-Splatting 2D filter (for models trained with it)");
  sub->add_flag("-f,--force", a->force, "Overwrite existing files in the output folder");
  add_dataset_flags(*sub, a->flags);
  sub->callback([a] {
    GaussianModel model = load_model(a->model);
    CameraSource src = load_cameras(a->cameras, a->split, a->flags);
    std::vector<std::string> names;
    for (const Camera& c : src.cameras) names.push_back(output_stem(c.name) + ".png");
    prepare_output_dir(a->out, names, a->force);
    auto backend = make_cpu_backend();
    RenderSettings rs;
    for (int c = 0; c < 3; ++c) rs.background[c] = src.background[static_cast<std::size_t>(c)];
    rs.sh_degree = a->sh_degree;
    rs.antialiased = a->antialiased;
    rs.want_alpha = false;
    Progress progress("render", static_cast<long>(src.cameras.size()));
    for (std::size_t i = 0; i < src.cameras.size(); ++i) {
      RenderOutput o = backend->forward(model, src.cameras[i], rs);
      write_file_atomic((std::filesystem::path(a->out) / names[i]).string(), encode_png(to_image8(o.rgb)));
      progress.update(static_cast<long>(i + 1));
    }
    progress.finish();
    std::printf("wrote %zu renders of %zu splats to %s\n", names.size(), model.size(), a->out.c_str());
  });
}

}  // namespace glint::cli
