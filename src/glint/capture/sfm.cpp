#include "glint/capture/sfm.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>

#include "glint/capture/camera_choice.h"
#include "glint/capture/capture_input.h"
#include "glint/capture/external_tool.h"
#include "glint/capture/video_frames.h"
#include "glint/core/error.h"
#include "glint/io/atomic_file.h"
#include "glint/io/colmap.h"
#include "glint/io/exif.h"
#include "glint/io/image_io.h"

namespace glint::capture {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr int kRecordVersion = 1;
constexpr const char* kPartialMarker = ".glint-sfm-partial";

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// 64-bit FNV-1a, streamed: the identity of the input's bytes for reuse.
class Fingerprint {
 public:
  void add(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) h_ = (h_ ^ p[i]) * 1099511628211ull;
  }
  void add(const std::string& s) {
    add(s.data(), s.size());
    add("\0", 1);
  }
  void add_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path, "cannot read");
    std::vector<char> buf(1 << 20);
    while (in) {
      in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
      add(buf.data(), static_cast<std::size_t>(in.gcount()));
    }
  }
  std::string hex() const {
    char b[17];
    std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(h_));
    return b;
  }

 private:
  unsigned long long h_ = 1469598103934665603ull;
};

// Everything that decides the result besides the input's bytes.
json options_json(const SfmOptions& o) {
  return {{"camera_model", o.camera_model}, {"matcher", o.matcher},          {"frames", o.frames},
          {"max_image_size", o.max_image_size}, {"max_features", o.max_features},
          {"exhaustive_up_to", o.exhaustive_up_to}, {"sequential_overlap", o.sequential_overlap}};
}

std::string input_fingerprint(const CaptureInput& in, const SfmOptions& o) {
  Fingerprint f;
  f.add(in.kind == CaptureKind::kVideo ? "video" : "photos");
  if (in.kind == CaptureKind::kVideo) {
    f.add_file(in.path);
  } else {
    for (const std::string& name : in.images) {
      f.add(name);
      f.add_file((fs::path(in.path) / name).string());
    }
  }
  f.add(options_json(o).dump());
  return f.hex();
}

json summary_json(const SfmSummary& s) {
  json cams = json::array();
  for (const SfmCamera& c : s.cameras)
    cams.push_back({{"model", c.model}, {"width", c.width}, {"height", c.height}, {"focal_px", c.focal_px},
                    {"images", c.images}, {"reason", c.reason}});
  return {{"input", s.input},
          {"video", s.video},
          {"video_frames", s.video_frames},
          {"images", s.images},
          {"registered", s.registered},
          {"models", s.models},
          {"points", s.stats.points},
          {"observations", s.stats.observations},
          {"mean_track_length", s.stats.mean_track_length},
          {"mean_reprojection_error_px", s.stats.mean_reprojection_px},
          {"cameras", cams},
          {"unregistered", s.unregistered},
          {"matcher", s.matcher},
          {"note", s.note},
          {"seconds", {{"frames", s.seconds_frames}, {"features", s.seconds_features},
                       {"matching", s.seconds_matching}, {"mapping", s.seconds_mapping},
                       {"total", s.seconds_total}}}};
}

SfmSummary summary_from_json(const json& j) {
  SfmSummary s;
  s.input = j.value("input", "");
  s.video = j.value("video", false);
  s.video_frames = j.value("video_frames", 0L);
  s.images = j.value("images", 0L);
  s.registered = j.value("registered", 0L);
  s.models = j.value("models", 0L);
  s.stats.points = j.value("points", 0L);
  s.stats.observations = j.value("observations", 0L);
  s.stats.mean_track_length = j.value("mean_track_length", 0.0);
  s.stats.mean_reprojection_px = j.value("mean_reprojection_error_px", 0.0);
  s.stats.registered = s.registered;
  for (const json& c : j.value("cameras", json::array()))
    s.cameras.push_back({c.value("model", ""), c.value("width", 0), c.value("height", 0), c.value("focal_px", 0.0),
                         c.value("images", 0), c.value("reason", "")});
  s.unregistered = j.value("unregistered", std::vector<std::string>{});
  s.matcher = j.value("matcher", "");
  s.note = j.value("note", "");
  const json t = j.value("seconds", json::object());
  s.seconds_frames = t.value("frames", 0.0);
  s.seconds_features = t.value("features", 0.0);
  s.seconds_matching = t.value("matching", 0.0);
  s.seconds_mapping = t.value("mapping", 0.0);
  s.seconds_total = t.value("total", 0.0);
  return s;
}

