#pragma once
// What `glint view` serves, and the one routing rule: a GET of an exact known path. There
// is no file system behind it (the page is embedded, the model and cameras are in memory),
// so no path -- encoded, dotted or otherwise -- can reach anything else, and nothing is
// ever listed.
#include <map>
#include <string>
#include <string_view>

namespace glint::view {

struct Reply {
  int status = 404;
  std::string_view content_type = "text/plain";
  std::string_view body = "not found\n";
};

class Site {
 public:
  // The embedded page files, plus "/" for "/index.html".
  Site();
  // Serves `body` at `path` (kept by value here); for the model, cameras and lights.
  void add(const std::string& path, std::string body, std::string_view content_type);
  bool has(const std::string& path) const { return files_.count(path) != 0; }
  // GET and HEAD of a known path: 200; other methods: 405; anything else: 404.
  Reply route(std::string_view method, std::string_view path) const;

 private:
  struct File {
    std::string_view content_type;
    std::string_view body;
    std::string owned;
  };
  std::map<std::string, File, std::less<>> files_;
};

}  // namespace glint::view
