#include "softmax_tree.h"

#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace mdfi {

Result<SoftmaxTree> read_softmax_tree(const std::string& path) {
  std::ifstream f(path);
  if (!f) return Result<SoftmaxTree>(ErrorKind::kIo, path + ": cannot open the softmax tree file");
  SoftmaxTree t;
  int last_parent = -1, group_size = 0, line_no = 0;
  int groups = 0;  // groups closed so far; the open one is number `groups`
  for (std::string line; std::getline(f, line);) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::istringstream ls(line);
    std::string name;
    int parent = -1;
    // Darknet: sscanf("%s %d"), the parent staying -1 when absent.
    if (!(ls >> name)) return Result<SoftmaxTree>(ErrorKind::kCfg, path + ":" + std::to_string(line_no) + ": empty line in the tree");
    if (!(ls >> parent)) parent = -1;
    const int n = t.n();
    if (parent < -1 || parent >= n)
      return Result<SoftmaxTree>(ErrorKind::kCfg, path + ":" + std::to_string(line_no) + ": parent " +
                                                      std::to_string(parent) + " is not an earlier line");
    if (n >= 1000000) return Result<SoftmaxTree>(ErrorKind::kCfg, path + ": more than 10^6 classes, refused");
    if (parent != last_parent) {
      t.group_offset.push_back(n - group_size);
      t.group_size.push_back(group_size);
      ++groups;
      group_size = 0;
      last_parent = parent;
    }
    t.parent.push_back(parent);
    t.child.push_back(-1);
    if (parent >= 0) t.child[size_t(parent)] = groups;
    ++group_size;
  }
  if (t.n() == 0) return Result<SoftmaxTree>(ErrorKind::kCfg, path + ": the softmax tree file is empty");
  t.group_offset.push_back(t.n() - group_size);
  t.group_size.push_back(group_size);
  // Darknet's first group is closed on the first parent change; a file whose first lines
  // are not roots opens with an empty group, which Darknet keeps too (a softmax over nothing).
  return t;
}

std::string find_beside_cfg(const std::string& cfg_path, const std::string& name, std::vector<std::string>* tried) {
  std::vector<std::string> c{name};
  if (!name.empty() && name[0] != '/') {
    const size_t slash = cfg_path.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "." : cfg_path.substr(0, slash);
    c.push_back(dir + "/" + name);
    c.push_back(dir + "/../" + name);
  }
  for (const std::string& p : c) {
    if (tried) tried->push_back(p);
    struct stat st;
    if (::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return p;
  }
  return "";
}

void hierarchy_predictions(float* pred, const SoftmaxTree& tree, int stride) {
  for (int j = 0; j < tree.n(); ++j) {
    const int parent = tree.parent[size_t(j)];
    if (parent >= 0) pred[size_t(j) * stride] *= pred[size_t(parent) * stride];
  }
}

int hierarchy_top_prediction(const float* pred, const SoftmaxTree& tree, float thresh, int stride) {
  float p = 1;
  int group = 0;
  for (;;) {
    float max = 0;
    int max_i = 0;
    const int off = tree.group_offset[size_t(group)];
    for (int i = 0; i < tree.group_size[size_t(group)]; ++i) {
      const float val = pred[size_t(i + off) * stride];
      if (val > max) {
        max_i = i + off;
        max = val;
      }
    }
    if (p * max > thresh) {
      p = p * max;
      group = tree.child[size_t(max_i)];
      if (group < 0) return max_i;
    } else if (group == 0) {
      return max_i;
    } else {
      return tree.parent[size_t(tree.group_offset[size_t(group)])];
    }
  }
}

}  // namespace mdfi
