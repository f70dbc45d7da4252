// Darknet command lines, run unchanged: scripts written for pjreddie's or AlexeyAB's `darknet`
// keep working with `mdfi` in its place.
//
//   darknet detector test DATA CFG WEIGHTS [IMG] [-thresh T] [-hier H] [-ext_output] [-dont_show]
//                                               [-out FILE] [-save_labels] [-i N] [-gpus L]
//   darknet detect CFG WEIGHTS [IMG] [-thresh T] [-ext_output]      (DATA is cfg/coco.data)
//   darknet classifier predict DATA CFG WEIGHTS [IMG] [-t TOP]
//
// Without IMG the image paths are read from stdin, one per line (`... < list.txt`), as
// AlexeyAB reads them. Each form is rewritten into the mdfi command it stands for (detect or
// classify with -c/-w/--data/--thresh ...; the .data file is read by data_file.h, as for
// --data) plus hidden options that select Darknet's text layout; app/README.md lists the mapping. Anything else of Darknet's is a one-line error
// naming the mdfi equivalent.
#pragma once

#include <string>
#include <vector>

namespace mdfi::app {

struct DarknetCommand {
  bool matched = false;            // argv is a Darknet form (or a Darknet command mdfi refuses)
  std::string error;               // set: refuse with exit 2 and this line
  std::vector<std::string> argv;   // the mdfi command line it maps to
  std::vector<std::string> notes;  // ignored options, said on stderr
};

DarknetCommand translate_darknet(int argc, char** argv);

}  // namespace mdfi::app
