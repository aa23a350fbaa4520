#pragma once
// Decoded dataset images (and their masks), held as 8-bit under a byte budget. When the whole split fits
// it is decoded once, in parallel; otherwise images are decoded on demand and the least
// recently used are dropped, so a 1000-image 1080p capture never needs a float (or even a
// full 8-bit) copy in memory.
#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <vector>

#include "glint/io/dataset.h"

namespace glint {

class ImageCache {
 public:
  // `views` must outlive the cache. Budget in bytes of decoded pixels.
  ImageCache(const Dataset& dataset, const std::vector<View>& views, std::size_t budget_bytes,
             bool keep_alpha = false);

  // Image of views[i]; thread-safe. Throws glint::Error if the file cannot be loaded.
  std::shared_ptr<const Image8> get(std::size_t i);
  // Its mask (one channel, 0 = ignore; Dataset::load_view), or null when the view has none.
  std::shared_ptr<const Image8> get_mask(std::size_t i);

  // Decodes every image in parallel when all of them fit in the budget; returns whether
  // it did.
  bool preload_if_fits();

  std::size_t bytes_held() const;
  std::size_t budget() const { return budget_; }
  std::size_t size() const { return views_.size(); }

 private:
  std::shared_ptr<const ViewPixels> entry(std::size_t i);
  void insert_locked(std::size_t i, std::shared_ptr<const ViewPixels> px);

  const Dataset& dataset_;
  const std::vector<View>& views_;
  std::size_t budget_;
  bool keep_alpha_;
  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<const ViewPixels>> slots_;
  std::list<std::size_t> lru_;  // front = most recently used
  std::vector<std::list<std::size_t>::iterator> lru_pos_;
  std::size_t bytes_ = 0;
};

}  // namespace glint