// A folder's record, or null when it has none (or an unreadable one).
json read_record(const fs::path& dir) {
  std::ifstream in(dir / kSfmRecord);
  if (!in) return nullptr;
  try {
    return json::parse(in);
  } catch (const json::exception&) {
    return nullptr;
  }
}

bool folder_is_empty(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir, ec) && fs::directory_iterator(dir, ec) == fs::directory_iterator();
}

// Links the user's photo into the dataset (no copy on the same filesystem), else copies it.
void link_or_copy(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::create_hard_link(from, to, ec);
  if (!ec) return;
  fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
  if (ec) throw Error(to.string(), "cannot copy " + from.string() + " here: " + ec.message());
}

// A set of images that share one camera.
struct CameraGroup {
  int width = 0, height = 0;
  std::vector<std::string> names;
  double focal_35mm = 0;
  CameraChoice choice;
};

// Photos into work/images and their camera groups. Photos of one size share a camera.
// Sizes that differ by a few pixels (images cropped slightly differently, such as those of
// an undistortion) are centre-cropped to the smallest so that they can share one camera
// too; truly different sizes (portrait and landscape) get a camera each.
std::vector<CameraGroup> stage_photos(const CaptureInput& in, const fs::path& images_dir, bool* cropped) {
  struct Photo {
    std::string name;
    ImageInfo info;
    double focal_35mm = 0;
  };
  std::vector<Photo> photos(in.images.size());
  std::vector<std::string> errors(in.images.size());
#pragma omp parallel for schedule(dynamic)
  for (long i = 0; i < static_cast<long>(photos.size()); ++i) {
    const auto k = static_cast<std::size_t>(i);
    const std::string path = (fs::path(in.path) / in.images[k]).string();
    try {
      photos[k].name = in.images[k];
      photos[k].info = read_image_info(path);
      photos[k].focal_35mm = read_exif(path).focal_35mm;
    } catch (const Error& e) {
      errors[k] = e.what();
    }
  }
  for (const std::string& e : errors)
    if (!e.empty()) throw Error(e);

  int min_w = photos[0].info.width, max_w = min_w, min_h = photos[0].info.height, max_h = min_h;
  bool landscape_mix = false;
  for (const Photo& p : photos) {
    min_w = std::min(min_w, p.info.width);
    max_w = std::max(max_w, p.info.width);
    min_h = std::min(min_h, p.info.height);
    max_h = std::max(max_h, p.info.height);
    landscape_mix |= (p.info.width >= p.info.height) != (photos[0].info.width >= photos[0].info.height);
  }
  const bool crop = (min_w != max_w || min_h != max_h) && !landscape_mix && max_w <= min_w * 1.02 &&
                    max_h <= min_h * 1.02;
  *cropped = crop;
  fs::create_directories(images_dir);
  std::map<std::pair<int, int>, CameraGroup> groups;
  for (std::size_t i = 0; i < photos.size(); ++i) {
    Photo& p = photos[i];
    const fs::path src = fs::path(in.path) / p.name, dst = images_dir / p.name;
    if (crop && (p.info.width != min_w || p.info.height != min_h)) {
      const Image8 full = read_image(src.string());
      Image8 out;
      out.width = min_w;
      out.height = min_h;
      out.channels = full.channels == 4 || full.channels == 2 ? full.channels - 1 : full.channels;
      out.data.resize(static_cast<std::size_t>(min_w) * min_h * out.channels);
      const int x0 = (full.width - min_w) / 2, y0 = (full.height - min_h) / 2;
      for (int y = 0; y < min_h; ++y)
        for (int x = 0; x < min_w; ++x)
          for (int c = 0; c < out.channels; ++c)
            out.row(y)[x * out.channels + c] = full.row(y + y0)[(x + x0) * full.channels + c];
      std::string ext = src.extension().string();
      std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
      write_file_atomic(dst.string(), ext == ".png" ? encode_png(out) : encode_jpeg(out, 95));
      p.info.width = min_w;
      p.info.height = min_h;
    } else {
      link_or_copy(src, dst);
    }
    CameraGroup& g = groups[{p.info.width, p.info.height}];
    g.width = p.info.width;
    g.height = p.info.height;
    g.names.push_back(p.name);
    if (g.focal_35mm == 0) g.focal_35mm = p.focal_35mm;
  }
  std::vector<CameraGroup> out;
  for (auto& [size, g] : groups) out.push_back(std::move(g));
  return out;
}

