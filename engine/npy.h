// NumPy .npy v1.0 files (little-endian float32, C order): the format of --dump-layers, so any
// tool can compare mdfi with Darknet tensor by tensor.
#pragma once

#include <string>
#include <vector>

#include "status.h"

namespace mdfi {

Status write_npy(const std::string& path, const float* data, const std::vector<size_t>& shape);

struct NpyArray {
  std::vector<size_t> shape;
  std::vector<float> data;
};
Result<NpyArray> read_npy(const std::string& path);

}  // namespace mdfi
