#pragma once
// Which frames of a video become training views: the clip is cut into equal windows of
// consecutive frames and the sharpest frame of each is kept, sharpness being the variance
// of the Laplacian of the grey image (a blurred frame has little high-frequency energy).
#include <cstdint>
#include <vector>

namespace glint::capture {

// Variance of the 4-neighbour Laplacian over the interior pixels of an 8-bit grey image
// (row stride = width). Images smaller than 3x3 score 0.
double laplacian_variance(const std::uint8_t* grey, int width, int height);

// Indices (ascending) of the frames to keep out of scores.size(): window k covers frames
// [k*T/n, (k+1)*T/n); each gives its highest score (the earliest on ties). n >= T keeps all.
std::vector<long> sharpest_per_window(const std::vector<double>& scores, long n);

}  // namespace glint::capture
