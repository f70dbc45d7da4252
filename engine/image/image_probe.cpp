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

// Walks a JPEG the way stb_image's decoder does (stbi__decode_jpeg_header and
// stbi__decode_jpeg_image: which bytes it takes for markers, which segments it reads by content
// and which by length, where it resynchronises) and checks every Huffman table stb would build:
// stb writes one byte per declared code into a 257-entry array, so a table declaring more than
// 256 codes is a heap overflow in stb. Two walks that differ in where they find markers let
// crafted files through (fuzz_image found two), hence the mirroring. "" when stb would build
// no oversized table (it may still reject the file for other reasons).
std::string walk_jpeg_tables(std::FILE* fp) {
  ByteReader in(fp);
  constexpr int kNone = 0x100;
  // stb reads zeros past the end of the file.
  auto get8 = [&] {
    const int c = in.get();
    return c == EOF ? 0 : c;
  };
  auto get16 = [&] { return get8() << 8 | get8(); };
  auto marker = [&] {  // stbi__get_marker: 0xFF, fill bytes, then the code; else none
    int x = in.get();
    if (x != 0xFF) return x == EOF ? -1 : kNone;
    while (x == 0xFF) x = in.get();
    return x == EOF ? -1 : x;
  };
  // stb takes fill bytes before SOI too ("FF FF D8" is a JPEG to it; fuzz_image).
  if (marker() != 0xD8) return "";
  std::string problem;
  // stbi__process_marker for the segments that may come anywhere; false where stb fails.
  auto process = [&](int m) {
    if (m == 0xC4) {  // DHT: tables by content until the length is used up
      long left = get16() - 2;
      while (left > 0) {
        const int q = get8();
        if ((q >> 4) > 1 || (q & 15) > 3) return false;
        long n = 0;
        for (int k = 0; k < 16; ++k) n += get8();
        if (n > 256) {
          problem = "a Huffman table declares " + std::to_string(n) + " codes (at most 256)";
          return false;
        }
        for (long k = 0; k < n; ++k) get8();
        left -= 17 + n;
      }
      return left == 0;
    }
    if (m == 0xDB) {  // DQT: tables by content
      long left = get16() - 2;
      while (left > 0) {
        const int q = get8();
        const int precision = q >> 4;
        if (precision > 1 || (q & 15) > 3) return false;
        for (int k = 0; k < (precision ? 128 : 64); ++k) get8();
        left -= precision ? 129 : 65;
      }
      return left == 0;
    }
    if (m == 0xDD) {  // DRI
      if (get16() != 4) return false;
      get16();
      return true;
    }
    if ((m >= 0xE0 && m <= 0xEF) || m == 0xFE) {  // APPn, COM: skipped by length
      const long len = get16();
      if (len < 2) return false;
      return in.skip(len - 2);
    }
    return false;  // stb: unknown marker
  };
  auto is_sof = [](int m) { return m == 0xC0 || m == 0xC1 || m == 0xC2; };

  // Header: markers until the frame header, resynchronising byte by byte after a segment.
  int m = marker();
  while (!is_sof(m)) {
    if (m < 0 || !process(m)) return problem;
    m = marker();
    while (m == kNone) m = marker();
  }
  // Frame header: stb requires its length to match its content.
  const long lf = get16();
  if (lf < 2 || !in.skip(lf - 2)) return problem;
  // Image: scans and segments until EOI; a missing marker ends stb's decode.
  m = marker();
  while (m >= 0 && m != 0xD9 && m != kNone) {
    if (m == 0xDA) {  // SOS header, then entropy-coded data up to the next real marker
      const long ls = get16();
      if (ls < 2 || !in.skip(ls - 2)) return problem;
      int c = in.get();
      m = -1;
      while (c != EOF) {
        if (c != 0xFF) {
          c = in.get();
          continue;
        }
        int x = in.get();
        while (x == 0xFF) x = in.get();
        if (x == 0x00 || (x >= 0xD0 && x <= 0xD7)) {  // stuffed byte or restart marker
          c = in.get();
          continue;
        }
        m = x == EOF ? -1 : x;
        break;
      }
      continue;
    }
    if (m == 0xDC) {  // DNL
      get16();
      get16();
    } else if (!process(m)) {
      return problem;
    }
    m = marker();
  }
  return problem;
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
