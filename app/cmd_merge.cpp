// `mdfi merge`: joins the JSONL files of several runs (the shards of one corpus, a run and its
// rerun) into one, each input once. Records are keyed by input: a record's "path" (written by
// --shard runs: the input's canonical path), else its "image" made canonical as --resume does
// (resume.h; a stream frame "SRC#N" by its source and frame). For a key seen more than once the
// last record read wins (files in the order given, lines in file order), so `merge old new`
// lets a rerun's records replace the old ones. The output is sorted by key, so the same records
// give the same bytes whatever the order of the files; each record is written as it was read.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "exit_codes.h"
#include "output.h"
#include "path_guard.h"
#include "resume.h"

namespace mdfi::app {

namespace {

struct MergeArgs {
  std::vector<std::string> files;
  std::string output;
  bool force = false;
};

struct Merged {
  std::map<std::string, std::string> records;  // key -> the record's line
  std::set<std::string> shards;                // "K/N" seen
  size_t read = 0, replaced = 0;
};

Status read_jsonl(const std::string& file, Merged& m) {
  std::string text;
  if (file == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    text = ss.str();
  } else {
    std::ifstream f(file, std::ios::binary);
    if (!f) return Status(ErrorKind::kIo, file + ": cannot read it");
    std::ostringstream ss;
    ss << f.rdbuf();
    text = ss.str();
  }
  const std::string name = file == "-" ? "stdin" : file;
  size_t pos = 0, line_no = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    const bool cut = nl == std::string::npos;
    std::string line = text.substr(pos, cut ? std::string::npos : nl - pos);
    pos = cut ? text.size() : nl + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    const bool record = !j.is_discarded() && j.is_object() && j.contains("image") && j["image"].is_string();
    if (!record && cut) {  // a last line cut short (a run killed mid-write): not a record
      if (!verbosity().quiet)
        std::fprintf(stderr, "mdfi: warning: %s: its last line is cut short (an interrupted run); left out\n",
                     name.c_str());
      break;
    }
    if (!record)
      return Status(ErrorKind::kIo, name + ":" + std::to_string(line_no) +
                                        ": not an mdfi JSONL record (merge reads --format jsonl files): " +
                                        line.substr(0, 80));
    std::string key;
    if (j.contains("path") && j["path"].is_string())
      key = j["path"].get<std::string>();
    else
      key = record_key(j["image"].get<std::string>(), j.contains("frame"));
    if (j.contains("shard") && j["shard"].is_string()) m.shards.insert(j["shard"].get<std::string>());
    ++m.read;
    auto [it, fresh] = m.records.insert({key, line});
    if (!fresh) {
      it->second = std::move(line);  // the last one read wins
      ++m.replaced;
    }
  }
  return Status::Ok();
}

// Shards of different counts, or a count with some shard missing: said on stderr (a shard that
// had no inputs has no records either, so this is a warning, not an error).
void check_shards(const std::set<std::string>& shards) {
  if (shards.empty() || verbosity().quiet) return;
  std::map<std::string, std::set<std::string>> by_count;
  for (const std::string& s : shards) by_count[s.substr(s.find('/') + 1)].insert(s.substr(0, s.find('/')));
  if (by_count.size() > 1) {
    std::string all;
    for (const std::string& s : shards) all += (all.empty() ? "" : ", ") + s;
    std::fprintf(stderr, "mdfi: warning: merge: records of splits into different numbers of shards (%s)\n",
                 all.c_str());
    return;
  }
  const auto& [count, have] = *by_count.begin();
  std::string missing;
  const long n = std::strtol(count.c_str(), nullptr, 10);
  for (long k = 1; k <= n && k <= 100000; ++k)
    if (!have.count(std::to_string(k))) missing += (missing.empty() ? "" : ", ") + std::to_string(k) + "/" + count;
  if (!missing.empty())
    std::fprintf(stderr, "mdfi: warning: merge: no records of shard %s (not run yet, or it had no inputs)\n",
                 missing.c_str());
}

}  // namespace

Action add_merge_command(CLI::App& app) {
  auto args = std::make_shared<MergeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "merge",
      "join JSONL results (the shards of one corpus, a run and its rerun) into one, each input once: keyed by "
      "\"path\" (--shard runs) else the image's canonical path, the last record read wins, sorted by key");
  cmd->add_option("files", args->files, "JSONL files of `detect`/`classify --format jsonl` ('-' = stdin)")->required();
  cmd->add_option("--output,-o", args->output, "write the merged records to FILE (written whole, then renamed into "
                                               "place) instead of stdout");
  cmd->add_flag("--force", args->force, "let -o replace an existing picture (never one of the files merged)");
  return [args]() {
    InputFiles read;
    read.add_all(args->files);
    if (Status st = read.check_output(args->output, "-o", args->force); !st.ok()) return report(st);
    if (Status st = OutputSink::check_writable(args->output); !st.ok()) return report(st);
    Merged m;
    for (const std::string& f : args->files)
      if (Status st = read_jsonl(f, m); !st.ok()) return report(st);
    check_shards(m.shards);
    auto sink = OutputSink::open(args->output, OutputSink::Mode::kAtomic);
    if (!sink.ok()) return report(sink.status());
    for (const auto& [key, line] : m.records) std::fprintf((*sink)->file(), "%s\n", line.c_str());
    if (Status st = (*sink)->commit(); !st.ok()) return report(st);
    if (!verbosity().quiet)
      std::fprintf(stderr, "mdfi: merge: %zu records from %zu files: %zu inputs (%zu duplicates, the last read kept)\n",
                   m.read, args->files.size(), m.records.size(), m.replaced);
    return int(kExitOk);
  };
}

}  // namespace mdfi::app
