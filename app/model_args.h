// Options shared by every command that names a network, and their resolution into a Network.
#pragma once

#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "network.h"

namespace mdfi::app {

struct ModelArgs {
  std::string net;      // --net NAME
  std::string cfg;      // --cfg FILE
  std::string weights;  // --weights FILE
  std::string names;    // --names FILE
  std::string data;     // --data FILE.data (Darknet's names=/classes=)
  int width = 0, height = 0;
  std::string compat = "auto";  // pjreddie | alexeyab | auto (engine/compat.h decides)
  std::string winograd = "auto";  // --winograd off|auto|f2|f4 (engine/conv_choice.h)
  const char* task = nullptr;   // "detect"/"classify" for commands that run one task: named networks of the
                                // other task are refused
};

void add_model_options(CLI::App& cmd, ModelArgs& args, const char* default_net, bool with_weights);

struct ResolvedModel {
  std::string name;          // named network or the cfg path
  std::string cfg_path;      // the cfg on disk, or "built-in cfg/NAME.cfg" when cfg_embedded is set
  std::string_view cfg_embedded;     // the built-in cfg text (named networks with no cfg on disk)
  std::string labels_path;   // may be empty; "built-in data/..." when labels_embedded is set
  std::string_view labels_embedded;  // the built-in label list
  std::string labels_origin;  // why these labels (for -v): "--names", "--data x.data", "beside the cfg", ...
  int data_classes = -1;      // classes= of --data, -1 when none
  std::string weights_path;  // may be empty when not needed
};

// need_weights: fail when no weights file can be found.
Result<ResolvedModel> resolve_model(const ModelArgs& args, const char* default_net, bool need_weights);
Result<Network> build_model(const ResolvedModel& m, const ModelArgs& args);

}  // namespace mdfi::app
