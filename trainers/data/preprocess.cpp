#include "data/preprocess.h"

#include "common/rng.h"

namespace dtbench {

Placement placement_for(const Preprocess& pre, int64_t in_size, bool train, uint64_t seed,
                        uint64_t epoch, int64_t index) {
  // Without augmentation the image is centred (MNIST's 28 -> 32 pads 2 on each side).
  int64_t centre = -(pre.out_size - in_size) / 2;
  if (!(train && pre.augment)) return {centre, centre, false};
  uint64_t bits = hash_keys({seed, epoch, static_cast<uint64_t>(index), 0xa06a5eedULL});
  uint64_t range = static_cast<uint64_t>(in_size + 2 * pre.crop_padding - pre.out_size + 1);
  Placement p;
  p.oy = static_cast<int64_t>(below(bits, range)) - pre.crop_padding;
  p.ox = static_cast<int64_t>(below(mix64(bits), range)) - pre.crop_padding;
  p.flip = (mix64(mix64(bits)) & 1) != 0;
  return p;
}

Batch make_batch(const Dataset& ds, const std::vector<int64_t>& indices, const Preprocess& pre,
                 bool train, uint64_t seed, uint64_t epoch) {
  const int64_t channels = ds.images.size(1), in_h = ds.images.size(2), in_w = ds.images.size(3);
  const int64_t out = pre.out_size, n = static_cast<int64_t>(indices.size());
  auto images = torch::empty({n, channels, out, out}, torch::kFloat32);
  const uint8_t* src = ds.images.data_ptr<uint8_t>();
  float* dst = images.data_ptr<float>();
  for (int64_t b = 0; b < n; ++b) {
    int64_t index = indices[b];
    Placement p = placement_for(pre, in_h, train, seed, epoch, index);
    for (int64_t c = 0; c < channels; ++c) {
      const float scale = 1.0f / (255.0f * pre.std[c]);
      const float shift = -pre.mean[c] / pre.std[c];
      const uint8_t* plane = src + (index * channels + c) * in_h * in_w;
      float* out_plane = dst + (b * channels + c) * out * out;
      for (int64_t y = 0; y < out; ++y) {
        int64_t sy = y + p.oy;
        for (int64_t x = 0; x < out; ++x) {
          int64_t sx = (p.flip ? out - 1 - x : x) + p.ox;
          bool inside = sy >= 0 && sy < in_h && sx >= 0 && sx < in_w;
          float raw = inside ? plane[sy * in_w + sx] : 0.0f;
          out_plane[y * out + x] = raw * scale + shift;
        }
      }
    }
  }
  auto index_tensor = torch::tensor(indices, torch::kInt64);
  return {images, ds.labels.index_select(0, index_tensor)};
}

}  // namespace dtbench
