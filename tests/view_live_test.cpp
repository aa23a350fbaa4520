// The live view's moving parts: a Site that changes while it is read, the publisher that
// a training run's observer feeds, and the background server that leaves Ctrl-C to the process.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "glint/view/model_blob.h"
#include "glint/view/model_publisher.h"
#include "glint/view/server.h"
#include "glint/view/site.h"
#include "glint/view/splat_ao_blob.h"
#include "model_fixture.h"

using glint::view::Site;
using glint::view::SiteFile;

namespace {

nlohmann::json version_of(const Site& site) {
  return nlohmann::json::parse(std::string(site.route("GET", "/api/version").body));
}

// One GET over a raw socket: status line and body.
std::string http_get(int port, const std::string& path) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return "connect failed";
  }
  const std::string req = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                          "\r\nConnection: close\r\n\r\n";
  if (write(fd, req.data(), req.size()) != static_cast<ssize_t>(req.size())) {
    close(fd);
    return "write failed";
  }
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  close(fd);
  return out;
}

int port_of(const std::string& url) { return std::stoi(url.substr(url.rfind(':') + 1)); }

std::atomic<int> g_sigints{0};
extern "C" void count_sigint(int) { ++g_sigints; }

}  // namespace

TEST(ViewSiteLive, PublishReplacesFilesAndBumpsTheVersion) {
  Site site;
  site.add("/api/cameras.json", "[]", "application/json");
  EXPECT_EQ(site.version(), 0u);
  EXPECT_EQ(version_of(site)["version"], 0);
  EXPECT_TRUE(version_of(site)["status"].is_null());
  EXPECT_EQ(site.route("GET", "/api/model.bin").status, 404);

  EXPECT_EQ(site.publish({{"/api/model.bin", "first", "application/octet-stream"}}, "{\"step\": 10}"), 1u);
  auto first = site.route("GET", "/api/model.bin");
  EXPECT_EQ(first.status, 200);
  EXPECT_EQ(first.version, 1u);
  EXPECT_EQ(first.body, "first");
  EXPECT_EQ(version_of(site)["version"], 1);
  EXPECT_EQ(version_of(site)["status"]["step"], 10);

  EXPECT_EQ(site.publish({{"/api/model.bin", "second", "application/octet-stream"}}), 2u);
  // A reply made before the swap still holds the bytes it answers with.
  EXPECT_EQ(first.body, "first");
  EXPECT_EQ(site.route("GET", "/api/model.bin").body, "second");
  EXPECT_EQ(site.route("GET", "/api/model.bin").version, 2u);
  EXPECT_TRUE(version_of(site)["status"].is_null());
  EXPECT_EQ(site.route("GET", "/api/cameras.json").body, "[]");  // untouched files stay
  EXPECT_EQ(site.route("POST", "/api/version").status, 405);
}

TEST(ViewSiteLive, ReadersDuringPublicationsSeeWholeConsistentFiles) {
  Site site;
  // Every publication writes two files that name its version; a reader that sees a mix,
  // a torn body, or a version going backwards has found a race. (Without the lock the
  // reads here mostly still come out whole; a thread sanitizer reports that race at once.)
  auto body = [](std::uint64_t v, char c) { return std::string(100000, c) + std::to_string(v); };
  site.publish({{"/a", body(1, 'a'), "text/plain"}, {"/b", body(1, 'b'), "text/plain"}});
  std::atomic<bool> done{false};
  std::atomic<long> bad{0}, reads{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t)
    readers.emplace_back([&] {
      std::uint64_t last = 0;
      while (!done) {
        const auto a = site.route("GET", "/a");
        if (a.version < last || std::string(a.body) != body(a.version, 'a')) ++bad;
        // /b is at least as new as the /a read before it
        const auto b = site.route("GET", "/b");
        const std::uint64_t vb = std::stoull(std::string(b.body.substr(100000)));
        if (vb < a.version || b.version < a.version) ++bad;
        last = a.version;
        ++reads;
      }
    });
  // At least 200 publications, and on until the readers have read during them (on a busy
  // machine the readers' threads may start late).
  std::uint64_t v = 1;
  while (v < 200 || reads < 1000) {
    ++v;  // each round's files name the version that publish() is about to return
    site.publish({{"/a", body(v, 'a'), "text/plain"}, {"/b", body(v, 'b'), "text/plain"}});
  }
  done = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(site.version(), v);
}

