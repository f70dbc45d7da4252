#include "npy.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace mdfi {

Status write_npy(const std::string& path, const float* data, const std::vector<size_t>& shape) {
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
  size_t count = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    dict += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? ", " : "");
    count *= shape[i];
  }
  if (shape.size() == 1) dict.resize(dict.size() - 1);
  dict += "), }";
  // Magic (6) + version (2) + length (2) + dict + padding + '\n' is a multiple of 64.
  size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> fp(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!fp) return Status(ErrorKind::kIo, path + ": cannot create (" + std::strerror(errno) + ")");
  const unsigned char head[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  const uint16_t len = uint16_t(dict.size());
  bool ok = std::fwrite(head, 1, 8, fp.get()) == 8 && std::fwrite(&len, 2, 1, fp.get()) == 1 &&
            std::fwrite(dict.data(), 1, dict.size(), fp.get()) == dict.size() &&
            std::fwrite(data, 4, count, fp.get()) == count;
  if (!ok) return Status(ErrorKind::kIo, path + ": write failed");
  return Status::Ok();
}

Result<NpyArray> read_npy(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> fp(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!fp) return Result<NpyArray>(ErrorKind::kIo, path + ": cannot open (" + std::strerror(errno) + ")");
  unsigned char head[10];
  if (std::fread(head, 1, 10, fp.get()) != 10 || std::memcmp(head, "\x93NUMPY", 6) != 0)
    return Result<NpyArray>(ErrorKind::kIo, path + ": not a .npy file");
  const size_t len = size_t(head[8]) | size_t(head[9]) << 8;
  std::string dict(len, '\0');
  if (std::fread(&dict[0], 1, len, fp.get()) != len) return Result<NpyArray>(ErrorKind::kIo, path + ": truncated header");
  if (dict.find("'<f4'") == std::string::npos || dict.find("'fortran_order': False") == std::string::npos)
    return Result<NpyArray>(ErrorKind::kIo, path + ": only little-endian float32 C-order arrays are supported");
  NpyArray a;
  size_t p = dict.find('(');
  size_t q = dict.find(')', p);
  if (p == std::string::npos || q == std::string::npos) return Result<NpyArray>(ErrorKind::kIo, path + ": no shape");
  std::string dims = dict.substr(p + 1, q - p - 1);
  size_t count = 1;
  for (size_t i = 0; i < dims.size();) {
    while (i < dims.size() && (dims[i] == ',' || dims[i] == ' ')) ++i;
    if (i >= dims.size()) break;
    size_t v = std::strtoul(dims.c_str() + i, nullptr, 10);
    a.shape.push_back(v);
    count *= v;
    while (i < dims.size() && dims[i] != ',') ++i;
  }
  a.data.resize(count);
  if (std::fread(a.data.data(), 4, count, fp.get()) != count) return Result<NpyArray>(ErrorKind::kIo, path + ": truncated data");
  return a;
}

}  // namespace mdfi
