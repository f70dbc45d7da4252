// The layer registry (engine/layer_registry.h) and `mdfi info --layers`.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "layer_registry.h"
#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

TEST_CASE("the layer registry: one entry per section, names and aliases resolve, info --layers prints it", "[layers]") {
  std::vector<std::string> spellings{net_registration().section};
  for (const char* a : net_registration().aliases) spellings.push_back(a);
  std::vector<std::string> sections;
  for (const LayerRegistration& r : registered_layers()) {
    INFO(r.section);
    CHECK(r.create != nullptr);
    CHECK(*r.doc != '\0');
    CHECK(find_registration(r.section) == &r);
    CHECK(canonical_section(r.section) == r.section);
    for (const char* a : r.aliases) CHECK(canonical_section(a) == r.section);
    sections.push_back(r.section);
    spellings.push_back(r.section);
    spellings.insert(spellings.end(), r.aliases.begin(), r.aliases.end());
  }
  CHECK(find_registration("net") == &net_registration());
  CHECK(find_registration("deconvolutional") == nullptr);  // parsed, refused by build_network
  std::sort(spellings.begin(), spellings.end());
  CHECK(std::adjacent_find(spellings.begin(), spellings.end()) == spellings.end());  // no spelling twice
  std::sort(sections.begin(), sections.end());
  CHECK(sections == supported_layer_types());
  auto r = run_command(mdfi_binary() + " info --layers");
  REQUIRE(r.exit_code == 0);
  for (const LayerRegistration& reg : registered_layers())
    CHECK(r.out.find("[" + std::string(reg.section) + "]\n") != std::string::npos);
  for (const char* s : {"[net]", "[scale_channels]", "[region]", "[local]", "scale_x_y", "weights_type",
                        "groups, group_id", "letter_box", "mish"})
    CHECK(r.out.find(s) != std::string::npos);
}
