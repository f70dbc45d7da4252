// --shard K/N: one corpus split across N machines (or N processes), each running the same
// command with its own K. An input belongs to shard 1 + FNV-1a-64(input_key(path)) mod N: a
// fixed hash of its canonical path (path_guard.h), so the split does not depend on the order of
// the list, on which inputs the other shards see, or on the machine, as long as every machine
// sees the corpus under the same absolute path (an NFS mount, or the same copy location).
// `--shard auto` takes K and N from a Slurm job array (SLURM_ARRAY_TASK_ID, _MIN, _COUNT, _STEP)
// or a Kubernetes indexed Job (JOB_COMPLETION_INDEX, with N from `--shard auto/N` or
// MDFI_SHARD_COUNT, as Kubernetes exports no count).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "status.h"

namespace mdfi::app {

struct Shard {
  size_t index = 0;  // 0-based
  size_t count = 0;  // 0: no sharding
  bool active() const { return count > 0; }
  std::string label() const { return std::to_string(index + 1) + "/" + std::to_string(count); }  // "1/3"
};

// FNV-1a, 64 bits (offset basis 14695981039346656037, prime 1099511628211), over the bytes.
uint64_t fnv1a64(const std::string& bytes);

// The 0-based shard of an input key among `count`.
size_t shard_of_key(const std::string& key, size_t count);

// "K/N" (1 <= K <= N), "auto" or "auto/N"; `env` reads an environment variable ("" when unset).
// Every failure is a one-line usage error.
Result<Shard> parse_shard(const std::string& spec, const std::function<std::string(const char*)>& env);

}  // namespace mdfi::app
