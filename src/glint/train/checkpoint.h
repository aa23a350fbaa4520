#pragma once
// Training checkpoints: everything needed to continue a run bit for bit.
//
// Layout (little-endian): "GLINTCKP", u32 version, then sections, each a 4-byte tag, a u64
// payload size and the payload, then a u64 FNV-1a hash of every byte before it.
//   META  i64 step, i32 sh_degree, u64 splat count
//   RNG_  4 x u64 (Rng state)
//   OPTS  the training options as JSON text (compared by the caller on resume)
//   ADAM  f32 beta1, beta2, eps; u32 groups; per group u32 name length, name, i32 width,
//         u64 step
//   ARRY  one a per-splat array of SplatSet::arrays(): u32 name length, name, i32 width,
//         u64 value count, f32 values
// Unknown sections are skipped, so later versions can add some without a version bump.
#include <cstdint>
#include <string>

#include "glint/train/rng.h"
#include "glint/train/splat_set.h"

namespace glint {

inline constexpr std::uint32_t kCheckpointVersion = 1;

struct TrainCheckpoint {
  long step = 0;  // steps completed
  SplatSet splats;
  Rng rng;
  std::string options_json;
};

std::string serialize_checkpoint(const TrainCheckpoint& ckpt);
// Validates every size against the bytes before allocating and the hash over the whole
// file; anything wrong is a glint::Error(name, what).
TrainCheckpoint parse_checkpoint(const std::string& bytes, const std::string& name);

// Atomic write (io/atomic_file.h) / read of a file; glint::Error(path, what) on failure.
void save_checkpoint(const std::string& path, const TrainCheckpoint& ckpt);
TrainCheckpoint load_checkpoint(const std::string& path);

// The checkpoint's model as a viewer renders it: marked antialiased when its run's options
// say it was trained with the 2D filter (the splats themselves carry no mark).
GaussianModel checkpoint_model(TrainCheckpoint ckpt);

// FNV-1a 64 of a byte range (the checkpoint's trailer).
std::uint64_t fnv1a64(const char* data, std::size_t size);

}  // namespace glint
