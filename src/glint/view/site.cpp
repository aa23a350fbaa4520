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
}

void Site::add(const std::string& path, std::string body, std::string_view content_type) {
  File& f = files_[path];
  f.owned = std::move(body);
  f.body = f.owned;  // the map's nodes never move, so the view stays valid
  f.content_type = content_type;
}

Reply Site::route(std::string_view method, std::string_view path) const {
  auto it = files_.find(path);
  if (it == files_.end()) return {};
  if (method != "GET" && method != "HEAD") return {405, "text/plain", "method not allowed\n"};
  return {200, it->second.content_type, it->second.body};
}

}  // namespace glint::view
