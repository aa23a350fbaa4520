#include <filesystem>
#include <memory>

#include "glint/cli/backend_flag.h"
#include "glint/cli/commands.h"
#include "glint/cli/relight_run.h"
#include "glint/cli/train_run.h"
#include "glint/core/error.h"

namespace glint::cli {

namespace {

// The bundled scene: installed beside the program (<prefix>/share/glint/demo), next to the
// sources when run from a build tree, else ./data/demo.
std::string demo_data() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::string installed = ec ? "" : (exe.parent_path().parent_path() / "share" / "glint" / "demo").string();
  for (const std::string& p : {installed, std::string(GLINT_DEMO_DATA), std::string("data/demo")})
    if (!p.empty() && std::filesystem::exists(p + "/transforms_train.json")) return p;
  throw Error("data/demo", "bundled demo scene not found (run from the repository root or pass --data)");
}

}  // namespace

void add_demo(CLI::App& app) {
  auto args = std::make_shared<TrainArgs>();
  args->out = "out/demo";
  args->run.train.steps = 3000;
  args->save_renders = true;
  args->run.eval_every = 500;
  // The demo ends by relighting, so it trains the geometry that relights best
  // (docs/LIGHTING.md compares it with the default settings on the relight benchmark).
  args->run.preset = "lightable";
  auto data_ptr = std::make_shared<std::string>();
  auto* sub = app.add_subcommand("demo", "Train on the bundled demo scene (data/demo) with --preset lightable, evaluate it and relight it");
  sub->add_option("-o,--output", args->out, "Output folder")->capture_default_str();
  sub->add_option("--data", *data_ptr, "Demo scene folder (default: the bundled data/demo)");
  sub->add_option("--steps", args->run.train.steps, "Training steps")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_flag("-f,--force", args->force, "Overwrite a previous demo's results");
  sub->add_flag("-q,--quiet", args->quiet, "No progress bar");
  add_backend_flag(*sub, args->backend);
  sub->callback([args, data_ptr] {
    TrainArgs a = *args;
    a.dataset = data_ptr->empty() ? demo_data() : *data_ptr;
    a.run.schedule_steps = a.run.train.steps;
    int code = run_training(a);
    if (code != 0) throw CLI::RuntimeError(code);
    // The bundled scene comes with light setups: relight its test views with shadows.
    const std::string lights = a.dataset + "/lights.json";
    const bool has_lights = std::filesystem::exists(lights);
    // The next thing to try: look at the result in the browser.
    const auto print_view_command = [&] {
      std::printf("look at it in a browser: glint view %s/scene.ply --cameras %s%s\n", a.out.c_str(), a.dataset.c_str(),
                  has_lights ? (" --lights " + lights).c_str() : "");
    };
    if (!has_lights) {
      print_view_command();
      return;
    }
    RelightArgs r;
    r.model = a.out + "/scene.ply";
    r.cameras = a.dataset;
    r.lights = {lights};
    r.out = a.out + "/relit";
    r.force = a.force;
    r.backend = a.backend;
    std::printf("relighting the test views under %s\n", lights.c_str());
    run_relight(r);
    print_view_command();
  });
}

}  // namespace glint::cli
