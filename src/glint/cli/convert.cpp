#include "glint/cli/commands.h"
#include "glint/core/error.h"

namespace glint::cli {
void add_convert(CLI::App& app) {
  auto* sub = app.add_subcommand("convert", "(being built)");
  sub->callback([] { throw Error("convert is not built yet"); });
}
}  // namespace glint::cli
