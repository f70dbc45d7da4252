// One record per input image, the common currency between the batch loop, the result writers
// (output_*.cpp) and the drawing code. Plain data so every format sees exactly the same facts.
#pragma once

#include <string>
#include <vector>

namespace mdfi::app {

enum class Task { kDetect, kClassify };

struct DetectionRecord {
  int class_id = 0;
  std::string name;
  float confidence = 0;
  int left = 0, top = 0, width = 0, height = 0;  // pixels, clipped to the image
  float cx = 0, cy = 0, w = 0, h = 0;            // relative centre and size (0..1, not clipped)
};

struct ClassRecord {
  int rank = 0;  // 1 = best
  int class_id = 0;
  std::string name;
  float probability = 0;
};

struct ImageResult {
  std::string image;  // the path as given
  std::string key;    // --shard runs: the input key (path_guard.h), written as "path"
  std::string shard;  // --shard runs: "K/N"
  bool ok = true;
  std::string error;  // set when !ok
  int width = 0, height = 0;
  double time_ms = 0;
  long long frame = -1;  // --stream: the frame's index (0-based); -1 for files
  double read_at = 0;    // --stream: when the frame was read, seconds since the epoch
  size_t skipped = 0;    // --stream --latest: frames dropped before this one
  std::vector<std::string> warnings;  // what the decoder noticed without failing (ImageRun::warnings)
  std::vector<DetectionRecord> detections;
  std::vector<ClassRecord> classes;
};

}  // namespace mdfi::app
