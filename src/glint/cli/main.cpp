#include <cstdio>
#include <exception>

#include "glint/cli/commands.h"
#include "glint/core/error.h"

int main(int argc, char** argv) {
  CLI::App app{"Glint: train, render and relight 3D Gaussian splats"};
  app.set_version_flag("--version", glint::cli::version_text, "Print the version, the backends and CPU kernels of this build");
  app.require_subcommand(1);
  glint::cli::add_info(app);
  glint::cli::add_convert(app);
  glint::cli::add_sfm(app);
  glint::cli::add_train(app);
  glint::cli::add_eval(app);
  glint::cli::add_render(app);
  glint::cli::add_demo(app);
  glint::cli::add_relight(app);
  glint::cli::add_view(app);
  glint::cli::add_partition(app);
  glint::cli::add_merge(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();  // a command that already reported its outcome
  } catch (const CLI::ParseError& e) {
    // CLI11 prints help/version itself; usage errors exit 2 like every other bad input.
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const glint::Error& e) {
    std::fprintf(stderr, "glint: error: %s\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "glint: error: out of memory\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "glint: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
