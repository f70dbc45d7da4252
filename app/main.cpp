// mdfi: the command-line front end. Parses options (CLI11), runs one subcommand, maps engine
// errors to the documented exit codes (exit_codes.h). Results go to stdout, everything else to
// stderr. The help text is meant to be complete enough to serve as the manual page.
#include <cstdio>
#include <string>
#include <vector>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <CLI/CLI.hpp>

#include "commands.h"
#include "darknet_cli.h"
#include "exit_codes.h"
#include "help_format.h"
#include "usage_errors.h"
#include "version.h"

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

// Wrapped at the help width (help_format.h): a line here is a paragraph or one entry, whose
// continuation goes under the text after its first two-space gap.
static const char* kFooter =
    "Results go to stdout (or -o FILE); progress, warnings, errors and the summary go to stderr. "
    "mdfi never prompts; only '--list -' (and a Darknet command line without an image) reads stdin.\n"
    "\n"
    "Exit codes:\n"
    "  0  every image succeeded\n"
    "  1  the run could not start or failed as a whole (model, weights, backend, output file)\n"
    "  2  usage error (bad option, bad value, no inputs, an output over an input or, without --force, "
    "over an existing picture)\n"
    "  3  the run finished but at least one input image failed (also when all of them did)\n"
    "  4  the predicted peak memory is over the budget (--max-mem)\n"
    "  130, 143  interrupted by SIGINT (Ctrl-C) or SIGTERM: the batch stopped after the image in "
    "progress and kept its finished records (text/jsonl/csv -o files; rerun with --resume)\n"
    "\n"
    "Weights of a named network (--net NAME without --weights): its official file, named as "
    "'mdfi models' shows, is looked for in this order: $MDFI_WEIGHTS (a file), the working "
    "directory, the directory holding the mdfi binary, then $MDFI_WEIGHTS_DIR (default "
    "~/.local/share/mdfi/weights).\n"
    "\n"
    "Environment:\n"
    "  MDFI_WEIGHTS      weights file for --net when --weights is not given\n"
    "  MDFI_WEIGHTS_DIR  directory searched for official weights after the working directory "
    "and the binary's (default ~/.local/share/mdfi/weights)\n"
    "  MDFI_DATA_DIR     directory holding cfg/ and data/ for named networks, searched after "
    "<bin>/../share/mdfi; the copies built into mdfi are used last\n"
    "  COLUMNS           this help is wrapped at 80 columns, or at COLUMNS when it is 40 to 79\n"
    "\n"
    "Examples:\n"
    "  mdfi detect --net yolov3-tiny dog.jpg\n"
    "  find photos -name '*.jpg' |\n"
    "    mdfi detect --net yolov3-tiny --list - --format jsonl > out.jsonl\n"
    "  mdfi detect --cfg my.cfg --weights my.weights --names my.names \\\n"
    "    --draw out/ photos/\n"
    "  mdfi classify --net darknet19 --top 3 --format csv -o classes.csv images/\n"
    "  mdfi plan --net yolov3   (predicted memory, no weights needed)\n"
    "  mdfi models              (named networks and where their weights are)\n"
    "  mdfi detector test cfg/coco.data yolov4-tiny.cfg yolov4-tiny.weights \\\n"
    "    dog.jpg -ext_output   (Darknet command lines run unchanged: app/README.md)\n"
    "\n"
    "Run 'mdfi COMMAND --help' for the options of one command.";

int main(int argc, char** argv) {
  using namespace mdfi::app;
#ifdef __GLIBC__
  // Large buffers come and go every layer. A fixed mmap threshold keeps glibc from raising it
  // dynamically and recycling freed activations inside a fragmented heap, so freed memory
  // really returns to the OS and peak RSS tracks the planned peak.
  mallopt(M_MMAP_THRESHOLD, 64 * 1024);
  mallopt(M_TRIM_THRESHOLD, 128 * 1024);
#endif
  CLI::App app{"mdfi - Micro Darknet for Inference: runs Darknet .cfg/.weights networks in little memory"};
  // Before the subcommands are added: each copies the formatter of its parent.
  app.formatter(make_help_formatter());
  app.footer(kFooter);
  app.require_subcommand(1);
  app.set_version_flag("--version", version_text());
  app.add_flag("-q,--quiet", verbosity().quiet, "only results and errors on stderr (no progress, summary, warnings)");
  app.add_flag("-v,--verbose", verbosity().verbose, "also the layer table and per-layer timings and memory");
  struct Cmd {
    const char* name;
    Action run;
  };
  const Cmd cmds[] = {
      {"detect", add_detect_command(app)},     {"classify", add_classify_command(app)},
      {"models", add_models_command(app)},     {"info", add_info_command(app)},
      {"plan", add_plan_command(app)},         {"gen-weights", add_gen_weights_command(app)},
      {"devices", add_devices_command(app)},   {"bench", add_bench_command(app)},
      {"merge", add_merge_command(app)},
  };
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) sub->fallthrough();
  // A Darknet command line becomes the mdfi command it stands for.
  const DarknetCommand dn = translate_darknet(argc, argv);
  std::vector<char*> dn_argv;
  if (dn.matched) {
    if (!dn.error.empty()) {
      std::fprintf(stderr, "mdfi: error: %s\n", dn.error.c_str());
      return kExitUsage;
    }
    for (const std::string& n : dn.notes) std::fprintf(stderr, "mdfi: note: %s\n", n.c_str());
    for (const std::string& a : dn.argv) dn_argv.push_back(const_cast<char*>(a.c_str()));
    argc = int(dn_argv.size());
    argv = dn_argv.data();
  }
  bool asks_help = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    asks_help = asks_help || a == "-h" || a == "--help" || a == "--version";
  }
  if (!asks_help) {
    const std::string bad = precheck_usage(app, argc, argv);
    if (!bad.empty()) {
      std::fprintf(stderr, "mdfi: error: %s\n", bad.c_str());
      return kExitUsage;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line in mdfi's own words; CLI11's codes are remapped to the documented one.
    std::fprintf(stderr, "mdfi: error: %s\n", usage_message(app, e, argc, argv).c_str());
    return kExitUsage;
  }
  for (const Cmd& c : cmds)
    if (app.got_subcommand(c.name)) return c.run();
  return kExitUsage;
}
