// Any bytes given to the PLY reader must end in a model or a glint::Error: never a crash,
// a sanitizer report, another exception or a huge allocation. A model that is read must
// also survive write -> read -> write unchanged.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "glint/core/error.h"
#include "glint/io/ply.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  glint::GaussianModel m;
  try {
    m = glint::read_ply_bytes(std::string(reinterpret_cast<const char*>(data), size), "fuzz.ply");
  } catch (const glint::Error&) {
    return 0;  // rejected bad input: the expected outcome for most inputs
  }
  const std::string first = glint::write_ply_bytes(m);
  const std::string second = glint::write_ply_bytes(glint::read_ply_bytes(first, "rewritten.ply"));
  if (first != second) std::abort();
  return 0;
}
