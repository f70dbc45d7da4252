// mdfi: the command-line front end. Parses options (CLI11), runs one subcommand, maps engine
// errors to the documented exit codes. Results go to stdout, everything else to stderr.
#include <cstdio>

#include <CLI/CLI.hpp>

#include "commands.h"
#include "exit_codes.h"

namespace mdfi::app {

Verbosity& verbosity() {
  static Verbosity v;
  return v;
}

int report(const Status& st) {
  std::fprintf(stderr, "mdfi: error: %s\n", st.message().c_str());
  return exit_code_for(st);
}

}  // namespace mdfi::app

int main(int argc, char** argv) {
  using namespace mdfi::app;
  CLI::App app{"mdfi - Micro Darknet for Inference: runs Darknet .cfg/.weights networks in little memory"};
  app.footer(
      "Exit codes: 0 ok; 1 the run failed as a whole (model, weights, output); 2 usage error;\n"
      "            3 at least one input image failed; 4 predicted memory over --max-mem.");
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("mdfi ") + MDFI_VERSION);
  app.add_flag("-q,--quiet", verbosity().quiet, "only results and errors");
  app.add_flag("-v,--verbose", verbosity().verbose, "more diagnostics");
  std::vector<std::pair<CLI::App*, Action>> actions;
  Action info = add_info_command(app);
  Action plan = add_plan_command(app);
  Action gen = add_gen_weights_command(app);
  Action detect = add_detect_command(app);
  Action classify = add_classify_command(app);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) sub->fallthrough();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;  // CLI11's own codes are remapped to the documented one
  }
  if (app.got_subcommand("info")) return info();
  if (app.got_subcommand("plan")) return plan();
  if (app.got_subcommand("gen-weights")) return gen();
  if (app.got_subcommand("detect")) return detect();
  if (app.got_subcommand("classify")) return classify();
  return kExitUsage;
}
