// ncnn's side of bench/arm-insn-count.sh: the work `mdfi detect` / `mdfi classify` does per image,
// done with ncnn, so qemu's instruction counts of the two compare like for like. Cross-built for
// aarch64 by that script against ../shared/peers/ncnn; never part of the project build.
//
//   ncnn_insn PARAM BIN WIDTH HEIGHT IMAGE...
//
// Per image: PNG/JPEG decode (stb_image, as mdfi's fallback decoder), a bilinear resize to the
// network size (ncnn's from_pixels_resize), scaling to [0, 1], the network on one thread in fp32
// (fp16/bf16 off, Winograd and sgemm on as by default) up to its last layer, so YOLO box decoding
// and NMS (Yolov3DetectionOutput) are included. Prints the number of outputs per image.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#include <stb/stb_image.h>

#include "net.h"

// The input blob and the last layer's output blob, from the .param text.
static bool find_blobs(const char* param, std::string* input, std::string* output) {
  std::ifstream f(param);
  std::string line;
  while (std::getline(f, line)) {
    std::istringstream s(line);
    std::string type, name, b;
    int n_in = 0, n_out = 0;
    if (!(s >> type >> name >> n_in >> n_out)) continue;
    for (int i = 0; i < n_in; ++i) s >> b;
    std::string first_out;
    for (int i = 0; i < n_out; ++i) s >> b, first_out = i == 0 ? b : first_out;
    if (type == "Input") *input = first_out;
    if (!first_out.empty()) *output = first_out;
  }
  return !input->empty() && !output->empty();
}

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s PARAM BIN WIDTH HEIGHT IMAGE...\n", argv[0]);
    return 2;
  }
  std::string input, output;
  if (!find_blobs(argv[1], &input, &output)) {
    std::fprintf(stderr, "%s: no Input layer or output blob\n", argv[1]);
    return 1;
  }
  const int width = std::atoi(argv[3]), height = std::atoi(argv[4]);
  ncnn::Net net;
  net.opt.num_threads = 1;
  net.opt.use_fp16_storage = false;
  net.opt.use_fp16_packed = false;
  net.opt.use_fp16_arithmetic = false;
  net.opt.use_bf16_storage = false;
  net.opt.use_int8_inference = false;
  if (net.load_param(argv[1]) != 0 || net.load_model(argv[2]) != 0) {
    std::fprintf(stderr, "%s / %s: ncnn could not load the model\n", argv[1], argv[2]);
    return 1;
  }
  const float norm[3] = {1 / 255.f, 1 / 255.f, 1 / 255.f};
  for (int i = 5; i < argc; ++i) {
    int w = 0, h = 0, n = 0;
    unsigned char* rgb = stbi_load(argv[i], &w, &h, &n, 3);
    if (!rgb) {
      std::fprintf(stderr, "%s: cannot decode\n", argv[i]);
      return 1;
    }
    ncnn::Mat in = ncnn::Mat::from_pixels_resize(rgb, ncnn::Mat::PIXEL_RGB, w, h, width, height);
    stbi_image_free(rgb);
    in.substract_mean_normalize(nullptr, norm);
    ncnn::Extractor ex = net.create_extractor();
    ex.input(input.c_str(), in);
    ncnn::Mat out;
    if (ex.extract(output.c_str(), out) != 0) {
      std::fprintf(stderr, "%s: extract %s failed\n", argv[1], output.c_str());
      return 1;
    }
    std::printf("%s: %d outputs\n", argv[i], out.h);
  }
  return 0;
}
