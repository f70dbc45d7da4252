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

// Order: the positional paths, then the list's lines. `list_stdin` serves "--list -".
Result<std::vector<std::string>> expand_inputs(const std::vector<std::string>& paths, const std::string& list_file,
                                               std::istream& list_stdin);

}  // namespace mdfi::app
