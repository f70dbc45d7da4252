// Darknet .weights files: the header (int32 major, minor, revision; then `seen` as uint64 when
// major*10+minor >= 2 and both are < 1000, else int32 - never size_t, which breaks 32-bit
// boards), then each layer's parameters in cfg order. Offsets come from the cfg alone, the file
// size is checked exactly before any compute, and one layer's range is read on demand.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "layer.h"
#include "network.h"

namespace mdfi {

struct WeightsHeader {
  int32_t major = 0, minor = 2, revision = 0;
  uint64_t seen = 0;
  size_t bytes() const { return seen_is_64bit() ? 20 : 16; }
  // Darknet's test, in 64 bits: a corrupt header's major * 10 overflows an int.
  bool seen_is_64bit() const { return int64_t(major) * 10 + minor >= 2 && major < 1000 && minor < 1000; }
  bool transposed() const { return major > 1000 || minor > 1000; }
};

// Offset (in floats, after the header) of each layer's parameters; one extra entry = the total.
std::vector<size_t> layer_param_offsets(const Network& net);

class WeightsFile {
 public:
  WeightsFile() = default;
  ~WeightsFile();
  WeightsFile(WeightsFile&& o) noexcept;
  WeightsFile& operator=(WeightsFile&& o) noexcept;
  WeightsFile(const WeightsFile&) = delete;
  WeightsFile& operator=(const WeightsFile&) = delete;

  // Opens the file and reads the header only.
  static Result<WeightsFile> open(const std::string& path);
  // Checks the size is exactly header + all parameters of `net`; names the first misfit layer.
  Status validate(const Network& net);

  const WeightsHeader& header() const { return header_; }
  const std::string& path() const { return path_; }
  uint64_t file_bytes() const { return file_bytes_; }

  // Reads `count` floats at `offset_floats` past the header. Errors name the file and layer.
  // A NaN or Inf among them is an error (kWeights): mdfi refuses non-finite weights.
  // Safe to call from several threads at once.
  Status read(size_t offset_floats, float* dst, size_t count, int layer_index, const char* kind) const;
  // Brings `bytes` bytes at byte `offset` past the header into the page cache, waiting for them
  // (readahead(2); posix_fadvise elsewhere). For the read-ahead thread: false when it failed.
  bool read_ahead(size_t offset, size_t bytes) const;
  // The `count` floats at `offset_floats` past the header where they lie in the mapped file,
  // refused as read() refuses them (*st the error, null returned), or null with *st Ok when the
  // file is not mapped (then read() them). Valid while this object lives; the file must not be
  // truncated meanwhile (a mapped page past the new end faults: SIGBUS).
  // The file is mapped only with MDFI_MMAP=1 (open()): streamed weights are then read in place,
  // no copy out of the page cache per image (yolov4-tiny streamed, 1 thread, VM: 32.8-34.8 ->
  // 29.0-32.0 ms), but every page a run touches stays in the process's resident set (yolov3: its
  // 248 MB file on top of a 35 MB heap in the RSS figure, though clean page cache the kernel can
  // reclaim). Giving the pages back after each layer (madvise MADV_DONTNEED) cost more than the
  // copy it saved (yolov4-tiny 43-45 ms): hence opt-in.
  bool mapped() const { return map_ != nullptr; }
  const float* view(size_t offset_floats, size_t count, int layer_index, const char* kind, Status* st) const;
  // Maps the floats [offset_floats, offset_floats + count) for view() from now on (a range mapped
  // before stays): for a band group, whose steps read the same layers' weights once per band
  // (yolov4-tiny at its smallest budget: 26 bands read its first 18 layers' 1.3 MB each). The
  // pages the group touches stay in the resident set, as the whole file's do with MDFI_MMAP=1,
  // but only the groups' layers. False (views then null, reads as before) where the whole file
  // is mapped already, MDFI_MMAP=0 is set, the file is not a regular one or mapping fails.
  // Not to be called while another thread takes views.
  bool map_range(size_t offset_floats, size_t count);

 private:
  Status non_finite(const float* values, size_t count, uint64_t pos, int layer_index, const char* kind) const;
  std::string path_;
  std::FILE* fp_ = nullptr;
  const unsigned char* map_ = nullptr;  // the whole file, or null
  bool may_map_ = false;                 // a regular file, and MDFI_MMAP is not 0
  struct MappedRange {
    const unsigned char* data;
    uint64_t pos;  // file byte offset of data[0] (a page boundary)
    size_t bytes;
    // The floats asked for hold no NaN or Inf (checked once when mapped): views inside need not
    // check again (a band group views the same weights once per band). Else each view checks,
    // and the one that meets the bad value names it as read() would.
    bool finite;
  };
  std::vector<MappedRange> ranges_;  // map_range's mappings
  void unmap_all();
  WeightsHeader header_;
  uint64_t file_bytes_ = 0;
};

// The ParamSource for one layer: a window [begin, begin+count) of a WeightsFile.
class LayerParams : public ParamSource {
 public:
  LayerParams(WeightsFile& file, const Layer& layer, size_t begin)
      : file_(file), layer_(layer), begin_(begin) {}
  Status read(size_t offset_floats, float* dst, size_t count) override;
  const float* view(size_t offset_floats, size_t count, Status* st) override;
  bool transposed() const override { return file_.header().transposed(); }

 private:
  WeightsFile& file_;
  const Layer& layer_;
  size_t begin_;
};

// Writes a deterministic weights file of exactly the right size for `net`: weights uniform with
// variance 1/fan_in so activations stay finite through 100+ layers, positive BN variances.
Status generate_weights(const Network& net, const std::string& path, uint64_t seed, const WeightsHeader& header = {});

}  // namespace mdfi
