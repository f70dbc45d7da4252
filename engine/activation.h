// Darknet's activation functions, with its exact formulas (activations.h of pjreddie Darknet),
// applied in place after a layer's linear part.
#pragma once

#include <cstddef>
#include <string>

namespace mdfi {

enum class Activation {
  kLinear, kLogistic, kLoggy, kRelu, kElu, kSelu, kRelie, kRamp, kLeaky, kTanh, kPlse, kStair, kHardtan, kLhtan,
};

// false when the name is not one of Darknet's.
bool parse_activation(const std::string& name, Activation* out);
const char* to_string(Activation a);
std::string activation_names();  // "linear, logistic, ..." for error messages

float activate(float x, Activation a);
void activate_array(float* x, size_t n, Activation a);

}  // namespace mdfi
