// The layer registry: every section type build_network can build. Each layer declares itself
// once, in its own engine/layers/<type>.cpp, as a `LayerRegistration register_<name>()`
// function: its section name and aliases, the keys it reads, what is AlexeyAB-only about it, a
// line of documentation and its factory. layers/layer_list.h names those functions in the order
// `mdfi info --layers` prints them. Everything that used to be a per-layer table elsewhere is
// derived from here: build_network's factory lookup, the parser's aliases (cfg.cpp), the
// `--compat auto` features (compat.cpp) and `mdfi info --layers`. engine/README.md says why it
// is a list of explicit calls rather than static initialisers.
#pragma once

#include <string>
#include <vector>

#include "layer.h"

namespace mdfi {

using LayerFactory = LayerResult (*)(const SectionReader&, const BuildContext&);

struct LayerRegistration {
  const char* section = "";          // canonical name, as [section] is written: "convolutional"
  std::vector<const char*> aliases;  // Darknet's other spellings (parser.c): {"conv"}
  const char* keys = "";             // the keys read at inference, as `mdfi info --layers` lists them
  // Keys accepted and deliberately ignored (training only): build_network marks them read before
  // the factory runs, so the unused-key warning (Darknet's typo catcher) stays quiet about them.
  std::vector<const char*> ignored;
  const char* doc = "";              // one line: what it computes, where the two Darknets differ
  // --compat auto: a cfg that has this section, or one of these keys in it, was written for
  // AlexeyAB Darknet (pjreddie's parser.c has neither).
  bool alexeyab_section = false;
  std::vector<const char*> alexeyab_keys;
  // AlexeyAB-only keys that mark a cfg as AlexeyAB's in whatever section they stand: no pjreddie
  // section reads them, and cfgs copy a head's training keys around.
  std::vector<const char*> alexeyab_keys_anywhere;
  LayerFactory create = nullptr;  // nullptr only for [net], which build_network reads itself
};

// Every buildable layer, in `mdfi info --layers` order. Built on first use, then constant.
const std::vector<LayerRegistration>& registered_layers();
// [net]: not a layer, but documented, aliased and compat-checked the same way (network.cpp).
const LayerRegistration& net_registration();
// The registration for a canonical section name ([net] included), or nullptr.
const LayerRegistration* find_registration(const std::string& section);

}  // namespace mdfi
