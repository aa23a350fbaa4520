#include "glint/view/server.h"

#include <httplib.h>
#include <pthread.h>
#include <sys/socket.h>
#include <signal.h>

#include <atomic>
#include <csignal>
#include <chrono>
#include <cstring>
#include <thread>

#include "glint/core/error.h"

namespace glint::view {

namespace {

// Requests are GETs of small fixed paths: nothing needs a body, and a slow or stuck
// client must not hold a worker thread for long.
constexpr std::size_t kMaxRequestBody = 4096;
constexpr int kReadTimeoutS = 5;

bool is_loopback(const std::string& host) { return host == "127.0.0.1" || host == "localhost" || host == "::1"; }

// On a loopback server, only requests addressed to loopback names are answered, so that a
// web page elsewhere cannot reach it through a DNS name rebound to 127.0.0.1.
bool host_header_ok(const httplib::Request& req, int port) {
  const std::string h = req.get_header_value("Host");
  const std::string p = std::to_string(port);
  for (const char* name : {"127.0.0.1:", "localhost:", "[::1]:"})
    if (h.size() == std::strlen(name) + p.size() && h.compare(0, std::strlen(name), name) == 0 &&
        h.compare(std::strlen(name), p.size(), p) == 0)
      return true;
  return false;
}

}  // namespace

int serve_until_signal(const Site& site, const ServeOptions& opt,
                       const std::function<void(const std::string& url)>& on_listening) {
  // Signals are taken by one thread with sigwait, not by a handler: stopping the server is
  // not async-signal-safe. The mask is set before any server thread exists, so all inherit it.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  // A browser that closes a connection mid-download must not end the server.
  std::signal(SIGPIPE, SIG_IGN);

  httplib::Server svr;
  // SO_REUSEADDR only: a restarted viewer can take its port back at once, but, unlike with
  // the library's default (which adds SO_REUSEPORT), a second server cannot bind a port
  // that one is already serving and silently share its requests.
  svr.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  svr.set_payload_max_length(kMaxRequestBody);
  svr.set_read_timeout(kReadTimeoutS, 0);
  svr.set_write_timeout(kReadTimeoutS * 6, 0);
  int port = 0;
  const bool check_host = is_loopback(opt.host);
  svr.set_pre_routing_handler([&site, &port, check_host](const httplib::Request& req, httplib::Response& res) {
    if (check_host && !host_header_ok(req, port)) {
      res.status = 403;
      res.set_content("forbidden host\n", "text/plain");
      return httplib::Server::HandlerResponse::Handled;
    }
    const Reply r = site.route(req.method, req.path);
    res.status = r.status;
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_header("Cache-Control", "no-store");
    res.set_header("Content-Security-Policy", "default-src 'self'; worker-src 'self'; style-src 'self' 'unsafe-inline'");
    res.set_content(std::string(r.body), std::string(r.content_type));
    return httplib::Server::HandlerResponse::Handled;
  });

  if (opt.port == 0) {
    port = svr.bind_to_any_port(opt.host);
    if (port <= 0) throw Error("--host " + opt.host + ": cannot bind a port on this address");
  } else {
    if (!svr.bind_to_port(opt.host, opt.port))
      throw Error("--port " + std::to_string(opt.port) + ": cannot bind " + opt.host + ":" + std::to_string(opt.port) +
                  " (in use, or not an address of this machine)");
    port = opt.port;
  }
  const std::string shown = opt.host.find(':') != std::string::npos ? "[" + opt.host + "]" : opt.host;
  on_listening("http://" + shown + ":" + std::to_string(port) + "/");

  std::atomic<int> got{0};
  std::atomic<bool> listening_done{false};
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    got = sig;
    // stop() does nothing until listen_after_bind is running, so a signal that arrives
    // in between is repeated until the server has returned.
    while (!listening_done) {
      svr.stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  svr.listen_after_bind();
  listening_done = true;
  const int stopped_by = got;
  if (stopped_by == 0) pthread_kill(waiter.native_handle(), SIGTERM);  // stopped on its own: wake the waiter
  waiter.join();
  pthread_sigmask(SIG_UNBLOCK, &stop_signals, nullptr);
  return stopped_by;
}

}  // namespace glint::view
