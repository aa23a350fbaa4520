#include "glint/view/server.h"

#include <httplib.h>
#include <pthread.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
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

sigset_t stop_signals() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGTERM);
  return s;
}

}  // namespace

struct Server::Impl {
  httplib::Server svr;
  int port = 0;
  std::thread thread;
  std::atomic<bool> listening_done{false};

  // stop() does nothing until listen_after_bind is running, so it is repeated until the
  // listening thread has returned.
  void stop_and_wait_for_listen() {
    while (!listening_done) {
      svr.stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
};

Server::Server(const Site& site, const ServeOptions& opt) : impl_(std::make_unique<Impl>()) {
  // A browser that closes a connection mid-download must not end the process.
  std::signal(SIGPIPE, SIG_IGN);
  httplib::Server& svr = impl_->svr;
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
  const bool check_host = is_loopback(opt.host);
  Impl* impl = impl_.get();
  svr.set_pre_routing_handler([&site, impl, check_host](const httplib::Request& req, httplib::Response& res) {
    if (check_host && !host_header_ok(req, impl->port)) {
      res.status = 403;
      res.set_content("forbidden host\n", "text/plain");
      return httplib::Server::HandlerResponse::Handled;
    }
    const Reply r = site.route(req.method, req.path);
    res.status = r.status;
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_header("Cache-Control", "no-store");
    res.set_header("Content-Security-Policy", "default-src 'self'; worker-src 'self'; style-src 'self' 'unsafe-inline'");
    res.set_header("X-Glint-Version", std::to_string(r.version));
    res.set_content(std::string(r.body), std::string(r.content_type));
    return httplib::Server::HandlerResponse::Handled;
  });

  if (opt.port == 0) {
    impl_->port = svr.bind_to_any_port(opt.host);
    if (impl_->port <= 0) throw Error("--host " + opt.host + ": cannot bind a port on this address");
  } else {
    if (!svr.bind_to_port(opt.host, opt.port))
      throw Error("--port " + std::to_string(opt.port) + ": cannot bind " + opt.host + ":" + std::to_string(opt.port) +
                  " (in use, or not an address of this machine)");
    impl_->port = opt.port;
  }
  const std::string shown = opt.host.find(':') != std::string::npos ? "[" + opt.host + "]" : opt.host;
  url_ = "http://" + shown + ":" + std::to_string(impl_->port) + "/";
}

Server::~Server() { stop(); }

void Server::start_background() {
  if (impl_->thread.joinable()) return;
  impl_->listening_done = false;
  // The thread is created with the stop signals blocked (it inherits this thread's mask at
  // that moment, and its workers inherit its own), then this thread's mask is put back.
  const sigset_t s = stop_signals();
  sigset_t old;
  pthread_sigmask(SIG_BLOCK, &s, &old);
  impl_->thread = std::thread([impl = impl_.get()] {
    impl->svr.listen_after_bind();
    impl->listening_done = true;
  });
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

void Server::stop() {
  if (!impl_->thread.joinable()) return;
  impl_->stop_and_wait_for_listen();
  impl_->thread.join();
}

namespace {

// The write end of serve_until_signal's pipe: the handler's only job is one byte into it
// (write is async-signal-safe; stopping the server is not). A handler, not a signal mask,
// because threads started before serving (OpenMP's, from loading a dataset) do not block
// the signals, and the kernel may hand a signal to any of them.
std::atomic<int> g_signal_pipe{-1};
extern "C" void on_stop_signal(int sig) {
  const unsigned char b = static_cast<unsigned char>(sig);
  const int fd = g_signal_pipe.load();
  if (fd >= 0 && write(fd, &b, 1) < 0) {
  }  // nothing to do about a failed write in a handler
}

}  // namespace

int Server::serve_until_signal(const std::function<void()>& on_ready) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw Error("glint view: cannot create a pipe for signal handling");
  g_signal_pipe = fds[1];
  struct sigaction sa {}, old_int {}, old_term {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  // Only now is a stop signal caught: whoever learns the URL from on_ready may send one.
  if (on_ready) on_ready();
  std::atomic<int> got{0};
  impl_->listening_done = false;
  std::thread waiter([&] {
    unsigned char b = 0;
    while (read(fds[0], &b, 1) < 0 && errno == EINTR) {
    }
    got = b;  // 0: the server stopped on its own
    impl_->stop_and_wait_for_listen();
  });
  impl_->svr.listen_after_bind();
  impl_->listening_done = true;
  const unsigned char zero = 0;
  // Stopped on its own: wake the waiter (one byte into an empty pipe cannot block or fail).
  if (got == 0 && write(fds[1], &zero, 1) < 0) {
  }
  waiter.join();
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  g_signal_pipe = -1;
  close(fds[0]);
  close(fds[1]);
  return got;
}

int serve_until_signal(const Site& site, const ServeOptions& opt,
                       const std::function<void(const std::string& url)>& on_listening) {
  Server server(site, opt);
  return server.serve_until_signal([&] { on_listening(server.url()); });
}

}  // namespace glint::view
