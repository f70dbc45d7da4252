#include "shard.h"

#include <cerrno>
#include <cstdlib>

namespace mdfi::app {

uint64_t fnv1a64(const std::string& bytes) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

size_t shard_of_key(const std::string& key, size_t count) { return size_t(fnv1a64(key) % uint64_t(count)); }

namespace {

// A whole non-negative decimal number below 2^31; false otherwise.
bool parse_count(const std::string& s, long long& v) {
  if (s.empty() || s.size() > 10 || s.find_first_not_of("0123456789") != std::string::npos) return false;
  v = std::strtoll(s.c_str(), nullptr, 10);
  return v < (1ll << 31);
}

Result<Shard> usage(const std::string& why) { return Result<Shard>(ErrorKind::kUsage, "--shard " + why); }

}  // namespace

Result<Shard> parse_shard(const std::string& spec, const std::function<std::string(const char*)>& env) {
  const size_t slash = spec.find('/');
  const std::string head = spec.substr(0, slash);
  const std::string tail = slash == std::string::npos ? "" : spec.substr(slash + 1);
  long long n = 0;
  if (slash != std::string::npos && (!parse_count(tail, n) || n < 1))
    return usage(spec + ": N must be a whole number of shards, at least 1 (e.g. --shard 2/3)");
  if (head != "auto") {
    long long k = 0;
    if (slash == std::string::npos || !parse_count(head, k))
      return usage(spec + ": expected K/N (shard K of N, counted from 1, e.g. 2/3), auto or auto/N");
    if (k < 1 || k > n)
      return usage(spec + ": K must be from 1 to " + std::to_string(n) + " (shards are counted from 1)");
    return Shard{size_t(k - 1), size_t(n)};
  }
  // Slurm job array: task ids MIN, MIN+STEP, ... (an --array=0-9 or 1-10 range, with or without
  // a step); index = (ID - MIN) / STEP, count = SLURM_ARRAY_TASK_COUNT.
  const std::string id = env("SLURM_ARRAY_TASK_ID");
  if (!id.empty()) {
    long long task = 0, min = 0, step = 1, count = 0;
    const std::string smin = env("SLURM_ARRAY_TASK_MIN"), sstep = env("SLURM_ARRAY_TASK_STEP"),
                      scount = env("SLURM_ARRAY_TASK_COUNT");
    if (!parse_count(id, task) || !parse_count(smin, min) || !parse_count(scount, count) || count < 1 ||
        (!sstep.empty() && (!parse_count(sstep, step) || step < 1)))
      return usage("auto: SLURM_ARRAY_TASK_ID=" + id + " needs whole numbers in SLURM_ARRAY_TASK_MIN (" + smin +
                   ") and SLURM_ARRAY_TASK_COUNT (" + scount + ")");
    if (task < min || (task - min) % step != 0 || (task - min) / step >= count)
      return usage("auto: SLURM_ARRAY_TASK_ID=" + id + " is not one of " + std::to_string(count) +
                   " tasks from SLURM_ARRAY_TASK_MIN=" + smin + " in steps of " + std::to_string(step) +
                   " (give the array as a range, e.g. --array=1-" + std::to_string(count) + ")");
    if (n && n != count)
      return usage(spec + ": the Slurm array has " + std::to_string(count) + " tasks (SLURM_ARRAY_TASK_COUNT), not " +
                   std::to_string(n));
    return Shard{size_t((task - min) / step), size_t(count)};
  }
  // Kubernetes indexed Job: JOB_COMPLETION_INDEX is 0-based; the count is the Job's
  // .spec.completions, which Kubernetes does not export: --shard auto/N or MDFI_SHARD_COUNT.
  const std::string index = env("JOB_COMPLETION_INDEX");
  if (!index.empty()) {
    long long i = 0;
    if (!parse_count(index, i)) return usage("auto: JOB_COMPLETION_INDEX=" + index + " is not a whole number");
    const std::string scount = env("MDFI_SHARD_COUNT");
    long long count = n;
    if (!count) {
      if (scount.empty())
        return usage("auto: JOB_COMPLETION_INDEX is set but Kubernetes gives no count: give --shard auto/N or set "
                     "MDFI_SHARD_COUNT to the Job's completions");
      if (!parse_count(scount, count) || count < 1)
        return usage("auto: MDFI_SHARD_COUNT=" + scount + " is not a whole number of shards, at least 1");
    } else if (!scount.empty() && scount != std::to_string(n)) {
      return usage(spec + ": MDFI_SHARD_COUNT=" + scount + " says otherwise");
    }
    if (i >= count)
      return usage("auto: JOB_COMPLETION_INDEX=" + index + " is not below the count " + std::to_string(count) +
                   " (indexes run from 0)");
    return Shard{size_t(i), size_t(count)};
  }
  return usage(spec + ": neither SLURM_ARRAY_TASK_ID (a Slurm job array) nor JOB_COMPLETION_INDEX (a Kubernetes "
                      "indexed Job) is set; give --shard K/N");
}

}  // namespace mdfi::app
