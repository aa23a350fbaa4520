#include "glint/train/checkpoint.h"

#include <bit>
#include <cstring>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "glint/core/error.h"
#include "glint/io/atomic_file.h"
#include "glint/io/byte_reader.h"
#include "glint/io/file_bytes.h"

namespace glint {

static_assert(std::endian::native == std::endian::little, "checkpoints are written in native (little) endian");

namespace {

constexpr char kMagic[8] = {'G', 'L', 'I', 'N', 'T', 'C', 'K', 'P'};

template <class T>
void put(std::string& s, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  s.append(b, sizeof(T));
}

void put_name(std::string& s, const std::string& name) {
  put<std::uint32_t>(s, static_cast<std::uint32_t>(name.size()));
  s += name;
}

void put_section(std::string& out, const char tag[4], const std::string& payload) {
  out.append(tag, 4);
  put<std::uint64_t>(out, payload.size());
  out += payload;
}

std::string read_name(ByteReader& r, const char* what) {
  auto len = r.read<std::uint32_t>(what);
  r.check_count(len, 1, what);
  std::string s;
  s.resize(len);
  for (auto& c : s) c = r.read<char>(what);
  return s;
}

}  // namespace

std::uint64_t fnv1a64(const char* data, std::size_t size) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (std::size_t i = 0; i < size; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string serialize_checkpoint(const TrainCheckpoint& c) {
  SplatSet& set = const_cast<SplatSet&>(c.splats);  // arrays() only to read
  std::string out(kMagic, 8);
  put<std::uint32_t>(out, kCheckpointVersion);

  std::string meta;
  put<std::int64_t>(meta, c.step);
  put<std::int32_t>(meta, set.model.sh_degree);
  put<std::uint64_t>(meta, set.size());
  put_section(out, "META", meta);

  std::string rng;
  for (std::uint64_t w : c.rng.state()) put<std::uint64_t>(rng, w);
  put_section(out, "RNG_", rng);
  put_section(out, "OPTS", c.options_json);

  std::string adam;
  const AdamOptions& ao = set.adam.options();
  put<float>(adam, ao.beta1);
  put<float>(adam, ao.beta2);
  put<float>(adam, ao.eps);
  put<std::uint32_t>(adam, static_cast<std::uint32_t>(set.adam.groups().size()));
  for (const AdamMoments& g : set.adam.groups()) {
    put_name(adam, g.name);
    put<std::int32_t>(adam, g.width);
    put<std::uint64_t>(adam, g.step);
  }
  put_section(out, "ADAM", adam);

  for (const SplatArray& a : set.arrays()) {
    std::string p;
    put_name(p, a.name);
    put<std::int32_t>(p, a.width);
    put<std::uint64_t>(p, a.data->size());
    p.append(reinterpret_cast<const char*>(a.data->data()), a.data->size() * sizeof(float));
    put_section(out, "ARRY", p);
  }
  put<std::uint64_t>(out, fnv1a64(out.data(), out.size()));
  return out;
}

TrainCheckpoint parse_checkpoint(const std::string& bytes, const std::string& name) {
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kMagic, 8) != 0)
    throw Error(name, "not a Glint checkpoint (no GLINTCKP signature)");
  if (bytes.size() < 8 + 4 + 8) throw Error(name, "truncated checkpoint");
  const std::size_t body = bytes.size() - 8;
  std::uint64_t stored;
  std::memcpy(&stored, bytes.data() + body, 8);
  if (stored != fnv1a64(bytes.data(), body)) throw Error(name, "corrupted or truncated checkpoint (checksum mismatch)");

  const std::string content = bytes.substr(0, body);
  ByteReader r(content, name);
  r.skip(8, "signature");
  const auto version = r.read<std::uint32_t>("version");
  if (version != kCheckpointVersion)
    throw Error(name, "checkpoint version " + std::to_string(version) + " (this build reads " +
                          std::to_string(kCheckpointVersion) + ")");