TEST(ViewModelPublisher, PublishesOnTheClockAndWhenForced) {
  Site site;
  double now = 0;
  glint::view::ModelPublisher pub(site, 2.0, [&] { return now; });
  glint::GaussianModel m = glint::test::random_model(5, 1);
  glint::view::LiveStatus st;
  st.steps = 10;
  for (long s = 1; s <= 9; ++s) {
    st.step = s;
    now = 0.75 * static_cast<double>(s);  // 0.75 s a step
    // published at the first offer, then each time 2 s have passed since the last:
    // 0.75 s (step 1), 3.0 s (step 4), 5.25 s (step 7)
    const bool expected = s == 1 || s == 4 || s == 7;
    EXPECT_EQ(pub.offer(m, st), expected) << s;
    EXPECT_EQ(pub.published_step() == s, expected) << s;
  }
  EXPECT_EQ(site.version(), 3u);
  auto status = version_of(site)["status"];
  EXPECT_EQ(status["live"], true);
  EXPECT_EQ(status["state"], "training");
  EXPECT_EQ(status["step"], 7);
  EXPECT_EQ(status["steps"], 10);
  EXPECT_EQ(status["splats"], 5);
  m = glint::test::random_model(7, 1);  // densified
  st.step = 10;
  st.state = "done";
  now = 7.0;  // under 2 s after the last publication
  EXPECT_FALSE(pub.offer(m, st));
  EXPECT_TRUE(pub.offer(m, st, true));
  EXPECT_EQ(site.version(), 4u);
  EXPECT_EQ(version_of(site)["status"]["state"], "done");
  EXPECT_EQ(version_of(site)["status"]["splats"], 7);
  EXPECT_EQ(pub.published_state(), "done");
  EXPECT_EQ(site.route("GET", "/api/model.bin").body, glint::view::encode_model_blob(m));
}

TEST(ViewModelPublisher, ZeroIntervalPublishesEveryOffer) {
  Site site;
  glint::view::ModelPublisher pub(site, 0.0, [] { return 0.0; });
  glint::GaussianModel m = glint::test::random_model(3, 0);
  for (long s = 1; s <= 4; ++s) EXPECT_TRUE(pub.offer(m, {"training", s, 4, 0.1, 0}));
  EXPECT_EQ(site.version(), 4u);
}

// A live model's AO: baked off the caller's thread and published with the model it belongs
// to, in one publication (the same version on both replies); the newest snapshot wins.
TEST(ViewModelPublisher, BackgroundBakingPublishesEachModelWithItsSplatAo) {
  Site site;
  glint::view::ModelPublisher pub(site, 0.0, [] { return 0.0; }, glint::view::AoBaking::Background);
  const glint::GaussianModel a = glint::test::random_model(40, 1);
  EXPECT_TRUE(pub.offer(a, {"training", 1, 3, 0.1, 0}));
  pub.wait_published();
  const auto check = [&](const glint::GaussianModel& m, std::uint64_t version, long step) {
    const auto model = site.route("GET", "/api/model.bin");
    const auto ao = site.route("GET", "/api/splat_ao.bin");
    ASSERT_EQ(model.status, 200);
    ASSERT_EQ(ao.status, 200);
    EXPECT_EQ(model.version, version);
    EXPECT_EQ(ao.version, version);
    EXPECT_EQ(model.body, glint::view::encode_model_blob(m));
    // what glint view bakes for a fixed model at load
    auto backend = glint::make_cpu_backend(1);
    EXPECT_EQ(ao.body, glint::view::encode_splat_ao_blob(glint::view::render_page_ao_maps(*backend, m), m));
    EXPECT_EQ(version_of(site)["status"]["step"], step);
  };
  check(a, 1, 1);
  // Offers faster than the bakes: the last one is what ends up served.
  const glint::GaussianModel b = glint::test::random_model(60, 1);
  const glint::GaussianModel c = glint::test::random_model(70, 0);
  EXPECT_TRUE(pub.offer(b, {"training", 2, 3, 0.1, 0}));
  EXPECT_TRUE(pub.offer(c, {"done", 3, 3, 0.1, 0}));
  pub.wait_published();
  EXPECT_EQ(version_of(site)["status"]["state"], "done");
  check(c, site.version(), 3);
  EXPECT_LE(site.version(), 3u);
}

TEST(ViewServer, BackgroundServerAnswersAndLeavesSigintToTheProcess) {
  Site site;
  site.publish({{"/api/model.bin", "blob-1", "application/octet-stream"}});
  glint::view::Server server(site, {});
  server.start_background();
  const int port = port_of(server.url());
  const std::string r1 = http_get(port, "/api/model.bin");
  EXPECT_NE(r1.find("200 OK"), std::string::npos) << r1;
  EXPECT_NE(r1.find("X-Glint-Version: 1"), std::string::npos) << r1;
  EXPECT_NE(r1.find("blob-1"), std::string::npos);
  site.publish({{"/api/model.bin", "blob-2", "application/octet-stream"}});
  const std::string r2 = http_get(port, "/api/model.bin");
  EXPECT_NE(r2.find("blob-2"), std::string::npos) << r2;
  EXPECT_NE(http_get(port, "/api/version").find("\"version\": 2"), std::string::npos);

  // The process's own SIGINT handler still runs (as glint train's, which checkpoints).
  g_sigints = 0;
  auto old = std::signal(SIGINT, count_sigint);
  kill(getpid(), SIGINT);
  for (int i = 0; i < 200 && g_sigints == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::signal(SIGINT, old);
  EXPECT_EQ(g_sigints.load(), 1);
  EXPECT_NE(http_get(port, "/index.html").find("200 OK"), std::string::npos);  // still serving
  server.stop();
  EXPECT_EQ(http_get(port, "/index.html"), "connect failed");
}
