#include "weights.h"

#include <algorithm>
#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#if defined(__ARM_NEON) || defined(__aarch64__)
#include <arm_neon.h>
#endif
#include <unistd.h>

namespace mdfi {

std::vector<size_t> layer_param_offsets(const Network& net) {
  std::vector<size_t> off;
  off.reserve(net.layers.size() + 1);
  size_t at = 0;
  for (const auto& l : net.layers) {
    off.push_back(at);
    at += l->param_floats();
  }
  off.push_back(at);
  return off;
}

WeightsFile::~WeightsFile() {
  unmap_all();
  if (fp_) std::fclose(fp_);
}

void WeightsFile::unmap_all() {
  if (map_) ::munmap(const_cast<unsigned char*>(map_), size_t(file_bytes_));
  map_ = nullptr;
  for (const MappedRange& r : ranges_) ::munmap(const_cast<unsigned char*>(r.data), r.bytes);
  ranges_.clear();
}

WeightsFile::WeightsFile(WeightsFile&& o) noexcept { *this = std::move(o); }

WeightsFile& WeightsFile::operator=(WeightsFile&& o) noexcept {
  if (this != &o) {
    unmap_all();
    if (fp_) std::fclose(fp_);
    path_ = std::move(o.path_);
    fp_ = o.fp_;
    map_ = o.map_;
    may_map_ = o.may_map_;
    ranges_ = std::move(o.ranges_);
    o.ranges_.clear();
    header_ = o.header_;
    file_bytes_ = o.file_bytes_;
    o.fp_ = nullptr;
    o.map_ = nullptr;
  }
  return *this;
}

static bool read_exact(std::FILE* fp, void* dst, size_t bytes) { return std::fread(dst, 1, bytes, fp) == bytes; }

Result<WeightsFile> WeightsFile::open(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return Result<WeightsFile>(ErrorKind::kIo, path + ": cannot open weights file (" + std::strerror(errno) + ")");
  if (S_ISDIR(st.st_mode)) return Result<WeightsFile>(ErrorKind::kIo, path + ": is a directory, not a weights file");
  WeightsFile wf;
  wf.path_ = path;
  wf.fp_ = std::fopen(path.c_str(), "rb");
  if (!wf.fp_)
    return Result<WeightsFile>(ErrorKind::kIo, path + ": cannot open weights file (" + std::strerror(errno) + ")");
  wf.file_bytes_ = uint64_t(st.st_size);
  if (wf.file_bytes_ < 16)
    return Result<WeightsFile>(ErrorKind::kWeights, path + ": " + std::to_string(wf.file_bytes_) +
                                                        " bytes is too short for a Darknet weights header (16 or 20 bytes)");
  int32_t v[3];
  if (!read_exact(wf.fp_, v, sizeof v))
    return Result<WeightsFile>(ErrorKind::kIo, path + ": cannot read the weights header");
  wf.header_.major = v[0];
  wf.header_.minor = v[1];
  wf.header_.revision = v[2];
  if (wf.header_.seen_is_64bit()) {
    uint64_t seen = 0;
    if (!read_exact(wf.fp_, &seen, 8))
      return Result<WeightsFile>(ErrorKind::kWeights, path + ": header says version " + std::to_string(v[0]) + "." +
                                                          std::to_string(v[1]) + " (64-bit 'seen') but the file ends inside it");
    wf.header_.seen = seen;
  } else {
    uint32_t seen = 0;
    if (!read_exact(wf.fp_, &seen, 4)) return Result<WeightsFile>(ErrorKind::kIo, path + ": cannot read the weights header");
    wf.header_.seen = seen;
  }
  // With MDFI_MMAP=1, the whole file mapped read-only for views (weights.h says why it is opt-in).
  // A regular file only; where mapping fails (32-bit address space, odd file systems) every read
  // goes through pread.
  const char* want_map = std::getenv("MDFI_MMAP");
  wf.may_map_ = S_ISREG(st.st_mode) && !(want_map && std::strcmp(want_map, "0") == 0);
  if (want_map && std::strcmp(want_map, "1") == 0 && S_ISREG(st.st_mode) &&
      uint64_t(size_t(wf.file_bytes_)) == wf.file_bytes_) {
    void* m = ::mmap(nullptr, size_t(wf.file_bytes_), PROT_READ, MAP_SHARED, fileno(wf.fp_), 0);
    if (m != MAP_FAILED) wf.map_ = static_cast<const unsigned char*>(m);
  }
  return wf;
}

// What a file of the wrong size starts like, where that says more than its size: a photo or a cfg
// given where the weights go (the order of arguments mixed up). Empty when nothing is recognised.
static std::string not_weights_kind(std::FILE* fp) {
  unsigned char b[8] = {};
  if (!fp || ::pread(fileno(fp), b, sizeof b, 0) != ssize_t(sizeof b)) return "";
  if (b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) return "a JPEG image";
  if (std::memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0) return "a PNG image";
  if (std::memcmp(b, "GIF8", 4) == 0) return "a GIF image";
  if (std::memcmp(b, "\x7f" "ELF", 4) == 0) return "a program";
  if (std::memcmp(b, "PK\x03\x04", 4) == 0) return "a ZIP archive (a PyTorch or Keras file?)";
  // Darknet's header starts with small binary integers (major 0, minor 1 or 2): eight printable
  // characters are text.
  for (unsigned char c : b)
    if (c != '\n' && c != '\r' && c != '\t' && (c < 0x20 || c > 0x7e)) return "";
  return "a text file (a .cfg or .names?)";
}

Status WeightsFile::validate(const Network& net) {
  const std::vector<size_t> off = layer_param_offsets(net);
  const uint64_t expected = header_.bytes() + uint64_t(off.back()) * 4;
  if (file_bytes_ == expected) return Status::Ok();
  const std::string kind = not_weights_kind(fp_);
  if (!kind.empty())
    return Status(ErrorKind::kWeights, path_ + ": " + kind + ", not a Darknet .weights file (expected " +
                                           std::to_string(expected) + " bytes of weights for " + net.cfg_path + ")");
  const std::string sizes = " (expected " + std::to_string(expected) + " bytes for " + net.cfg_path + ", got " +
                            std::to_string(file_bytes_) + ")";
  if (file_bytes_ < expected) {
    const uint64_t have = (file_bytes_ - header_.bytes()) / 4;
    for (size_t i = 0; i < net.layers.size(); ++i)
      if (off[i + 1] > have)
        return Status(ErrorKind::kWeights, path_ + ": too short: layer " + std::to_string(i) + " [" +
                                               net.layers[i]->kind() + "] does not fit" + sizes);
  }
  return Status(ErrorKind::kWeights, path_ + ": " + std::to_string(file_bytes_ - expected) +
                                         " bytes more than the cfg needs; weights for a different cfg?" + sizes);
}

// pread, not fseek + fread: no shared file position, so the threads of one layer can read
// their own rows at once (conv_fast packs weights in parallel).
// Nonzero when any of floats [from, to) has an all-ones exponent (Inf or NaN). Built for AVX-512,
// AVX2 and the baseline on x86-64 (picked at load time): the baseline's 16-byte loop was 3% of a
// streamed yolov3-tiny run.
#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
static uint32_t exponent_all_ones(const unsigned char* bytes, size_t from, size_t to) {
  uint32_t all_ones = 0;
#if defined(__aarch64__)
  // aarch64: acc + x * 0 (FMLA) stays +0 for every finite x (x * 0 is +-0 exactly, +0 + -0 is
  // +0) and becomes NaN for an infinity or a NaN and stays NaN: one LD1 of four vectors and four
  // FMLA per 16 floats (the AND/UMAX loop below took 13 instructions). Four accumulators, so the
  // FMLA do not wait on each other.
  const float32x4_t zero = vdupq_n_f32(0.f);
  float32x4_t acc0 = zero, acc1 = zero, acc2 = zero, acc3 = zero;
  for (; from + 16 <= to; from += 16) {
    const float32x4x4_t v = vld1q_f32_x4(reinterpret_cast<const float*>(bytes + from * 4));
    acc0 = vfmaq_f32(acc0, v.val[0], zero);
    acc1 = vfmaq_f32(acc1, v.val[1], zero);
    acc2 = vfmaq_f32(acc2, v.val[2], zero);
    acc3 = vfmaq_f32(acc3, v.val[3], zero);
  }
  const float32x4_t acc = vaddq_f32(vaddq_f32(acc0, acc1), vaddq_f32(acc2, acc3));
  all_ones = uint32_t(vmaxvq_u32(vmvnq_u32(vceqq_f32(acc, acc))) != 0);  // a NaN lane
#elif defined(__ARM_NEON)
  // ARM: the largest masked exponent of 16 floats a step (four loads, four ANDs, four UMAX): under
  // an instruction a float where the compiled compare-and-OR took 1.75 (yolov3-tiny's
  // 8.9 M weights are checked for every image when they stream).
  const uint32x4_t mask = vdupq_n_u32(0x7f800000u);
  uint32x4_t top = vdupq_n_u32(0);
  for (; from + 16 <= to; from += 16) {
    const uint32_t* w = reinterpret_cast<const uint32_t*>(bytes + from * 4);
    const uint32x4_t a = vandq_u32(vld1q_u32(w), mask), b = vandq_u32(vld1q_u32(w + 4), mask);
    const uint32x4_t c = vandq_u32(vld1q_u32(w + 8), mask), d = vandq_u32(vld1q_u32(w + 12), mask);
    top = vmaxq_u32(top, vmaxq_u32(vmaxq_u32(a, b), vmaxq_u32(c, d)));
  }
  uint32_t lanes[4];
  vst1q_u32(lanes, top);
  all_ones = uint32_t(std::max(std::max(lanes[0], lanes[1]), std::max(lanes[2], lanes[3])) == 0x7f800000u);
#endif
  for (size_t i = from; i < to; ++i) {
    uint32_t b;
    std::memcpy(&b, bytes + i * 4, 4);
    all_ones |= uint32_t((b & 0x7f800000u) == 0x7f800000u);
  }
  return all_ones;
}

Status WeightsFile::read(size_t offset_floats, float* dst, size_t count, int layer_index, const char* kind) const {
  const uint64_t pos = header_.bytes() + uint64_t(offset_floats) * 4;
  auto who = [&] { return path_ + ": layer " + std::to_string(layer_index) + " [" + kind + "]: "; };
  char* out = reinterpret_cast<char*>(dst);
  size_t left = count * 4;
  uint64_t at = pos;
  // Policy: non-finite parameters are refused, never run. A NaN or Inf weight only ever comes
  // from a corrupt or diverged file and silently turns every later output into NaN (no boxes, or
  // garbage ones). The check looks at exponent bits as integers so it vectorises; only a file
  // that fails it is scanned again for the position. It runs on each piece of kPiece bytes right
  // after that piece is read, while it is still in cache: over a whole layer's read (19 MB for a
  // 13x13 YOLOv3 layer) it re-read memory, 3.5% of yolov3-tiny's streamed run.
  constexpr size_t kPiece = size_t(256) << 10;
  uint32_t all_ones = 0;
  while (left > 0) {
    const ssize_t got = ::pread(fileno(fp_), out, std::min(left, kPiece), off_t(at));
    if (got < 0) {
      if (errno == EINTR) continue;
      return Status(ErrorKind::kIo, who() + "read error (" + std::strerror(errno) + ")");
    }
    if (got == 0) return Status(ErrorKind::kWeights, who() + "file ended early (truncated while running?)");
    // The floats completed by this piece (a short read may end mid-float: checked with the next).
    const size_t done = size_t(out - reinterpret_cast<char*>(dst));
    const size_t from = done / 4, to = (done + size_t(got)) / 4;
    all_ones |= exponent_all_ones(reinterpret_cast<const unsigned char*>(dst), from, to);
    out += got;
    left -= size_t(got);
    at += uint64_t(got);
  }
  return all_ones ? non_finite(dst, count, pos, layer_index, kind) : Status::Ok();
}

Status WeightsFile::non_finite(const float* values, size_t count, uint64_t pos, int layer_index,
                               const char* kind) const {
  for (size_t i = 0; i < count; ++i)
    if (!std::isfinite(values[i]))
      return Status(ErrorKind::kWeights, path_ + ": layer " + std::to_string(layer_index) + " [" + kind + "]: " +
                                             (std::isnan(values[i]) ? "NaN" : "Inf") + " value at byte offset " +
                                             std::to_string(pos + uint64_t(i) * 4) +
                                             "; non-finite weights are refused (corrupt or diverged file?)");
  return Status::Ok();
}

const float* WeightsFile::view(size_t offset_floats, size_t count, int layer_index, const char* kind,
                               Status* st) const {
  *st = Status::Ok();
  const uint64_t pos = header_.bytes() + uint64_t(offset_floats) * 4, end = pos + uint64_t(count) * 4;
  if (end > file_bytes_) return nullptr;  // read() says what is wrong
  const unsigned char* bytes = nullptr;
  if (map_) bytes = map_ + pos;
  bool finite = false;
  for (size_t i = 0; !bytes && i < ranges_.size(); ++i)
    if (pos >= ranges_[i].pos && end <= ranges_[i].pos + ranges_[i].bytes) {
      bytes = ranges_[i].data + (pos - ranges_[i].pos);
      finite = ranges_[i].finite;
    }
  if (!bytes) return nullptr;
  const float* values = reinterpret_cast<const float*>(bytes);
  // The same refusal as read()'s, on the mapped floats.
  if (!finite && exponent_all_ones(bytes, 0, count)) {
    *st = non_finite(values, count, pos, layer_index, kind);
    if (!st->ok()) return nullptr;
  }
  return values;
}

bool WeightsFile::map_range(size_t offset_floats, size_t count) {
  if (map_ || !may_map_ || !fp_ || count == 0) return false;
  const uint64_t pos = header_.bytes() + uint64_t(offset_floats) * 4, end = pos + uint64_t(count) * 4;
  for (const MappedRange& r : ranges_)
    if (pos >= r.pos && end <= r.pos + r.bytes) return true;
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (end > file_bytes_ || page_size <= 0) return false;
  const uint64_t start = pos / uint64_t(page_size) * uint64_t(page_size);
  if (uint64_t(size_t(end - start)) != end - start) return false;
  void* m = ::mmap(nullptr, size_t(end - start), PROT_READ, MAP_SHARED, fileno(fp_), off_t(start));
  if (m == MAP_FAILED) return false;
  const unsigned char* data = static_cast<const unsigned char*>(m);
  ranges_.push_back({data, start, size_t(end - start), !exponent_all_ones(data + (pos - start), 0, count)});
  return true;
}

bool WeightsFile::read_ahead(size_t offset, size_t bytes) const {
  const off_t at = off_t(header_.bytes() + uint64_t(offset));
#if defined(__linux__)
  return ::readahead(fileno(fp_), at, bytes) == 0;
#elif defined(POSIX_FADV_WILLNEED)
  return ::posix_fadvise(fileno(fp_), at, off_t(bytes), POSIX_FADV_WILLNEED) == 0;
#else
  (void)at;
  (void)bytes;
  return false;
#endif
}

Status LayerParams::read(size_t offset_floats, float* dst, size_t count) {
  if (offset_floats + count > layer_.param_floats())
    return Status(ErrorKind::kInternal, "layer " + std::to_string(layer_.index) + " read past its parameters");
  return file_.read(begin_ + offset_floats, dst, count, layer_.index, layer_.kind());
}

const float* LayerParams::view(size_t offset_floats, size_t count, Status* st) {
  *st = Status::Ok();
  if (offset_floats + count > layer_.param_floats()) return nullptr;  // read() reports it
  return file_.view(begin_ + offset_floats, count, layer_.index, layer_.kind(), st);
}

namespace {

// splitmix64: tiny, fast, and identical on every platform (std distributions are not).
struct SplitMix {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  float uniform(float lo, float hi) { return lo + (hi - lo) * float((next() >> 40) * (1.0 / 16777216.0)); }
};

}  // namespace

Status generate_weights(const Network& net, const std::string& path, uint64_t seed, const WeightsHeader& header) {
  std::FILE* fp = std::fopen(path.c_str(), "wb");
  if (!fp) return Status(ErrorKind::kIo, path + ": cannot create (" + std::strerror(errno) + ")");
  bool ok = std::fwrite(&header.major, 4, 1, fp) == 1 && std::fwrite(&header.minor, 4, 1, fp) == 1 &&
            std::fwrite(&header.revision, 4, 1, fp) == 1;
  if (header.seen_is_64bit()) {
    ok = ok && std::fwrite(&header.seen, 8, 1, fp) == 1;
  } else {
    uint32_t s = uint32_t(header.seen);
    ok = ok && std::fwrite(&s, 4, 1, fp) == 1;
  }
  std::vector<float> chunk;
  for (const auto& l : net.layers) {
    SplitMix rng{seed * 0x100000001B3ull + uint64_t(l->index) + 1};
    size_t laid = 0;
    for (const ParamSegment& seg : l->param_layout()) {
      float lo = -0.1f, hi = 0.1f;
      switch (seg.role) {
        case ParamRole::kBias: lo = -0.1f; hi = 0.1f; break;
        case ParamRole::kScale: lo = 0.5f; hi = 1.5f; break;
        case ParamRole::kMean: lo = -0.1f; hi = 0.1f; break;
        case ParamRole::kVariance: lo = 0.5f; hi = 1.5f; break;
        case ParamRole::kWeight: {
          const float a = float(std::sqrt(3.0 / double(seg.fan_in ? seg.fan_in : 1)));
          lo = -a;
          hi = a;
          break;
        }
      }
      for (size_t done = 0; done < seg.count && ok;) {
        const size_t n = std::min<size_t>(seg.count - done, 1 << 20);
        chunk.resize(n);
        for (float& v : chunk) v = rng.uniform(lo, hi);
        ok = std::fwrite(chunk.data(), 4, n, fp) == n;
        done += n;
      }
      laid += seg.count;
    }
    if (laid != l->param_floats()) {
      std::fclose(fp);
      return Status(ErrorKind::kInternal, "layer " + std::to_string(l->index) + " param layout does not add up");
    }
  }
  if (std::fclose(fp) != 0) ok = false;
  if (!ok) return Status(ErrorKind::kIo, path + ": write failed (disk full?)");
  return Status::Ok();
}

}  // namespace mdfi