// One stage's progress from COLMAP's lines into the observer.
struct StageFollower {
  SfmObserver& obs;
  long offset = 0, total = 0;
  void operator()(long done, const std::string& status) const { obs.progress(offset + done, total, status); }
};

class Pipeline {
 public:
  Pipeline(const CaptureInput& in, const fs::path& dataset, const fs::path& work, const SfmOptions& o,
           SfmObserver& obs, const std::atomic<bool>* stop)
      : in_(in), dataset_(dataset), work_(work), o_(o), obs_(obs), stop_(stop) {}

  SfmSummary run() {
    const auto start = std::chrono::steady_clock::now();
    s_.input = in_.path;
    s_.dataset = dataset_.string();
    s_.video = in_.kind == CaptureKind::kVideo;
    fs::create_directories(work_ / "colmap");
    groups_ = s_.video ? stage_video() : stage_images();
    for (CameraGroup& g : groups_) {
      CameraGroupFacts facts{g.width, g.height, static_cast<int>(g.names.size()), s_.video, g.focal_35mm};
      g.choice = choose_camera(facts, o_.camera_model);
      s_.images += static_cast<long>(g.names.size());
    }
    extract(groups_);
    match();
    map();
    s_.seconds_total = seconds_since(start);
    return s_;
  }

 private:
  std::string log(const char* name) const { return (work_ / "colmap" / name).string(); }
  std::string db() const { return (work_ / "colmap" / "database.db").string(); }
  std::string images() const { return (work_ / "images").string(); }

  std::vector<CameraGroup> stage_images() {
    bool cropped = false;
    std::vector<CameraGroup> groups = stage_photos(in_, work_ / "images", &cropped);
    if (cropped)
      s_.note = "image sizes differed by a few pixels: centre-cropped to " + std::to_string(groups[0].width) + "x" +
                std::to_string(groups[0].height) + " to share one camera";
    if (!in_.skipped.empty())
      obs_.note("skipped " + std::to_string(in_.skipped.size()) + " file(s) Glint cannot read (e.g. " + in_.skipped[0] +
                "); convert them to JPEG to include them");
    return groups;
  }

  std::vector<CameraGroup> stage_video() {
    const auto t = std::chrono::steady_clock::now();
    std::string current;
    const FrameSelection sel = extract_sharpest_frames(
        in_.path, images(), o_.frames, log("ffmpeg.log"),
        [&](const char* step, long done, long total) {
          if (current != step) {
            if (!current.empty()) obs_.stage_done("");
            current = step;
            obs_.stage(step, total);
          }
          obs_.progress(done, total, "");
        },
        stop_);
    if (!current.empty()) obs_.stage_done("kept " + std::to_string(sel.kept.size()) + " of " + std::to_string(sel.frames_read) + " frames");
    s_.video_frames = sel.frames_read;
    s_.seconds_frames = seconds_since(t);
    if (sel.frames_read > static_cast<long>(sel.kept.size()))
      s_.note = "kept " + std::to_string(sel.kept.size()) + " of " + std::to_string(sel.frames_read) +
                " frames, the sharpest of each window of about " +
                std::to_string((sel.frames_read + static_cast<long>(sel.kept.size()) - 1) / static_cast<long>(sel.kept.size())) +
                " frames";
    CameraGroup g;
    g.width = sel.width;
    g.height = sel.height;
    g.names = sel.names;
    return {g};
  }

