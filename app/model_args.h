// Options shared by every command that names a network, and their resolution into a Network.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "network.h"

namespace mdfi::app {

struct ModelArgs {
  std::string net;      // --net NAME
  std::string cfg;      // --cfg FILE
  std::string weights;  // --weights FILE
  std::string names;    // --names FILE
  int width = 0, height = 0;
  std::string compat = "auto";  // pjreddie | alexeyab | auto (engine/compat.h decides)
};

void add_model_options(CLI::App& cmd, ModelArgs& args, const char* default_net, bool with_weights);

struct ResolvedModel {
  std::string name;          // named network or the cfg path
  std::string cfg_path;
  std::string labels_path;   // may be empty
  std::string weights_path;  // may be empty when not needed
};

// need_weights: fail when no weights file can be found.
Result<ResolvedModel> resolve_model(const ModelArgs& args, const char* default_net, bool need_weights);
Result<Network> build_model(const ResolvedModel& m, const ModelArgs& args);

}  // namespace mdfi::app
