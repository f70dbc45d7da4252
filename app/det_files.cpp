#include "det_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace mdfi::app {

namespace {

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size())) s.replace(pos, from.size(), to);
}

}  // namespace

std::string label_path_for(const std::string& image, const std::string& dir) {
  std::string base = image.substr(image.find_last_of('/') + 1);
  if (!dir.empty()) {
    const size_t dot = base.find_last_of('.');
    if (dot != std::string::npos && dot > 0) base.resize(dot);
    return dir + "/" + base + ".txt";
  }
  std::string p = image;
  for (const auto& [from, to] : {std::pair<const char*, const char*>{"/images/train2017/", "/labels/train2017/"},
                                 {"/images/val2017/", "/labels/val2017/"},
                                 {"/JPEGImages/", "/labels/"},
                                 {"/images/train2014/", "/labels/train2014/"},
                                 {"/images/val2014/", "/labels/val2014/"}})
    replace_all(p, from, to);
  // Only the extension, and only these (as AlexeyAB; others get .txt appended instead of
  // leaving a label file under the image's own name).
  for (const char* ext : {".jpg", ".JPG", ".jpeg", ".JPEG", ".png", ".PNG", ".bmp", ".BMP", ".ppm", ".PPM", ".tiff",
                          ".TIFF"}) {
    const size_t n = std::strlen(ext);
    if (p.size() > n && p.compare(p.size() - n, n, ext) == 0) return p.substr(0, p.size() - n) + ".txt";
  }
  return p + ".txt";
}

Status write_label_file(const std::string& path, const ImageResult& r) {
  const size_t slash = path.find_last_of('/');
  std::string tmp = (slash == std::string::npos ? std::string(".") : path.substr(0, slash)) + "/.mdfi-label.XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) return Status(ErrorKind::kIo, path + ": cannot create the label file (" + std::strerror(errno) + ")");
  ::fchmod(fd, 0644);
  std::FILE* f = ::fdopen(fd, "w");
  if (!f) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return Status(ErrorKind::kIo, path + ": cannot open the label file");
  }
  for (const DetectionRecord& d : r.detections)
    std::fprintf(f, "%d %2.4f %2.4f %2.4f %2.4f\n", d.class_id, double(d.cx), double(d.cy), double(d.w), double(d.h));
  const bool bad = std::fflush(f) != 0 || std::ferror(f);
  if (std::fclose(f) != 0 || bad || std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return Status(ErrorKind::kIo, path + ": writing the label file failed (" + why + ")");
  }
  return Status::Ok();
}

Status write_crops(const ImageResult& r, DrawNamer& namer) {
  if (r.detections.empty()) return Status::Ok();
  MDFI_ASSIGN_OR_RETURN(auto canvas, load_canvas(r.image));
  for (size_t i = 0; i < r.detections.size(); ++i) {
    const DetectionRecord& d = r.detections[i];
    // left..left+width inclusive (Darknet's box convention), inside the picture.
    const int x0 = std::clamp(d.left, 0, canvas.w - 1), y0 = std::clamp(d.top, 0, canvas.h - 1);
    const int x1 = std::clamp(d.left + d.width, x0, canvas.w - 1), y1 = std::clamp(d.top + d.height, y0, canvas.h - 1);
    Canvas crop;
    crop.w = x1 - x0 + 1;
    crop.h = y1 - y0 + 1;
    crop.px.resize(size_t(crop.w) * size_t(crop.h) * 3);
    for (int y = 0; y < crop.h; ++y)
      std::memcpy(&crop.px[size_t(y) * size_t(crop.w) * 3], &canvas.px[(size_t(y0 + y) * size_t(canvas.w) + size_t(x0)) * 3],
                  size_t(crop.w) * 3);
    std::string cls = d.name;
    for (char& c : cls)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') c = '_';
    MDFI_ASSIGN_OR_RETURN(auto name, namer.claim(r.image, "_" + std::to_string(i) + "_" + cls));
    MDFI_RETURN_IF_ERROR(write_canvas(crop, name));
  }
  return Status::Ok();
}

}  // namespace mdfi::app
