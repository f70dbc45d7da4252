// Writes the images bench/decode-memory.sh measures, one per decode path, from a JPEG scaled up
// (bilinear) to W x H: a baseline RGB JPEG, a CMYK JPEG (Adobe APP14, inverted, as Photoshop
// writes it), a YCCK JPEG, a progressive JPEG, a JPEG stored turned with EXIF orientation 6,
// a PNG, an interlaced PNG and a BMP. libjpeg and libpng only (no ImageMagick, no cjpeg).
// Build: c++ -O2 bench/decode_images.cpp -ljpeg -lpng -o decode_images
// Usage: decode_images SOURCE.jpg W H OUTDIR
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <jpeglib.h>  // after <cstdio>: it uses FILE and size_t
#include <png.h>

namespace {

struct Image {
  int w = 0, h = 0;
  std::vector<uint8_t> px;  // interleaved RGB
};

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "decode_images: %s\n", why.c_str());
  std::exit(1);
}

Image read_jpeg(const char* path) {
  std::FILE* f = std::fopen(path, "rb");
  if (!f) die(std::string("cannot open ") + path);
  jpeg_decompress_struct c;
  jpeg_error_mgr err;
  c.err = jpeg_std_error(&err);
  jpeg_create_decompress(&c);
  jpeg_stdio_src(&c, f);
  jpeg_read_header(&c, TRUE);
  c.out_color_space = JCS_RGB;
  jpeg_start_decompress(&c);
  Image im;
  im.w = int(c.output_width);
  im.h = int(c.output_height);
  im.px.resize(size_t(im.w) * im.h * 3);
  while (c.output_scanline < c.output_height) {
    JSAMPROW row = &im.px[size_t(c.output_scanline) * im.w * 3];
    jpeg_read_scanlines(&c, &row, 1);
  }
  jpeg_finish_decompress(&c);
  jpeg_destroy_decompress(&c);
  std::fclose(f);
  return im;
}

Image scaled(const Image& s, int w, int h) {
  Image o;
  o.w = w;
  o.h = h;
  o.px.resize(size_t(w) * h * 3);
  for (int y = 0; y < h; ++y) {
    const float sy = (y + .5f) * s.h / h - .5f;
    const int y0 = std::max(0, int(std::floor(sy))), y1 = std::min(s.h - 1, y0 + 1);
    const float fy = std::min(1.f, std::max(0.f, sy - y0));
    for (int x = 0; x < w; ++x) {
      const float sx = (x + .5f) * s.w / w - .5f;
      const int x0 = std::max(0, int(std::floor(sx))), x1 = std::min(s.w - 1, x0 + 1);
      const float fx = std::min(1.f, std::max(0.f, sx - x0));
      for (int k = 0; k < 3; ++k) {
        auto at = [&](int xx, int yy) { return float(s.px[(size_t(yy) * s.w + xx) * 3 + k]); };
        const float v = (1 - fy) * ((1 - fx) * at(x0, y0) + fx * at(x1, y0)) + fy * ((1 - fx) * at(x0, y1) + fx * at(x1, y1));
        o.px[(size_t(y) * w + x) * 3 + k] = uint8_t(std::lround(v));
      }
    }
  }
  return o;
}

enum class Kind { kBaseline, kCmyk, kYcck, kProgressive };

// An APP1 Exif segment with IFD0's Orientation entry (little-endian TIFF), as cameras write it.
void write_exif(jpeg_compress_struct& c, int orientation) {
  const uint8_t seg[] = {'E', 'x', 'i', 'f', 0, 0, 'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0,
                         0x12, 0x01, 3, 0, 1, 0, 0, 0, uint8_t(orientation), 0, 0, 0, 0, 0, 0, 0};
  jpeg_write_marker(&c, JPEG_APP0 + 1, seg, sizeof seg);
}

