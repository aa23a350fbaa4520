#include "glint/cli/given_flags.h"

#include <algorithm>

#include "glint/core/error.h"

namespace glint::cli {

std::vector<std::string> given_flag_tokens(const CLI::App& cmd, const std::set<std::string>& skip) {
  std::vector<std::string> out;
  for (const CLI::Option* o : cmd.get_options()) {
    if (o->count() == 0 || o->get_positional() || o->get_lnames().empty()) continue;
    const std::string& name = o->get_lnames().front();
    if (skip.count(name) || name == "help") continue;
    for (const std::string& v : o->results()) out.push_back("--" + name + "=" + v);
  }
  return out;
}

std::unique_ptr<CLI::App> parse_flag_tokens(const std::function<void(CLI::App&)>& add_flags,
                                            std::vector<std::string> tokens, const std::string& what) {
  auto app = std::make_unique<CLI::App>();
  app->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  add_flags(*app);
  std::reverse(tokens.begin(), tokens.end());  // CLI11 takes a vector's arguments from its back
  try {
    app->parse(tokens);
  } catch (const CLI::ParseError& e) {
    throw Error(what + ": " + e.what());
  }
  return app;
}

}  // namespace glint::cli
