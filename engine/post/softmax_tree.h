// Darknet's softmax tree (yolo9000's 9k.tree): one line per class, "name parent_index" with -1
// for a root. Consecutive lines with the same parent form a group; a softmax runs inside each
// group, and a class's probability is the product down its path (hierarchy_predictions). Read
// as Darknet's read_tree does (group numbering, each parent's child group), but checked: a line
// that does not parse, a parent that is not an earlier line, or a file that does not open is an
// error naming the file and line.
#pragma once

#include <string>
#include <vector>

#include "status.h"

namespace mdfi {

struct SoftmaxTree {
  std::vector<int> parent;        // per class, -1 at a root
  std::vector<int> child;         // per class, the group of its children, -1 for a leaf
  std::vector<int> group_offset;  // per group, its first class
  std::vector<int> group_size;    // per group, its number of classes
  int n() const { return int(parent.size()); }
};

Result<SoftmaxTree> read_softmax_tree(const std::string& path);

// Where Darknet would find `name` (a tree= or map= value): Darknet opens it relative to its
// working directory, which is the Darknet checkout whose cfg/ holds the cfg. mdfi tries, in
// order: the path itself (relative to the working directory), next to the cfg, and next to the
// cfg's directory (cfg/x.cfg + data/9k.tree). `tried` lists each candidate for the message.
std::string find_beside_cfg(const std::string& cfg_path, const std::string& name, std::vector<std::string>* tried);

// pjreddie's hierarchy_predictions (in place, over n classes `stride` floats apart) and
// hierarchy_top_prediction: the deepest class along the most likely path whose probability stays
// over `thresh`.
void hierarchy_predictions(float* pred, const SoftmaxTree& tree, int stride);
int hierarchy_top_prediction(const float* pred, const SoftmaxTree& tree, float thresh, int stride);

}  // namespace mdfi
