#include "glint/cli/commands.h"
#include "glint/core/error.h"

namespace glint::cli {
void add_info(CLI::App& app) {
  auto* sub = app.add_subcommand("info", "(being built)");
  sub->callback([] { throw Error("info is not built yet"); });
}
}  // namespace glint::cli
