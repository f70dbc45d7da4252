// Per-image files of a detection run beside the results: YOLO label files (AlexeyAB's
// -save_labels: one "class cx cy w h" line per box, relative to the image) and crops of each
// detection. Both are decided per record, after the results are written.
#pragma once

#include <string>

#include "draw.h"
#include "results.h"
#include "status.h"

namespace mdfi::app {

// AlexeyAB's replace_image_to_label(): dataset folders (/images/train2017/ -> /labels/train2017/,
// /JPEGImages/ -> /labels/, ...) and the image extension replaced by .txt. `dir` not empty:
// DIR/<stem>.txt instead.
std::string label_path_for(const std::string& image, const std::string& dir);

// "%d %2.4f %2.4f %2.4f %2.4f\n" per box, as AlexeyAB writes them (an image without boxes gets
// an empty file). Written to a temp file and renamed, so a failure never leaves half a file.
Status write_label_file(const std::string& path, const ImageResult& r);

// DIR/<stem>_<n>_<class>.<ext> for each box (pixels, clipped to the image); names from `namer`,
// so never one of the run's inputs.
Status write_crops(const ImageResult& r, DrawNamer& namer);

}  // namespace mdfi::app
