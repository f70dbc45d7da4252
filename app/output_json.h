// The JSON form of one result record, shared by --format json and --format jsonl. Built with
// nlohmann::json so every string (paths with quotes, backslashes, control characters or
// non-ASCII names) is escaped correctly; bytes that are not UTF-8 become U+FFFD instead of
// producing invalid JSON.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "results.h"

namespace mdfi::app {

nlohmann::ordered_json record_to_json(const ImageResult& r, Task task);
std::string dump_json_line(const nlohmann::ordered_json& j);  // compact, no newline

}  // namespace mdfi::app