void write_jpeg(const std::string& path, const Image& im, Kind kind, int orientation) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) die("cannot write " + path);
  jpeg_compress_struct c;
  jpeg_error_mgr err;
  c.err = jpeg_std_error(&err);
  jpeg_create_compress(&c);
  jpeg_stdio_dest(&c, f);
  c.image_width = JDIMENSION(im.w);
  c.image_height = JDIMENSION(im.h);
  const bool four = kind == Kind::kCmyk || kind == Kind::kYcck;
  c.input_components = four ? 4 : 3;
  c.in_color_space = four ? JCS_CMYK : JCS_RGB;
  jpeg_set_defaults(&c);  // CMYK input: a CMYK JPEG with an Adobe marker (transform 0)
  if (kind == Kind::kYcck) jpeg_set_colorspace(&c, JCS_YCCK);  // Adobe transform 2
  jpeg_set_quality(&c, 90, TRUE);
  if (kind == Kind::kProgressive) jpeg_simple_progression(&c);
  jpeg_start_compress(&c, TRUE);
  if (orientation != 1) write_exif(c, orientation);
  std::vector<uint8_t> cmyk(size_t(im.w) * 4);
  while (c.next_scanline < c.image_height) {
    const uint8_t* rgb = &im.px[size_t(c.next_scanline) * im.w * 3];
    JSAMPROW row = const_cast<uint8_t*>(rgb);
    if (four) {
      // Inverted (Adobe) CMYK: 255 is no ink; R = C * K / 255 gives the RGB back.
      for (int x = 0; x < im.w; ++x) {
        const int r = rgb[3 * x], g = rgb[3 * x + 1], b = rgb[3 * x + 2];
        const int k = std::max({r, g, b});
        uint8_t* o = &cmyk[size_t(x) * 4];
        o[0] = uint8_t(k ? (r * 255 + k / 2) / k : 0);
        o[1] = uint8_t(k ? (g * 255 + k / 2) / k : 0);
        o[2] = uint8_t(k ? (b * 255 + k / 2) / k : 0);
        o[3] = uint8_t(k);
      }
      row = cmyk.data();
    }
    jpeg_write_scanlines(&c, &row, 1);
  }
  jpeg_finish_compress(&c);
  jpeg_destroy_compress(&c);
  std::fclose(f);
}

void write_png(const std::string& path, const Image& im, bool interlaced) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) die("cannot write " + path);
  png_structp p = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(p);
  if (setjmp(png_jmpbuf(p))) die("libpng failed writing " + path);
  png_init_io(p, f);
  png_set_compression_level(p, 1);
  png_set_IHDR(p, info, png_uint_32(im.w), png_uint_32(im.h), 8, PNG_COLOR_TYPE_RGB,
               interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(p, info);
  std::vector<png_bytep> rows(size_t(im.h));
  for (int y = 0; y < im.h; ++y) rows[size_t(y)] = const_cast<uint8_t*>(&im.px[size_t(y) * im.w * 3]);
  png_write_image(p, rows.data());
  png_write_end(p, nullptr);
  png_destroy_write_struct(&p, &info);
  std::fclose(f);
}

void put32(std::FILE* f, uint32_t v) {
  const uint8_t b[4] = {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)};
  std::fwrite(b, 1, 4, f);
}
void put16(std::FILE* f, uint16_t v) {
  const uint8_t b[2] = {uint8_t(v), uint8_t(v >> 8)};
  std::fwrite(b, 1, 2, f);
}

void write_bmp(const std::string& path, const Image& im) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) die("cannot write " + path);
  const uint32_t stride = (uint32_t(im.w) * 3 + 3) / 4 * 4, data = stride * uint32_t(im.h);
  std::fwrite("BM", 1, 2, f);
  put32(f, 54 + data);
  put32(f, 0);
  put32(f, 54);
  put32(f, 40);
  put32(f, uint32_t(im.w));
  put32(f, uint32_t(im.h));
  put16(f, 1);
  put16(f, 24);
  for (int i = 0; i < 6; ++i) put32(f, i == 1 ? data : 0);
  std::vector<uint8_t> row(stride, 0);
  for (int y = im.h - 1; y >= 0; --y) {  // bottom-up, BGR
    for (int x = 0; x < im.w; ++x)
      for (int k = 0; k < 3; ++k) row[size_t(x) * 3 + size_t(k)] = im.px[(size_t(y) * im.w + x) * 3 + 2 - size_t(k)];
    std::fwrite(row.data(), 1, stride, f);
  }
  std::fclose(f);
}

// Stored turned 90 degrees counter-clockwise: orientation 6 says "turn clockwise to view".
Image sideways(const Image& up) {
  Image s;
  s.w = up.h;
  s.h = up.w;
  s.px.resize(up.px.size());
  for (int y = 0; y < up.h; ++y)
    for (int x = 0; x < up.w; ++x)
      std::memcpy(&s.px[(size_t(up.w - 1 - x) * s.w + y) * 3], &up.px[(size_t(y) * up.w + x) * 3], 3);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) die("usage: decode_images SOURCE.jpg W H OUTDIR");
  const Image im = scaled(read_jpeg(argv[1]), std::atoi(argv[2]), std::atoi(argv[3]));
  const std::string d = argv[4];
  write_jpeg(d + "/baseline.jpg", im, Kind::kBaseline, 1);
  write_jpeg(d + "/cmyk.jpg", im, Kind::kCmyk, 1);
  write_jpeg(d + "/ycck.jpg", im, Kind::kYcck, 1);
  write_jpeg(d + "/progressive.jpg", im, Kind::kProgressive, 1);
  write_jpeg(d + "/exif6.jpg", sideways(im), Kind::kBaseline, 6);
  write_png(d + "/plain.png", im, false);
  write_png(d + "/interlaced.png", im, true);
  write_bmp(d + "/plain.bmp", im);
  return 0;
}