  TrainCheckpoint c;
  bool have_meta = false, have_rng = false, have_adam = false;
  std::uint64_t n = 0;
  std::map<std::string, std::pair<int, std::vector<float>*>> wanted;  // per-splat arrays not yet read
  std::set<std::string> seen;
  while (!r.at_end()) {
    char tag[5] = {};
    for (int i = 0; i < 4; ++i) tag[i] = r.read<char>("section tag");
    const auto size = r.read<std::uint64_t>("section size");
    if (size > r.remaining()) throw Error(name, std::string("truncated checkpoint: section ") + tag);
    const std::string payload = content.substr(content.size() - r.remaining(), static_cast<std::size_t>(size));
    r.skip(size, "section");
    ByteReader p(payload, name);
    const std::string t = tag;
    if (t == "META") {
      if (have_meta) throw Error(name, "corrupted checkpoint: two META sections");
      c.step = static_cast<long>(p.read<std::int64_t>("step"));
      const auto deg = p.read<std::int32_t>("SH degree");
      n = p.read<std::uint64_t>("splat count");
      if (deg < 0 || deg > kMaxShDegree) throw Error(name, "corrupted checkpoint: SH degree " + std::to_string(deg));
      // Every splat needs at least its parameters in the file: refuse before allocating.
      std::uint64_t per_splat = 0;
      for (int w : kParamGroupWidths) per_splat += 3ull * static_cast<std::uint64_t>(w) * sizeof(float);
      if (n > bytes.size() / per_splat)
        throw Error(name, "corrupted checkpoint: " + std::to_string(n) + " splats cannot fit in the file");
      GaussianModel m;
      m.sh_degree = deg;
      m.resize(static_cast<std::size_t>(n));
      c.splats = SplatSet(std::move(m));
      for (const SplatArray& a : c.splats.arrays()) wanted[a.name] = {a.width, a.data};
      have_meta = true;
    } else if (t == "RNG_") {
      Rng::State s;
      for (auto& w : s) w = p.read<std::uint64_t>("RNG state");
      c.rng.set_state(s);
      have_rng = true;
    } else if (t == "OPTS") {
      c.options_json = payload;
    } else if (t == "ADAM") {
      if (!have_meta) throw Error(name, "corrupted checkpoint: ADAM before META");
      AdamOptions ao;
      ao.beta1 = p.read<float>("Adam beta1");
      ao.beta2 = p.read<float>("Adam beta2");
      ao.eps = p.read<float>("Adam eps");
      c.splats.adam.set_options(ao);
      const auto groups = p.read<std::uint32_t>("Adam group count");
      if (groups != c.splats.adam.groups().size())
        throw Error(name, "corrupted checkpoint: " + std::to_string(groups) + " Adam groups");
      for (AdamMoments& g : c.splats.adam.groups()) {
        const std::string gname = read_name(p, "Adam group name");
        const auto width = p.read<std::int32_t>("Adam group width");
        if (gname != g.name || width != g.width)
          throw Error(name, "corrupted checkpoint: Adam group " + gname + " where " + g.name + " was expected");
        g.step = p.read<std::uint64_t>("Adam step");
      }
      have_adam = true;
    } else if (t == "ARRY") {
      if (!have_meta) throw Error(name, "corrupted checkpoint: array before META");
      const std::string aname = read_name(p, "array name");
      const auto width = p.read<std::int32_t>("array width");
      const auto count = p.read<std::uint64_t>("array size");
      auto it = wanted.find(aname);
      if (it == wanted.end())
        throw Error(name, "corrupted checkpoint: " + std::string(seen.count(aname) ? "repeated" : "unknown") +
                              " array " + aname);
      if (width != it->second.first || count != n * static_cast<std::uint64_t>(width))
        throw Error(name, "corrupted checkpoint: array " + aname + " has " + std::to_string(count) +
                              " values of width " + std::to_string(width) + " for " + std::to_string(n) + " splats");
      p.check_count(count, sizeof(float), aname.c_str());
      std::vector<float>& dst = *it->second.second;
      if (count > 0) std::memcpy(dst.data(), payload.data() + (payload.size() - p.remaining()), count * sizeof(float));
      p.skip(count * sizeof(float), "array values");
      seen.insert(aname);
      wanted.erase(it);
    }
    // Other tags: sections of a later writer that this reader does not need.
  }
  if (!have_meta || !have_rng || !have_adam)
    throw Error(name, std::string("incomplete checkpoint: no ") + (!have_meta ? "META" : !have_rng ? "RNG_" : "ADAM") +
                          " section");
  if (!wanted.empty()) throw Error(name, "incomplete checkpoint: array " + wanted.begin()->first + " missing");
  c.splats.check_consistent();
  return c;
}

void save_checkpoint(const std::string& path, const TrainCheckpoint& ckpt) {
  write_file_atomic(path, serialize_checkpoint(ckpt));
}

TrainCheckpoint load_checkpoint(const std::string& path) { return parse_checkpoint(read_file_bytes(path), path); }

GaussianModel checkpoint_model(TrainCheckpoint ckpt) {
  GaussianModel m = std::move(ckpt.splats.model);
  const nlohmann::json o = nlohmann::json::parse(ckpt.options_json, nullptr, false);
  m.antialiased = o.is_object() && o.value("antialiased", false);
  return m;
}

}  // namespace glint
