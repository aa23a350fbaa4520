// Any bytes given to the .spz reader must end in a model or a glint::Error: never a crash,
// a sanitizer report, another exception or a huge allocation. The first byte picks what the
// rest is: even, the file itself (the gzip layer); odd, the decompressed content, which the
// harness compresses first, so that mutations reach the parser behind the checksum. A model
// that is read must be writable and read back with the same shape.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "glint/core/error.h"
#include "glint/io/gzip.h"
#include "glint/io/spz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 1) bytes = glint::gzip_compress(bytes);
  glint::GaussianModel m;
  try {
    m = glint::read_spz_bytes(bytes, "fuzz.spz");
  } catch (const glint::Error&) {
    return 0;  // rejected bad input: the expected outcome for most inputs
  }
  const glint::GaussianModel back = glint::read_spz_bytes(glint::write_spz_bytes(m), "rewritten.spz");
  if (back.size() != m.size() || back.sh_degree != m.sh_degree || back.antialiased != m.antialiased) std::abort();
  return 0;
}
