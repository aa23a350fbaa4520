#include "glint/io/image_cache.h"

#include <string>

#include "glint/core/error.h"

namespace glint {

namespace {
std::size_t image_bytes(const View& v, bool alpha) {
  return static_cast<std::size_t>(v.camera.width) * v.camera.height * ((alpha ? 4 : 3) + (v.has_mask() ? 1 : 0));
}
std::size_t held_bytes(const ViewPixels& px) { return px.image.data.size() + px.mask.data.size(); }
}  // namespace

ImageCache::ImageCache(const Dataset& dataset, const std::vector<View>& views, std::size_t budget_bytes,
                       bool keep_alpha)
    : dataset_(dataset), views_(views), budget_(budget_bytes), keep_alpha_(keep_alpha), slots_(views.size()), lru_pos_(views.size(), lru_.end()) {}

void ImageCache::insert_locked(std::size_t i, std::shared_ptr<const ViewPixels> img) {
  if (slots_[i]) return;  // another thread decoded it first
  std::size_t b = held_bytes(*img);
  // Evict least recently used images until this one fits (a single image larger than the
  // budget is still served, just not kept).
  while (bytes_ + b > budget_ && !lru_.empty()) {
    std::size_t victim = lru_.back();
    lru_.pop_back();
    bytes_ -= held_bytes(*slots_[victim]);
    slots_[victim].reset();
    lru_pos_[victim] = lru_.end();
  }
  if (bytes_ + b > budget_) return;
  slots_[i] = std::move(img);
  bytes_ += b;
  lru_.push_front(i);
  lru_pos_[i] = lru_.begin();
}

std::shared_ptr<const ViewPixels> ImageCache::entry(std::size_t i) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (slots_[i]) {
      lru_.splice(lru_.begin(), lru_, lru_pos_[i]);
      return slots_[i];
    }
  }
  auto px = std::make_shared<const ViewPixels>(dataset_.load_view(views_[i], keep_alpha_));
  std::lock_guard<std::mutex> lock(mutex_);
  insert_locked(i, px);
  return px;
}

// Both share the entry's ownership (aliasing), so an image handed out outlives its eviction.
std::shared_ptr<const Image8> ImageCache::get(std::size_t i) {
  std::shared_ptr<const ViewPixels> px = entry(i);
  return std::shared_ptr<const Image8>(px, &px->image);
}

std::shared_ptr<const Image8> ImageCache::get_mask(std::size_t i) {
  if (!views_[i].has_mask()) return nullptr;
  std::shared_ptr<const ViewPixels> px = entry(i);
  if (px->mask.data.empty()) return nullptr;
  return std::shared_ptr<const Image8>(px, &px->mask);
}

bool ImageCache::preload_if_fits() {
  std::size_t total = 0;
  for (const View& v : views_) total += image_bytes(v, keep_alpha_);
  if (total > budget_) return false;
  std::vector<std::string> errors(views_.size());
#pragma omp parallel for schedule(dynamic)
  for (long i = 0; i < static_cast<long>(views_.size()); ++i) {
    try {
      get(static_cast<std::size_t>(i));
    } catch (const Error& e) {
      errors[static_cast<std::size_t>(i)] = e.what();
    }
  }
  for (const auto& e : errors)
    if (!e.empty()) throw Error(e);
  return true;
}

std::size_t ImageCache::bytes_held() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_;
}

}  // namespace glint
