#include "image_probe.h"

#include <cstring>

namespace mdfi {
namespace {

int64_t be16(const unsigned char* p) { return int64_t(p[0]) << 8 | p[1]; }
int64_t be32(const unsigned char* p) { return int64_t(p[0]) << 24 | int64_t(p[1]) << 16 | int64_t(p[2]) << 8 | p[3]; }
int64_t le16(const unsigned char* p) { return int64_t(p[1]) << 8 | p[0]; }
int64_t le32s(const unsigned char* p) {
  return int64_t(int32_t(uint32_t(p[3]) << 24 | uint32_t(p[2]) << 16 | uint32_t(p[1]) << 8 | p[0]));
}

// Walks JPEG marker segments by their lengths up to the first start-of-frame.
DeclaredSize jpeg_size(std::FILE* fp) {
  DeclaredSize d;
  if (std::fseek(fp, 2, SEEK_SET) != 0) return d;
  for (int segments = 0; segments < 4096; ++segments) {
    int c = std::fgetc(fp);
    if (c != 0xFF) return d;
    while (c == 0xFF) c = std::fgetc(fp);  // fill bytes
    if (c == EOF) return d;
    if (c == 0x01 || (c >= 0xD0 && c <= 0xD7)) continue;  // markers without a length
    unsigned char len[2];
    if (std::fread(len, 1, 2, fp) != 2 || be16(len) < 2) return d;
    const bool sof = c >= 0xC0 && c <= 0xCF && c != 0xC4 && c != 0xC8 && c != 0xCC;
    if (sof) {
      unsigned char f[5];
      if (std::fread(f, 1, 5, fp) != 5) return d;
      d.known = true;
      d.h = be16(f + 1);
      d.w = be16(f + 3);
      return d;
    }
    if (c == 0xD9 || c == 0xDA) return d;  // end of image or scan data before any frame
    if (std::fseek(fp, long(be16(len) - 2), SEEK_CUR) != 0) return d;
  }
  return d;
}

DeclaredSize probe(std::FILE* fp) {
  DeclaredSize d;
  unsigned char h[32] = {};
  const size_t n = std::fread(h, 1, sizeof h, fp);
  if (n >= 24 && std::memcmp(h, "\x89PNG\r\n\x1a\n", 8) == 0 && std::memcmp(h + 12, "IHDR", 4) == 0) {
    d.known = true;
    d.w = be32(h + 16);
    d.h = be32(h + 20);
  } else if (n >= 10 && (std::memcmp(h, "GIF87a", 6) == 0 || std::memcmp(h, "GIF89a", 6) == 0)) {
    d.known = true;
    d.w = le16(h + 6);
    d.h = le16(h + 8);
  } else if (n >= 26 && h[0] == 'B' && h[1] == 'M' && le32s(h + 14) >= 40) {
    d.known = true;
    d.w = le32s(h + 18);
    d.h = le32s(h + 22);
    if (d.h < 0) d.h = -d.h;  // top-down bitmaps store a negative height
  } else if (n >= 3 && h[0] == 0xFF && h[1] == 0xD8 && h[2] == 0xFF) {
    d = jpeg_size(fp);
  }
  return d;
}

// A small buffered byte reader: the walk below touches every byte of a JPEG.
class ByteReader {
 public:
  explicit ByteReader(std::FILE* fp) : fp_(fp) {}
  int get() {
    if (pos_ == len_) {
      len_ = std::fread(buf_, 1, sizeof buf_, fp_);
      pos_ = 0;
      if (len_ == 0) return EOF;
    }
    return buf_[pos_++];
  }
  bool skip(long n) {
    for (; n > 0; --n)
      if (get() == EOF) return false;
    return true;
  }

 private:
  std::FILE* fp_;
  unsigned char buf_[1 << 16];
  size_t pos_ = 0, len_ = 0;
};

std::string walk_jpeg_tables(std::FILE* fp) {
  ByteReader in(fp);
  if (in.get() != 0xFF || in.get() != 0xD8) return "";
  int c = in.get();
  while (c != EOF) {
    if (c != 0xFF) {  // entropy-coded data between markers
      c = in.get();
      continue;
    }
    int m = in.get();
    while (m == 0xFF) m = in.get();
    if (m == EOF || m == 0xD9) return "";
    if (m == 0x00 || m == 0x01 || (m >= 0xD0 && m <= 0xD7)) {  // stuffed byte, TEM, restart
      c = in.get();
      continue;
    }
    const int hi = in.get(), lo = in.get();
    if (hi == EOF || lo == EOF) return "";
    long left = long(hi << 8 | lo) - 2;
    if (m == 0xC4) {
      // stb reads each table header whatever the segment length says, so check them all; stb
      // stops at a header it rejects (class > 1 or id > 3), so the walk does too.
      // stb reads zeros past the end of the file, so a table cut short still gets built from
      // the counts that are there (found by fuzz_image): count them the same way.
      while (left > 0) {
        const int q = in.get();
        if (q == EOF) return "";
        if ((q >> 4) > 1 || (q & 15) > 3) break;
        long n = 0;
        for (int i = 0; i < 16; ++i) {
          const int k = in.get();
          if (k != EOF) n += k;
        }
        if (n > 256)
          return "a Huffman table declares " + std::to_string(n) + " codes (at most 256)";
        if (!in.skip(n)) return "";
        left -= 17 + n;
      }
    } else if ((m >= 0xE0 && m <= 0xEF) || m == 0xFE) {
      // Application and comment segments: stb skips these by their length, as we do.
      if (left > 0 && !in.skip(left)) return "";
    }
    // Other segments (SOF, SOS, DQT, DRI, ...) stb reads by their content, which need not agree
    // with their length, so their bytes are scanned for markers like entropy-coded data: any
    // FF C4 that stb could take for a table is checked (found by fuzz_image).
    c = in.get();
  }
  return "";
}

}  // namespace

std::string jpeg_huffman_problem(std::FILE* fp) {
  std::rewind(fp);
  std::string why = walk_jpeg_tables(fp);
  std::rewind(fp);
  return why;
}

DeclaredSize probe_image_size(std::FILE* fp) {
  std::rewind(fp);
  DeclaredSize d = probe(fp);
  std::rewind(fp);
  return d;
}

}  // namespace mdfi
