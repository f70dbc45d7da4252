// Every layer registration, in the order `mdfi info --layers` lists them. X(name) stands for the
// function `LayerRegistration register_<name>()` that engine/layers/<file>.cpp defines. Adding a
// layer adds one line here; forgetting it fails the build (layer_registry.cpp checks the count
// against the registration functions CMake finds in engine/layers/*.cpp), and a line whose
// function does not exist fails the link.
#pragma once

#define MDFI_LAYER_LIST(X) \
  X(conv)                  \
  X(connected)             \
  X(maxpool)               \
  X(avgpool)               \
  X(route)                 \
  X(shortcut)              \
  X(upsample)              \
  X(yolo)                  \
  X(region)                \
  X(reorg)                 \
  X(detection)             \
  X(local)                 \
  X(crop)                  \
  X(batchnorm)             \
  X(normalization)         \
  X(dropout)               \
  X(cost)                  \
  X(softmax)               \
  X(scale_channels)        \
  X(sam)                   \
  X(reorg3d)               \
  X(local_avgpool)         \
  X(contrastive)           \
  X(gaussian_yolo)         \
  X(crnn)
