#pragma once
// Flags as tokens: what a parsed command was given, so that flags stored in a plan and
// flags given on a command line can be parsed again in one order where the last wins.
#include <CLI/CLI.hpp>
#include <set>
#include <string>
#include <vector>

namespace glint::cli {

// Every option of `cmd` the command line gave, as "--name=value" tokens in the command's
// option order (a flag as "--name=true"); positionals and the options named in `skip`
// (long names without dashes) are left out.
std::vector<std::string> given_flag_tokens(const CLI::App& cmd, const std::set<std::string>& skip = {});

// Parses `tokens` with `add_flags` into a fresh command on which a flag given twice keeps
// its last value; throws glint::Error("<what>: <CLI11's message>") for a bad token. The
// command is returned for the caller's count() look-ups.
std::unique_ptr<CLI::App> parse_flag_tokens(const std::function<void(CLI::App&)>& add_flags,
                                            std::vector<std::string> tokens, const std::string& what);

}  // namespace glint::cli
