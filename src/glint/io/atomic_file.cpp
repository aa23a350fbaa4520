#include "glint/io/atomic_file.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "glint/core/error.h"

namespace glint {
namespace fs = std::filesystem;

namespace {

// Same folder as the target so the final rename stays within one filesystem (atomic);
// pid + counter keep concurrent writers of the same target from sharing a temporary.
fs::path temp_path_for(const fs::path& target) {
  static std::atomic<unsigned> counter{0};
  std::string name = ".";
  name += target.filename().string();
  name += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  return target.parent_path() / name;
}

std::string errno_text(int err) { return err ? std::string(": ") + std::strerror(err) : ""; }

}  // namespace

void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& fill) {
  const fs::path target(path);
  if (target.filename().empty()) throw Error(path, "cannot write: not a file name");
  const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error(path, "cannot write: folder " + dir.string() + " does not exist");
  if (fs::is_directory(target, ec)) throw Error(path, "cannot write: it is a folder");

  const fs::path tmp = temp_path_for(target);
  auto discard = [&] {
    std::error_code ignore;
    fs::remove(tmp, ignore);
  };
  {
    errno = 0;
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(path, "cannot write" + errno_text(errno));
    try {
      fill(out);
    } catch (...) {
      out.close();
      discard();
      throw;
    }
    out.flush();
    out.close();
    if (!out) {
      int err = errno;
      discard();
      throw Error(path, "write failed" + errno_text(err));
    }
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    discard();
    throw Error(path, "cannot replace file: " + ec.message());
  }
}

void write_file_atomic(const std::string& path, const std::string& bytes) {
  write_file_atomic(path, [&](std::ostream& out) {
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  });
}

}  // namespace glint
