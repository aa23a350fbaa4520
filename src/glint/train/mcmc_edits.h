#pragma once
// 3DGS-MCMC's refinement (mcmc_step: relocation of the dead, then growth) as row edits, for
// a backend that keeps the splat arrays on its device: the decisions and the new values are
// computed here from the opacity logits and log scales alone, with mcmc_step's code and
// draws (the same bits), and the backend applies them to its arrays in this order:
//   1. every parameter of row copy_to[k] becomes row copy_from[k]'s (copy_from rows are
//      never copy_to rows);
//   2. the opacity logit and log scales of row set_rows[k] become set_logit[k] and
//      set_log_scale[3k..3k+2] (each row once);
//   3. Adam's moments of zero_rows are zeroed (each row once);
//   4. append_from.size() rows are appended: their parameters copies of rows append_from[k]
//      (as they are after 1-3), their moments and statistics zero.
#include <cstdint>
#include <vector>

#include "glint/train/mcmc.h"

namespace glint {

struct McmcEdits {
  McmcReport report;
  std::vector<std::uint32_t> copy_to, copy_from;
  std::vector<std::uint32_t> set_rows;
  std::vector<float> set_logit, set_log_scale;
  std::vector<std::uint32_t> zero_rows;
  std::vector<std::uint32_t> append_from;
};

// The edits mcmc_step(set, step, options, rng) makes to a set with these opacity logits
// ([n]) and log scales ([3n]); draws from rng as mcmc_step does. The two arrays are updated
// as mcmc_step updates the set's.
McmcEdits mcmc_step_edits(std::vector<float>& opacity_logits, std::vector<float>& log_scales, long step,
                          const McmcOptions& options, Rng& rng);

}  // namespace glint
