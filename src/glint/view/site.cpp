#include "glint/view/site.h"

#include "glint/view/assets.h"

namespace glint::view {

std::string_view mime_type_for(std::string_view path) {
  auto ends = [&](std::string_view ext) { return path.size() >= ext.size() && path.substr(path.size() - ext.size()) == ext; };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".js")) return "text/javascript; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".json")) return "application/json";
  if (ends(".png")) return "image/png";
  return "application/octet-stream";
}

Site::Site() {
  for (const Asset& a : embedded_assets()) {
    File f;
    f.content_type = mime_type_for(a.path);
    f.body = std::string_view(reinterpret_cast<const char*>(a.data), a.size);
    files_[a.path] = f;
  }
  auto index = files_.find("/index.html");
  if (index != files_.end()) files_["/"] = index->second;
  refresh_version_locked();
}

void Site::put_locked(const std::string& path, std::string body, std::string_view content_type) {
  File& f = files_[path];
  f.owned = std::make_shared<const std::string>(std::move(body));
  f.body = *f.owned;
  f.content_type = content_type;
}

void Site::refresh_version_locked() {
  put_locked("/api/version", "{\"version\": " + std::to_string(version_) + ", \"status\": " + status_ + "}",
             "application/json");
}

void Site::add(const std::string& path, std::string body, std::string_view content_type) {
  std::lock_guard lock(mu_);
  put_locked(path, std::move(body), content_type);
}

std::uint64_t Site::publish(std::vector<SiteFile> files, std::string status_json) {
  std::lock_guard lock(mu_);
  for (SiteFile& f : files) put_locked(f.path, std::move(f.body), f.content_type);
  status_ = std::move(status_json);
  ++version_;
  refresh_version_locked();
  return version_;
}

std::uint64_t Site::version() const {
  std::lock_guard lock(mu_);
  return version_;
}

bool Site::has(const std::string& path) const {
  std::lock_guard lock(mu_);
  return files_.count(path) != 0;
}

Reply Site::route(std::string_view method, std::string_view path) const {
  std::lock_guard lock(mu_);
  Reply r;
  r.version = version_;
  auto it = files_.find(path);
  if (it == files_.end()) return r;
  if (method != "GET" && method != "HEAD") {
    r.status = 405;
    r.body = "method not allowed\n";
    return r;
  }
  r.status = 200;
  r.content_type = it->second.content_type;
  r.body = it->second.body;
  r.owner = it->second.owned;
  return r;
}

}  // namespace glint::view