  ToolRun colmap(const std::string& command, const char* log_name) const {
    ToolRun r;
    r.tool = kColmap;
    r.label = "colmap " + command;
    r.log_path = log(log_name);
    r.stop = stop_;
    r.args = {command};
    return r;
  }

  void extract(const std::vector<CameraGroup>& groups) {
    const auto t = std::chrono::steady_clock::now();
    obs_.stage("features", s_.images);
    long offset = 0;
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
      const CameraGroup& g = groups[gi];
      ToolRun r = colmap("feature_extractor", "features.log");
      r.args.insert(r.args.end(),
                    {"--database_path", db(), "--image_path", images(), "--ImageReader.single_camera", "1",
                     "--ImageReader.camera_model", g.choice.model, "--SiftExtraction.use_gpu", "0",
                     "--SiftExtraction.max_image_size", std::to_string(o_.max_image_size),
                     "--SiftExtraction.max_num_features", std::to_string(o_.max_features)});
      const std::string params = camera_params(g.choice.model, g.choice.focal_px, g.width, g.height);
      if (!params.empty()) r.args.insert(r.args.end(), {"--ImageReader.camera_params", params});
      if (groups.size() > 1) {
        const std::string list = (work_ / "colmap" / ("camera_" + std::to_string(gi + 1) + "_images.txt")).string();
        std::string text;
        for (const std::string& n : g.names) text += n + "\n";
        write_file_atomic(list, text);
        r.args.insert(r.args.end(), {"--image_list_path", list});
      }
      StageFollower follow{obs_, offset, s_.images};
      r.on_line = [&](const std::string& line) {
        if (auto c = parse_extracted(line)) follow(c->done, "");
      };
      run_tool(r);
      offset += static_cast<long>(g.names.size());
    }
    s_.seconds_features = seconds_since(t);
    obs_.stage_done(std::to_string(s_.images) + " images");
  }

  void match() {
    const auto t = std::chrono::steady_clock::now();
    std::string m = o_.matcher;
    if (m.empty()) {
      m = s_.video || s_.images > o_.exhaustive_up_to ? "sequential" : "exhaustive";
      if (!s_.video && m == "sequential") {
        sequential_by_default_ = true;
        obs_.note(std::to_string(s_.images) + " photos: matching each with those less than " +
                  std::to_string(o_.sequential_overlap) +
                  " places after it in name order and those 16, 32, 64, ... places after (sequential); "
                  "--matcher exhaustive matches every pair");
      }
    }
    s_.matcher = m;
    ToolRun r = colmap(m + "_matcher", "matching.log");
    r.args.insert(r.args.end(), {"--database_path", db(), "--SiftMatching.use_gpu", "0"});
    if (m == "exhaustive") {
      // Blocks of about an eighth of the images give the progress bar steps to count.
      const long block = std::max<long>(10, (s_.images + 7) / 8);
      r.args.insert(r.args.end(), {"--ExhaustiveMatching.block_size", std::to_string(block)});
    } else {
      // Loop detection would need a vocabulary tree, a download: off. The quadratic overlap's
      // far pairs (2^k images apart) close a capture's loops instead.
      r.args.insert(r.args.end(), {"--SequentialMatching.overlap", std::to_string(o_.sequential_overlap),
                                   "--SequentialMatching.quadratic_overlap", "1",
                                   "--SequentialMatching.loop_detection", "0"});
    }
    obs_.stage("matching", 0);
    r.on_line = [&](const std::string& line) {
      if (auto c = parse_matched(line)) obs_.progress(c->done, c->total, "");
    };
    run_tool(r);
    s_.seconds_matching = seconds_since(t);
    obs_.stage_done(m);
  }

  void map() {
    const auto t = std::chrono::steady_clock::now();
    const fs::path models = work_ / "colmap" / "models";
    fs::create_directories(models);
    ToolRun r = colmap("mapper", "mapping.log");
    r.args.insert(r.args.end(), {"--database_path", db(), "--image_path", images(), "--output_path", models.string()});
    obs_.stage("mapping", s_.images);
    long best_so_far = 0;
    bool no_model = false;
    r.on_line = [&](const std::string& line) {
      // COLMAP 3.8 exits 1 with this when no image pair could start a model.
      if (line.find("failed to create sparse model") != std::string::npos) no_model = true;
      if (auto k = parse_registered(line)) {
        obs_.progress(*k, s_.images, "registered " + std::to_string(*k) + " of " + std::to_string(s_.images) +
                                         (best_so_far > 0 ? " (earlier model: " + std::to_string(best_so_far) + ")" : ""));
        current_ = *k;
      } else if (starts_new_model(line)) {
        best_so_far = std::max(best_so_far, current_);
        current_ = 0;
      }
    };
    try {
      run_tool(r);
    } catch (const Error&) {
      if (!no_model) throw;  // the "registered none" error below says it better
    }
    s_.seconds_mapping = seconds_since(t);

    // The largest model: the one with the most registered images.
    fs::path best;
    std::size_t best_images = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(models, ec)) {
      if (!e.is_directory() || !has_colmap_model(e.path().string())) continue;
      ++s_.models;
      const ColmapModel m = read_colmap_model(e.path().string());
      if (m.images.size() > best_images) {
        best_images = m.images.size();
        best = e.path();
      }
    }
    obs_.stage_done("registered " + std::to_string(best_images) + " of " + std::to_string(s_.images));
    if (best.empty())
      throw Error(in_.path, "COLMAP registered none of the " + std::to_string(s_.images) + " images: the " +
                                std::string(s_.video ? "video needs slower motion and more overlap between frames"
                                                     : "photos need more overlap (each part of the scene seen from several nearby viewpoints)") +
                                "; COLMAP's output is in " + log("mapping.log"));
    fs::create_directories(work_ / "sparse");
    fs::rename(best, work_ / "sparse" / "0");
    const ColmapModel kept = read_colmap_model((work_ / "sparse" / "0").string());
    s_.registered = static_cast<long>(kept.images.size());
    std::map<std::uint32_t, int> per_camera;
    std::vector<std::string> registered;
    for (const ColmapImage& im : kept.images) {
      ++per_camera[im.camera_id];
      registered.push_back(im.name);
    }
    for (const auto& [id, cam] : kept.cameras) {
      if (!per_camera.count(id)) continue;
      SfmCamera c;
      c.model = cam.model;
      c.width = cam.k.width;
      c.height = cam.k.height;
      c.focal_px = 0.5 * (cam.k.fx + cam.k.fy);
      c.images = per_camera[id];
      // Each extraction run made one camera, numbered in run order in a fresh database.
      if (id >= 1 && id <= groups_.size()) c.reason = groups_[id - 1].choice.reason;
      s_.cameras.push_back(c);
    }
    std::sort(registered.begin(), registered.end());
    for (const CameraGroup& g : groups_)
      for (const std::string& n : g.names)
        if (!std::binary_search(registered.begin(), registered.end(), n)) s_.unregistered.push_back(n);
    std::sort(s_.unregistered.begin(), s_.unregistered.end());
    if (sequential_by_default_ && !s_.unregistered.empty()) {
      const std::string hint = "photos matched in name order (sequential) left " +
                               std::to_string(s_.unregistered.size()) +
                               " unregistered: if their names are not in capture order, --matcher exhaustive "
                               "matches every pair";
      s_.note = s_.note.empty() ? hint : s_.note + "; " + hint;
    }

    ToolRun a = colmap("model_analyzer", "model_analyzer.log");
    a.args.insert(a.args.end(), {"--path", (work_ / "sparse" / "0").string()});
    a.on_line = [&](const std::string& line) { parse_model_stat(line, s_.stats); };
    run_tool(a);
  }

  const CaptureInput& in_;
  fs::path dataset_, work_;
  const SfmOptions& o_;
  SfmObserver& obs_;
  const std::atomic<bool>* stop_;
  SfmSummary s_;
  long current_ = 0;
  bool sequential_by_default_ = false;
  std::vector<CameraGroup> groups_;
};

}  // namespace

