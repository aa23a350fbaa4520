#pragma once
// The local HTTP server of `glint view`: serves a Site until SIGINT or SIGTERM.
#include <functional>
#include <string>

#include "glint/view/site.h"

namespace glint::view {

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: any free port
};

// Binds (throws glint::Error when it cannot), calls on_listening with the page's URL, then
// answers requests until SIGINT or SIGTERM arrives. Returns the signal number that
// stopped it.
int serve_until_signal(const Site& site, const ServeOptions& opt, const std::function<void(const std::string& url)>& on_listening);

}  // namespace glint::view
