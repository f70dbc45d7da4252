// Batch input expansion: image paths from the command line, from --list FILE (one path per
// line, "-" = stdin; leading and trailing blanks trimmed, blank lines and '#' comments skipped) and from directories (the images directly inside, sorted by name). Paths
// are kept as given even when they do not exist: a missing file is reported per image, in the
// results, instead of ending the batch.
#pragma once

#include <istream>
#include <string>
#include <vector>

#include "status.h"

namespace mdfi::app {

// File name extensions (lower case, no dot) that a directory scan picks up.
bool has_image_extension(const std::string& name);

// A cfg, weights or data file among the positional paths is a mistake of order, not an image that
// fails to decode: Darknet users write `detect WEIGHTS CFG` or put options before `detect CFG
// WEIGHTS`, and the run would otherwise load the default network and fail on its missing weights.
// A usage error naming the file and its option; OK for anything else.
Status refuse_model_file(const std::string& path);

// Order: the positional paths, then the list's lines. `list_stdin` serves "--list -".
Result<std::vector<std::string>> expand_inputs(const std::vector<std::string>& paths, const std::string& list_file,
                                               std::istream& list_stdin);

}  // namespace mdfi::app
