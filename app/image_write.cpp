// The one translation unit that compiles stb_image_write (Debian libstb-dev) and writes
// pictures for --draw atomically: encode to DIR/.name.tmp.XXXXXX, then rename.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "draw.h"

#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_WRITE_NO_STDIO
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#endif
#include <stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

namespace mdfi::app {

namespace {

struct Sink {
  std::FILE* f;
  bool failed = false;
};

void write_cb(void* ctx, void* data, int size) {
  auto* s = static_cast<Sink*>(ctx);
  if (!s->failed && std::fwrite(data, 1, size_t(size), s->f) != size_t(size)) s->failed = true;
}

bool ends_with(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

}  // namespace

Status write_canvas(const Canvas& c, const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  std::string tmp = dir + "/." + base + ".tmp.XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) return Status(ErrorKind::kIo, path + ": cannot create the picture (" + std::strerror(errno) + ")");
  ::fchmod(fd, 0644);
  Sink sink{::fdopen(fd, "wb")};
  if (!sink.f) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return Status(ErrorKind::kIo, path + ": cannot open the picture for writing");
  }
  const bool png = ends_with(path, ".png");
  const int ok = png ? stbi_write_png_to_func(write_cb, &sink, c.w, c.h, 3, c.px.data(), c.w * 3)
                     : stbi_write_jpg_to_func(write_cb, &sink, c.w, c.h, 3, c.px.data(), 90);
  bool bad = !ok || sink.failed || std::fflush(sink.f) != 0 || std::ferror(sink.f);
  if (std::fclose(sink.f) != 0) bad = true;
  if (bad) {
    ::unlink(tmp.c_str());
    return Status(ErrorKind::kIo, path + ": writing the picture failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return Status(ErrorKind::kIo, path + ": cannot move the picture into place (" + why + ")");
  }
  return Status::Ok();
}

}  // namespace mdfi::app
