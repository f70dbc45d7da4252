// The test runner: Catch2's session, with exit codes ctest can tell apart. Catch2 v2 returns the
// number of failed assertions (1..255), so any failure is mapped to 1 and a run that skipped a
// test (support.h MDFI_SKIP) and failed nothing exits kSkipExitCode, which ctest shows as skipped.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>

#include "support.h"

int main(int argc, char** argv) {
  Catch::Session session;
  if (const int rc = session.applyCommandLine(argc, argv); rc != 0) return rc;
  const Catch::ConfigData& cfg = session.configData();
  const bool listing = cfg.listTests || cfg.listTestNamesOnly || cfg.listTags || cfg.listReporters || cfg.showHelp;
  const int failed = session.run();
  if (listing) return 0;  // Catch2 returns the number listed
  if (failed != 0) return 1;
  const auto& skips = mdfi::test::recorded_skips();
  if (skips.empty()) return 0;
  std::printf("%zu test(s) skipped:\n", skips.size());
  for (const std::string& why : skips) std::printf("  SKIPPED: %s\n", why.c_str());
  return mdfi::test::kSkipExitCode;
}
