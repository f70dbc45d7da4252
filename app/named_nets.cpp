#include "named_nets.h"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

#ifndef MDFI_SOURCE_DIR
#define MDFI_SOURCE_DIR ""
#endif
#ifndef MDFI_INSTALL_DATADIR
#define MDFI_INSTALL_DATADIR ""
#endif

namespace mdfi::app {

// SHA-256 of the official files: pjreddie.com publishes none. The two values below are the ones
// recorded independently by several public download manifests (checked while writing this); the
// others are left empty and reported as "unknown" rather than guessed.
const std::vector<NamedNet>& named_nets() {
  static const std::vector<NamedNet> nets = {
      {"yolov3", "yolov3.cfg", "coco.names", "detect", "yolov3.weights", "https://pjreddie.com/media/files/yolov3.weights",
       "523e4e69e1d015393a1b0a441cef1d9c7659e3eb2d7e15f793f060a21b32f297"},
      {"yolov3-tiny", "yolov3-tiny.cfg", "coco.names", "detect", "yolov3-tiny.weights",
       "https://pjreddie.com/media/files/yolov3-tiny.weights",
       "dccea06f59b781ec1234ddf8d1e94b9519a97f4245748a7d4db75d5b7080a42c"},
      {"alexnet", "alexnet.cfg", "/usr/share/darknet/data/imagenet.shortnames.list", "classify", "alexnet.weights",
       "https://pjreddie.com/media/files/alexnet.weights", ""},
      {"tiny", "tiny.cfg", "/usr/share/darknet/data/imagenet.shortnames.list", "classify", "tiny.weights",
       "https://pjreddie.com/media/files/tiny.weights", ""},
      {"darknet19", "darknet19.cfg", "/usr/share/darknet/data/imagenet.shortnames.list", "classify",
       "darknet19.weights", "https://pjreddie.com/media/files/darknet19.weights", ""},
      {"darknet53", "darknet53.cfg", "/usr/share/darknet/data/imagenet.shortnames.list", "classify",
       "darknet53.weights", "https://pjreddie.com/media/files/darknet53.weights", ""},
      {"resnet50", "resnet50.cfg", "/usr/share/darknet/data/imagenet.shortnames.list", "classify",
       "resnet50.weights", "https://pjreddie.com/media/files/resnet50.weights", ""},
  };
  return nets;
}

const NamedNet* find_named_net(const std::string& name) {
  for (const NamedNet& n : named_nets())
    if (name == n.name) return &n;
  return nullptr;
}

std::string named_net_list() {
  std::string s;
  for (const NamedNet& n : named_nets()) s += (s.empty() ? "" : ", ") + std::string(n.name);
  return s;
}

static bool is_dir(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string data_root() {
  if (const char* env = std::getenv("MDFI_DATA_DIR"); env && *env) return env;
  char exe[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    std::string dir(exe);
    dir = dir.substr(0, dir.rfind('/'));
    const std::string installed = dir + "/../share/mdfi";
    if (is_dir(installed + "/cfg")) return installed;
  }
  if (is_dir(std::string(MDFI_INSTALL_DATADIR) + "/cfg")) return MDFI_INSTALL_DATADIR;
  return MDFI_SOURCE_DIR;
}

std::string cfg_path_for(const NamedNet& n) { return data_root() + "/cfg/" + n.cfg; }

std::string labels_path_for(const NamedNet& n) {
  if (n.labels[0] == '/' || n.labels[0] == '\0') return n.labels;
  return data_root() + "/data/" + n.labels;
}

std::string weights_dir() {
  if (const char* env = std::getenv("MDFI_WEIGHTS_DIR"); env && *env) return env;
  const char* home = std::getenv("HOME");
  return std::string(home ? home : "") + "/.local/share/mdfi/weights";
}

Result<std::string> find_weights(const NamedNet& n, const std::string& explicit_path) {
  if (!explicit_path.empty()) return explicit_path;
  std::string looked;
  if (const char* env = std::getenv("MDFI_WEIGHTS"); env && *env) {
    if (is_file(env)) return std::string(env);
    looked += std::string(" $MDFI_WEIGHTS=") + env + ";";
  }
  const std::string p = weights_dir() + "/" + n.weights;
  if (is_file(p)) return p;
  looked += " " + p;
  return Result<std::string>(ErrorKind::kIo, std::string("no weights for '") + n.name + "': looked at" + looked +
                                                 "; pass --weights FILE, or fetch the official file with "
                                                 "scripts/get-weights.sh " + n.name + " (" + n.url +
                                                 "), or make test weights with 'mdfi gen-weights --net " + n.name + "'");
}

}  // namespace mdfi::app
