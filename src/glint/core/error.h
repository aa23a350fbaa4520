#pragma once
// Every failure that bad input can cause is a glint::Error whose message names the file and
// what is wrong with it; the CLI prints it as one line and exits with code 2.
#include <stdexcept>
#include <string>

namespace glint {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
  Error(const std::string& file, const std::string& what) : std::runtime_error(file + ": " + what) {}
};

}  // namespace glint
