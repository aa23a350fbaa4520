#include "glint/cli/commands.h"
#include "glint/core/error.h"

namespace glint::cli {
void print_model_info(const std::string& path) { throw Error(path, "splat file summary is not built yet"); }
}  // namespace glint::cli
