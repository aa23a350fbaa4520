#pragma once
// The local HTTP server of `glint view`: serves a Site, either on the calling thread until
// SIGINT or SIGTERM (glint view), or on a thread of its own while the process does
// something else and keeps its own signal handling (glint train --view).
#include <functional>
#include <memory>
#include <string>

#include "glint/view/site.h"

namespace glint::view {

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: any free port
};

class Server {
 public:
  // Binds (throws glint::Error when it cannot). `site` must outlive the server.
  Server(const Site& site, const ServeOptions& opt);
  ~Server();  // stops a background server
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  const std::string& url() const { return url_; }

  // Answers requests on a new thread. SIGINT and SIGTERM are blocked on that thread and on
  // the workers it starts, so they still reach the process's own handlers.
  void start_background();
  // Stops a background server and waits for its thread; does nothing when none runs.
  void stop();

  // Answers requests on this thread until SIGINT or SIGTERM; returns that signal's number.
  // on_ready runs once those signals are caught (before, they would end the process), just
  // before the first request is answered: the place to print the URL.
  int serve_until_signal(const std::function<void()>& on_ready = {});

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string url_;
};

// Binds, calls on_listening with the page's URL, then answers requests until SIGINT or
// SIGTERM arrives. Returns the signal number that stopped it.
int serve_until_signal(const Site& site, const ServeOptions& opt, const std::function<void(const std::string& url)>& on_listening);

}  // namespace glint::view
