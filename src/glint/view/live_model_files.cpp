#include "glint/view/live_model_files.h"

#include "glint/view/model_blob.h"
#include "glint/view/splat_ao_blob.h"

namespace glint::view {

std::vector<SiteFile> live_model_files(Backend& backend, const GaussianModel& m) {
  std::vector<SiteFile> files;
  files.push_back({"/api/model.bin", encode_model_blob(m), "application/octet-stream"});
  files.push_back({"/api/splat_ao.bin", encode_splat_ao_blob(render_page_ao_maps(backend, m), m),
                   "application/octet-stream"});
  return files;
}

}  // namespace glint::view