SfmSummary run_sfm(const std::string& input, const std::string& dataset_dir, const SfmOptions& options,
                   SfmObserver& observer, const std::atomic<bool>* stop) {
  const CaptureInput in = open_capture(input);
  // Every tool the run needs, before any work.
  find_tool(kColmap);
  if (in.kind == CaptureKind::kVideo) {
    find_tool(kFfmpeg);
    find_tool(kFfprobe);
  }
  if (options.frames <= 0) throw Error("--frames", "must be at least 1");
  if (!options.camera_model.empty()) choose_camera({1, 1, 1, false, 0}, options.camera_model);  // validates
  if (!options.matcher.empty() && options.matcher != "exhaustive" && options.matcher != "sequential")
    throw Error("--matcher " + options.matcher, "choose exhaustive or sequential");

  const fs::path dataset = fs::path(dataset_dir).lexically_normal();
  if (dataset.filename().empty()) throw Error(dataset_dir, "not a folder name");
  const std::string fingerprint = input_fingerprint(in, options);
  std::error_code ec;
  const bool exists = fs::exists(dataset, ec);
  if (exists) {
    const json record = read_record(dataset);
    if (record.is_null()) {
      if (!folder_is_empty(dataset))
        throw Error(dataset.string(), "exists and holds no glint sfm result (" + std::string(kSfmRecord) +
                                          "); choose another output folder");
    } else if (!options.redo && record.value("fingerprint", "") == fingerprint &&
               has_colmap_model((dataset / "sparse" / "0").string())) {
      SfmSummary s = summary_from_json(record.value("summary", json::object()));
      s.dataset = dataset.string();
      s.reused = true;
      observer.finished(s);
      return s;
    } else if (!options.redo) {
      throw Error(dataset.string(), "holds the SfM result of other images or settings; pass --redo-sfm to replace it, "
                                    "or choose another output folder");
    }
  }

  // Work beside the target, renamed into place at the end: an interrupted or failed run
  // never leaves a half result where a finished one is looked for.
  const fs::path work = dataset.string() + ".partial";
  if (fs::exists(work, ec)) {
    if (!fs::exists(work / kPartialMarker, ec))
      throw Error(work.string(), "exists and is not an unfinished glint sfm folder; move it away");
    fs::remove_all(work, ec);
    if (ec) throw Error(work.string(), "cannot remove an earlier unfinished run: " + ec.message());
  }
  if (!dataset.parent_path().empty()) fs::create_directories(dataset.parent_path(), ec);
  fs::create_directories(work, ec);
  if (ec) throw Error(work.string(), "cannot create: " + ec.message());
  write_file_atomic((work / kPartialMarker).string(), "an unfinished glint sfm run; safe to delete\n");

  Pipeline p(in, dataset, work, options, observer, stop);
  SfmSummary s = p.run();
  std::optional<Error> too_few;
  const long needed = std::max<long>(3, static_cast<long>(std::ceil(options.min_registered * static_cast<double>(s.images))));
  if (s.registered < needed) {
    too_few = Error(input, "only " + std::to_string(s.registered) + " of " + std::to_string(s.images) +
                               " images were registered by SfM (at least " + std::to_string(needed) + " needed): the " +
                               (s.video ? "video needs slower motion and more overlap between frames"
                                        : "photos need more overlap (each part of the scene seen from several nearby viewpoints)") +
                               "; the partial model is in " + (dataset / "sparse" / "0").string());
  }

  json record = {{"version", kRecordVersion}, {"fingerprint", fingerprint}, {"options", options_json(options)},
                 {"summary", summary_json(s)}};
  write_file_atomic((work / kSfmRecord).string(), record.dump(2) + "\n");
  fs::remove(work / kPartialMarker, ec);
  // Into place: the old result (only ever a glint sfm folder or an empty one) goes last.
  const fs::path old = dataset.string() + ".old";
  if (exists) {
    fs::remove_all(old, ec);
    fs::rename(dataset, old, ec);
    if (ec) throw Error(dataset.string(), "cannot replace: " + ec.message());
  }
  fs::rename(work, dataset, ec);
  if (ec) throw Error(dataset.string(), "cannot move the finished result from " + work.string() + ": " + ec.message());
  if (exists) fs::remove_all(old, ec);
  s.dataset = dataset.string();
  observer.finished(s);
  if (too_few) throw *too_few;
  return s;
}

}  // namespace glint::capture
