#include "glint/capture/external_tool.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <sstream>

#include "glint/core/error.h"

extern char** environ;

namespace glint::capture {

namespace {

bool is_executable_file(const std::string& p) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

// Splits arriving bytes into lines at '\n' or '\r' (ffmpeg and progress bars redraw with
// '\r'); empty lines are dropped.
class LineSplitter {
 public:
  template <class F>
  void feed(const char* data, std::size_t n, F&& emit) {
    for (std::size_t i = 0; i < n; ++i) {
      const char c = data[i];
      if (c == '\n' || c == '\r') {
        if (!pending_.empty()) emit(pending_);
        pending_.clear();
      } else {
        pending_.push_back(c);
      }
    }
  }
  template <class F>
  void flush(F&& emit) {
    if (!pending_.empty()) emit(pending_);
    pending_.clear();
  }

 private:
  std::string pending_;
};

struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (::pipe2(fd, O_CLOEXEC) != 0) throw Error(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  ~Pipe() { close_both(); }
  void close_end(int i) {
    if (fd[i] >= 0) ::close(fd[i]);
    fd[i] = -1;
  }
  void close_both() {
    close_end(0);
    close_end(1);
  }
};

// Ends the child (if it still runs) and reaps it; returns its wait status.
int finish_child(pid_t pid, bool kill_it) {
  if (kill_it) ::kill(pid, SIGTERM);
  int status = 0;
  for (int waited = 0;; ++waited) {
    const pid_t r = ::waitpid(pid, &status, kill_it ? WNOHANG : 0);
    if (r == pid) return status;
    if (r < 0 && errno != EINTR) return status;
    if (kill_it) {
      if (waited == 50) ::kill(pid, SIGKILL);  // 5 s after SIGTERM
      ::usleep(100000);
    }
  }
}

std::string strip_glog_prefix(const std::string& line) {
  // glog: a severity letter, MMDD, a time, a thread id, "file:line] message".
  if (line.size() > 6 && std::strchr("IWEF", line[0]) && std::isdigit(static_cast<unsigned char>(line[1]))) {
    const auto close = line.find("] ");
    if (close != std::string::npos && close < 80) return line.substr(close + 2);
  }
  return line;
}

}  // namespace

std::string find_tool(const Tool& tool) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    const std::string candidate = dir + "/" + tool.program;
    if (is_executable_file(candidate)) return candidate;
  }
  throw Error(tool.program, "not found on PATH; install it with: sudo apt-get install " + tool.apt_package);
}

std::string last_meaningful_line(const std::vector<std::string>& lines) {
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    std::string s = strip_glog_prefix(*it);
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    s = s.substr(first);
    // Banners and elapsed-time lines say nothing about what went wrong.
    if (s.find_first_not_of("=-*") == std::string::npos) continue;
    if (s.rfind("Elapsed time", 0) == 0) continue;
    if (s.rfind("*** Check failure stack trace", 0) == 0) continue;
    if (s.rfind("@ ", 0) == 0) continue;  // glog's stack frames
    if (s.size() > 300) s = s.substr(0, 300) + "...";
    return s;
  }
  return "(no output)";
}

void run_tool(const ToolRun& run) {
  const std::string exe = find_tool(run.tool);
  const std::string label = run.label.empty() ? run.tool.program : run.label;
  std::ofstream log;
  if (!run.log_path.empty()) {
    log.open(run.log_path, std::ios::app);
    if (!log) throw Error(run.log_path, "cannot write the log of " + label);
    log << "$ " << exe;
    for (const std::string& a : run.args) log << " " << a;
    log << "\n";
  }

  Pipe out, err;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], 1);
  // Text mode: one pipe for both streams keeps their lines in the order they were written.
  posix_spawn_file_actions_adddup2(&actions, run.on_stdout_data ? err.fd[1] : out.fd[1], 2);
  std::vector<std::string> args_storage{exe};
  args_storage.insert(args_storage.end(), run.args.begin(), run.args.end());
  std::vector<char*> argv;
  for (std::string& a : args_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw Error(exe, std::string("cannot start ") + label + ": " + std::strerror(rc));
  out.close_end(1);
  err.close_end(1);
  if (!run.on_stdout_data) err.close_end(0);

  std::deque<std::string> tail;
  auto on_line = [&](const std::string& line) {
    if (log) log << line << '\n';
    tail.push_back(line);
    if (tail.size() > 40) tail.pop_front();
    if (run.on_line) run.on_line(line);
  };
  LineSplitter out_lines, err_lines;
  bool stopped = false;
  try {
    std::vector<char> buf(1 << 16);
    while (out.fd[0] >= 0 || err.fd[0] >= 0) {
      if (run.stop && run.stop->load()) {
        stopped = true;
        break;
      }
      pollfd fds[2];
      int nfds = 0;
      for (int fd : {out.fd[0], err.fd[0]})
        if (fd >= 0) fds[nfds++] = pollfd{fd, POLLIN, 0};
      const int ready = ::poll(fds, static_cast<nfds_t>(nfds), 200);
      if (ready < 0) {
        if (errno == EINTR) continue;
        throw Error(label, std::string("cannot read its output: ") + std::strerror(errno));
      }
      for (int i = 0; i < nfds; ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        const ssize_t n = ::read(fds[i].fd, buf.data(), buf.size());
        if (n < 0 && errno == EINTR) continue;
        const bool is_out = fds[i].fd == out.fd[0];
        if (n <= 0) {
          if (is_out) {
            if (!run.on_stdout_data) out_lines.flush(on_line);
            out.close_end(0);
          } else {
            err_lines.flush(on_line);
            err.close_end(0);
          }
          continue;
        }
        const auto size = static_cast<std::size_t>(n);
        if (is_out && run.on_stdout_data) {
          run.on_stdout_data(buf.data(), size);
        } else {
          (is_out ? out_lines : err_lines).feed(buf.data(), size, on_line);
        }
      }
    }
  } catch (...) {
    finish_child(pid, true);
    throw;
  }
  const int status = finish_child(pid, stopped);
  if (stopped) {
    if (log) log << "(stopped by Ctrl-C)\n";
    throw Interrupted();
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  // A program killed by the Ctrl-C that was meant for us too.
  if (run.stop && run.stop->load()) throw Interrupted();
  std::string how = WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                      : std::string("killed by signal ") + ::strsignal(WTERMSIG(status));
  std::string msg = label + " failed (" + how + "): " +
                    last_meaningful_line(std::vector<std::string>(tail.begin(), tail.end()));
  if (!run.log_path.empty()) msg += "; full output in " + run.log_path;
  throw Error(msg);
}

}  // namespace glint::capture
