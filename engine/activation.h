// Darknet's activation functions, with its exact formulas (activations.h of pjreddie Darknet, and
// of AlexeyAB Darknet for the ones only it has), applied in place after a layer's linear part.
#pragma once

#include <cstddef>
#include <string>

namespace mdfi {

enum class Activation {
  kLinear, kLogistic, kLoggy, kRelu, kElu, kSelu, kRelie, kRamp, kLeaky, kTanh, kPlse, kStair, kHardtan, kLhtan,
  // AlexeyAB Darknet only (its float formulas): a cfg using one was trained there.
  kMish, kSwish, kRelu6, kHardMish, kGelu,
};

// false when the name is not one of Darknet's.
bool parse_activation(const std::string& name, Activation* out);
const char* to_string(Activation a);
std::string activation_names();  // "linear, logistic, ..." for error messages
// True for the activations only AlexeyAB Darknet defines (mish, swish, relu6, hard_mish, gelu).
bool is_alexeyab_activation(Activation a);

float activate(float x, Activation a);
void activate_array(float* x, size_t n, Activation a);

}  // namespace mdfi
