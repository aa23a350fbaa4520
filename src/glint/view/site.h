#pragma once
// What `glint view` serves, and the one routing rule: a GET of an exact known path. There
// is no file system behind it (the page is embedded, the model and cameras are in memory),
// so no path -- encoded, dotted or otherwise -- can reach anything else, and nothing is
// ever listed.
//
// A Site can change while it is served (a training run publishing its model): publish()
// replaces files and bumps a version number in one step under a lock, and every Reply
// holds a reference to the bytes it answers with, so a reply that is being sent keeps the
// old model alive after a new one has replaced it. "/api/version" answers
// {"version": N, "status": S}: N counts publications (0: nothing published yet), S is
// the JSON the last publication gave (null by default). Every reply carries N as well.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace glint::view {

struct Reply {
  int status = 404;
  std::string_view content_type = "text/plain";
  std::string_view body = "not found\n";
  std::uint64_t version = 0;          // the Site's version when this reply was made
  std::shared_ptr<const void> owner;  // keeps `body` alive (null: static bytes)
};

struct SiteFile {
  std::string path;
  std::string body;
  std::string_view content_type;  // a literal or mime_type_for's answer: not copied
};

class Site {
 public:
  // The embedded page files, plus "/" for "/index.html".
  Site();
  // Serves `body` at `path`, without changing the version: for what is there from the start.
  void add(const std::string& path, std::string body, std::string_view content_type);
  // Replaces or adds every file and sets the status, as one change: a request sees all of
  // them old or all new. Returns the new version.
  std::uint64_t publish(std::vector<SiteFile> files, std::string status_json = "null");
  std::uint64_t version() const;
  bool has(const std::string& path) const;
  // GET and HEAD of a known path: 200; other methods: 405; anything else: 404.
  Reply route(std::string_view method, std::string_view path) const;

 private:
  struct File {
    std::string_view content_type;
    std::string_view body;
    std::shared_ptr<const std::string> owned;  // null for the embedded files
  };
  void put_locked(const std::string& path, std::string body, std::string_view content_type);
  void refresh_version_locked();

  mutable std::mutex mu_;
  std::map<std::string, File, std::less<>> files_;
  std::uint64_t version_ = 0;
  std::string status_ = "null";
};

}  // namespace glint::view
