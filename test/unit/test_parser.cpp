// Parser unit tests (issue 2, item 3): every piece of Darknet's cfg grammar that engine/cfg.cpp
// accepts, every way it refuses a file, and the network-level checks of engine/network.cpp and
// the reference-resolving layers. Each error must carry the file:line a user would open, so the
// checks compare messages against lines counted by hand in the cfg text of each case.
#include <catch2/catch.hpp>

#include <string>

#include "cfg.h"
#include "network.h"
#include "plan.h"
#include "support.h"

using namespace mdfi;
using namespace mdfi::test;

namespace {

// Parses text that must be valid; fails the test with the parser's message otherwise.
CfgFile parse_ok(const std::string& text, const std::string& path = "p.cfg") {
  auto r = parse_cfg_text(text, path);
  INFO((r.ok() ? std::string() : r.status().message()));
  REQUIRE(r.ok());
  return *r;
}

// The message of a parse that must fail with a cfg error.
std::string parse_error(const std::string& text, const std::string& path = "p.cfg") {
  auto r = parse_cfg_text(text, path);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().kind() == ErrorKind::kCfg);
  return r.status().message();
}

// The message of a network build that must fail; cfg text is written to NAME so messages have a path.
std::string build_error(const std::string& text, const std::string& name = "parser_bad.cfg") {
  auto r = network_from_text(text, name);
  REQUIRE_FALSE(r.ok());
  return r.status().message();
}

Network build_ok(const std::string& text, const std::string& name = "parser_ok.cfg") {
  auto r = network_from_text(text, name);
  INFO((r.ok() ? std::string() : r.status().message()));
  REQUIRE(r.ok());
  return std::move(*r);
}

const std::string kNet8 = "[net]\nwidth=8\nheight=8\nchannels=3\n";  // lines 1-4

}  // namespace

TEST_CASE("section aliases resolve to Darknet's canonical names", "[parser]") {
  const std::pair<const char*, const char*> pairs[] = {
      {"net", "net"},         {"network", "net"},         {"conv", "convolutional"}, {"convolutional", "convolutional"},
      {"max", "maxpool"},     {"maxpool", "maxpool"},     {"avg", "avgpool"},        {"avgpool", "avgpool"},
      {"soft", "softmax"},    {"softmax", "softmax"},     {"conn", "connected"},     {"connected", "connected"},
      {"lrn", "normalization"}, {"normalization", "normalization"}, {"deconv", "deconvolutional"},
      {"route", "route"},     {"shortcut", "shortcut"},   {"upsample", "upsample"},  {"yolo", "yolo"},
      {"region", "region"},   {"reorg", "reorg"},         {"dropout", "dropout"},    {"cost", "cost"},
      {"crop", "crop"},       {"local", "local"},         {"detection", "detection"}, {"batchnorm", "batchnorm"}};
  for (const auto& p : pairs) {
    INFO(p.first);
    CHECK(canonical_section(p.first) == p.second);
    const CfgFile f = parse_ok("[net]\n[" + std::string(p.first) + "]\n");
    REQUIRE(f.sections.size() == 2);
    CHECK(f.sections[1].name == p.second);
    CHECK(f.sections[1].raw_name == p.first);
    CHECK(f.sections[1].line == 2);
  }
  CHECK(canonical_section("Conv").empty());  // Darknet compares case-sensitively
  CHECK(canonical_section("convolution").empty());

  // The short spellings build the same layers as the long ones.
  const Network n = build_ok(
      "[network]\nwidth=8\nheight=8\nchannels=2\n"
      "[conv]\nfilters=4\nsize=3\npad=1\nactivation=leaky\n"
      "[max]\nsize=2\nstride=2\n"
      "[avg]\n"
      "[conn]\noutput=3\nactivation=linear\n"
      "[soft]\n",
      "parser_aliases.cfg");
  REQUIRE(n.layers.size() == 5);
  CHECK(std::string(n.layers[0]->kind()) == "conv");
  CHECK(n.layers[1]->out == Shape{4, 4, 4});
  CHECK(n.layers[2]->out == Shape{4, 1, 1});
  CHECK(n.layers[3]->out == Shape{3, 1, 1});
  CHECK(n.layers[4]->out == Shape{3, 1, 1});
}

TEST_CASE("key=value ignores whitespace anywhere, including tabs", "[parser]") {
  const CfgFile f = parse_ok("  [ net ]  \n\t wid th \t=  4 16 \nheight=\t416\n[conv]\nactiv ation = lea ky\n");
  REQUIRE(f.sections.size() == 2);
  CHECK(f.sections[0].name == "net");
  const auto& o = f.sections[0].options;
  REQUIRE(o.size() == 2);
  CHECK(o[0].key == "width");
  CHECK(o[0].value == "416");
  CHECK(o[0].line == 2);
  CHECK(o[1].key == "height");
  CHECK(o[1].value == "416");
  CHECK(o[1].line == 3);
  REQUIRE(f.sections[1].options.size() == 1);
  CHECK(f.sections[1].options[0].key == "activation");
  CHECK(f.sections[1].options[0].value == "leaky");
  CHECK(f.sections[1].options[0].line == 5);

  // Values are usable through the typed reader.
  const SectionReader r(f, f.sections[0]);
  auto w = r.get_int("width", 0);
  REQUIRE(w.ok());
  CHECK(*w == 416);
}

TEST_CASE("comments with # and ; (whole-line and inline) and blank lines are skipped, lines still counted",
          "[parser]") {
  const std::string text =
      "# a whole-line hash comment\n"       // 1
      "; a whole-line semicolon comment\n"  // 2
      "\n"                                  // 3
      "[net] # header with a comment\n"     // 4
      "width=16 # sixteen\n"                // 5
      "   \t  \n"                           // 6
      "height=8;eight\n"                    // 7
      "  # indented comment\n"              // 8
      "channels=3 ; three ; more\n"         // 9
      "#[conv]\n"                           // 10 (commented-out section)
      ";filters=2\n"                        // 11
      "[maxpool]\n"                         // 12
      "size=2#two\n"                        // 13
      "stride=2\n";                         // 14
  const CfgFile f = parse_ok(text);
  REQUIRE(f.sections.size() == 2);
  CHECK(f.sections[0].line == 4);
  const auto& o = f.sections[0].options;
  REQUIRE(o.size() == 3);
  CHECK((o[0].key == "width" && o[0].value == "16" && o[0].line == 5));
  CHECK((o[1].key == "height" && o[1].value == "8" && o[1].line == 7));
  CHECK((o[2].key == "channels" && o[2].value == "3" && o[2].line == 9));
  CHECK(f.sections[1].name == "maxpool");
  CHECK(f.sections[1].line == 12);
  REQUIRE(f.sections[1].options.size() == 2);
  CHECK(f.sections[1].options[0].value == "2");
  CHECK(f.sections[1].options[0].line == 13);

  // The same text builds a network whose layer remembers line 12.
  const Network n = build_ok(text, "parser_comments.cfg");
  REQUIRE(n.layers.size() == 1);
  CHECK(n.layers[0]->cfg_line == 12);
  CHECK(n.layers[0]->out == Shape{3, 4, 8});
  CHECK(n.warnings.empty());
}

TEST_CASE("CRLF files parse like LF files, with the same line numbers", "[parser]") {
  const std::string lf = kNet8 + "\n[convolutional]\nfilters=2\nsize=1\nactivation=relu\n\n[route]\nlayers=-1\n";
  std::string crlf;
  for (char ch : lf) {
    if (ch == '\n') crlf += '\r';
    crlf += ch;
  }
  const CfgFile a = parse_ok(lf), b = parse_ok(crlf);
  REQUIRE(a.sections.size() == b.sections.size());
  for (size_t s = 0; s < a.sections.size(); ++s) {
    CHECK(a.sections[s].name == b.sections[s].name);
    CHECK(a.sections[s].line == b.sections[s].line);
    REQUIRE(a.sections[s].options.size() == b.sections[s].options.size());
    for (size_t i = 0; i < a.sections[s].options.size(); ++i) {
      CHECK(a.sections[s].options[i].key == b.sections[s].options[i].key);
      CHECK(b.sections[s].options[i].value.find('\r') == std::string::npos);
      CHECK(a.sections[s].options[i].value == b.sections[s].options[i].value);
      CHECK(a.sections[s].options[i].line == b.sections[s].options[i].line);
    }
  }
  const Network n = build_ok(crlf, "parser_crlf.cfg");
  REQUIRE(n.layers.size() == 2);
  CHECK(n.layers[0]->cfg_line == 6);
  CHECK(n.layers[1]->cfg_line == 11);
  CHECK(n.layers[1]->out == Shape{2, 8, 8});
  CHECK(n.warnings.empty());
  // A bad CRLF line still names its line.
  const std::string msg = parse_error("[net]\r\nwidth=1\r\nbogus\r\n", "crlf-bad.cfg");
  CHECK_THAT(msg, Catch::Contains("crlf-bad.cfg:3:"));
}

TEST_CASE("list values: negative and absolute indices, spaces, trailing commas", "[parser]") {
  const CfgFile f = parse_ok(
      "[net]\n"
      "[route]\n"
      "layers = -1, 61\n"                                 // 3
      "[yolo]\n"
      "mask = 0,1,2,\n"                                   // 5
      "anchors = 10,13,  16,30,  33,23, 30,61,\t62,45\n"  // 6
      "[route]\n"
      "layers=4\n"                                        // 8
      "[yolo]\n"
      "mask=x,1\n"                                        // 10
      "anchors=1.5,nan\n"                                 // 11
      "[route]\n"
      "layers=-1,,3,,\n");                                // 13
  {
    const SectionReader r(f, f.sections[1]);
    auto v = r.get_int_list("layers");
    REQUIRE(v.ok());
    CHECK(*v == std::vector<int>{-1, 61});
    auto absent = r.get_int_list("nothing");
    REQUIRE(absent.ok());
    CHECK(absent->empty());
  }
  {
    const SectionReader r(f, f.sections[2]);
    auto m = r.get_int_list("mask");
    REQUIRE(m.ok());
    CHECK(*m == std::vector<int>{0, 1, 2});
    auto a = r.get_float_list("anchors");
    REQUIRE(a.ok());
    CHECK(*a == std::vector<float>{10, 13, 16, 30, 33, 23, 30, 61, 62, 45});
  }
  {
    const SectionReader r(f, f.sections[3]);
    auto v = r.get_int_list("layers");
    REQUIRE(v.ok());
    CHECK(*v == std::vector<int>{4});
  }
  {
    const SectionReader r(f, f.sections[4]);
    auto m = r.get_int_list("mask");
    REQUIRE_FALSE(m.ok());
    CHECK_THAT(m.status().message(), Catch::Contains("p.cfg:10:") && Catch::Contains("'mask'") && Catch::Contains("'x'"));
    auto a = r.get_float_list("anchors");
    REQUIRE_FALSE(a.ok());
    CHECK_THAT(a.status().message(), Catch::Contains("p.cfg:11:") && Catch::Contains("nan"));
  }
  {
    const SectionReader r(f, f.sections[5]);
    auto v = r.get_int_list("layers");
    REQUIRE(v.ok());
    CHECK(*v == std::vector<int>{-1, 3});  // empty items between commas are skipped, as in Darknet
  }
}

TEST_CASE("typed values: ints, floats, fallbacks, first occurrence wins, and where()", "[parser]") {
  const CfgFile f = parse_ok(
      "[net]\n"
      "a=12\n"        // 2
      "b=-3\n"        // 3
      "f=0.25\n"      // 4
      "g=1e-3\n"      // 5
      "a=99\n"        // 6 (repeated: Darknet reads the first)
      "s=leaky\n"     // 7
      "bad=3x\n"      // 8
      "fl=1.5\n"      // 9
      "big=99999999999\n"  // 10
      "nan=nan\n"     // 11
      "inf=inf\n"     // 12
      "empty=\n");    // 13
  const SectionReader r(f, f.sections[0]);
  CHECK(*r.get_int("a", 0) == 12);
  CHECK(*r.get_int("b", 0) == -3);
  CHECK(*r.get_int("missing", 7) == 7);
  CHECK(*r.get_float("f", 0) == 0.25f);
  CHECK(*r.get_float("g", 0) == 1e-3f);
  CHECK(*r.get_float("missing", 2.5f) == 2.5f);
  CHECK(r.get_string("s", "") == "leaky");
  CHECK(r.get_string("missing", "fallback") == "fallback");
  CHECK(r.has("a"));
  CHECK_FALSE(r.has("missing"));
  CHECK(r.where("a") == "p.cfg:2");
  CHECK(r.where("s") == "p.cfg:7");
  CHECK(r.where("missing") == "p.cfg:1");  // falls back to the header line
  CHECK(r.where() == "p.cfg:1");

  auto bad = r.get_int("bad", 0);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().kind() == ErrorKind::kCfg);
  CHECK_THAT(bad.status().message(), Catch::StartsWith("p.cfg:8:") && Catch::Contains("'bad' expects an integer") &&
                                         Catch::Contains("'3x'"));
  auto fl = r.get_int("fl", 0);  // a float where an integer belongs
  REQUIRE_FALSE(fl.ok());
  CHECK_THAT(fl.status().message(), Catch::StartsWith("p.cfg:9:"));
  auto big = r.get_int("big", 0);
  REQUIRE_FALSE(big.ok());
  CHECK_THAT(big.status().message(), Catch::StartsWith("p.cfg:10:"));
  for (const char* key : {"nan", "inf"}) {
    auto v = r.get_float(key, 0);
    REQUIRE_FALSE(v.ok());
    CHECK_THAT(v.status().message(), Catch::Contains("expects a number"));
  }
  CHECK_THAT(r.get_float("nan", 0).status().message(), Catch::StartsWith("p.cfg:11:"));
  CHECK_THAT(r.get_float("inf", 0).status().message(), Catch::StartsWith("p.cfg:12:"));
  CHECK_FALSE(r.get_int("empty", 0).ok());
  CHECK_THAT(r.get_int("empty", 0).status().message(), Catch::StartsWith("p.cfg:13:"));
  CHECK_FALSE(r.get_float("empty", 0).ok());
  auto req = r.require_int("needed");
  REQUIRE_FALSE(req.ok());
  CHECK_THAT(req.status().message(), Catch::StartsWith("p.cfg:1:") && Catch::Contains("needs 'needed'"));
}

TEST_CASE("grammar errors name file:line", "[parser]") {
  SECTION("unknown section") {
    const std::string msg = parse_error("[net]\nwidth=1\n\n[convolutionl]\n");
    CHECK_THAT(msg, Catch::StartsWith("p.cfg:4:") && Catch::Contains("unknown section [convolutionl]") &&
                        Catch::Contains("convolutional"));  // the known list helps spot the typo
  }
  SECTION("key without '='") {
    CHECK_THAT(parse_error("[net]\nwidth 416\n"), Catch::StartsWith("p.cfg:2:") && Catch::Contains("expected key=value") &&
                                                    Catch::Contains("width416"));
    CHECK_THAT(parse_error("[net]\nwidth=1\n=5\n"), Catch::StartsWith("p.cfg:3:") && Catch::Contains("expected key=value"));
  }
  SECTION("key before any section") {
    CHECK_THAT(parse_error("# leading comment\nwidth=416\n[net]\n"),
               Catch::StartsWith("p.cfg:2:") && Catch::Contains("'width' before any [section]"));
  }
  SECTION("first section is not [net]") {
    CHECK_THAT(parse_error("\n[conv]\nfilters=1\n[net]\n"),
               Catch::StartsWith("p.cfg:2:") && Catch::Contains("first section must be [net]") &&
                   Catch::Contains("[conv]"));
  }
  SECTION("empty file, whitespace only, comments only") {
    for (const char* text : {"", "\n\n  \n", "# nothing\n; here\n"}) {
      INFO("text: " << text);
      CHECK_THAT(parse_error(text), Catch::StartsWith("p.cfg:") && Catch::Contains("empty cfg"));
    }
  }
  SECTION("NUL bytes") {
    std::string text = "[net]\nwidth=1\n";
    text += '\0';
    text += "height=1\n";
    CHECK_THAT(parse_error(text), Catch::StartsWith("p.cfg:") && Catch::Contains("NUL"));
  }
  SECTION("malformed headers") {
    CHECK_THAT(parse_error("[net]\n[conv\n"), Catch::StartsWith("p.cfg:2:") && Catch::Contains("malformed section header"));
    CHECK_THAT(parse_error("[net]\nwidth=3\n[]\n"), Catch::StartsWith("p.cfg:3:") && Catch::Contains("malformed"));
    CHECK_THAT(parse_error("[net]x\n"), Catch::StartsWith("p.cfg:1:") && Catch::Contains("malformed"));
  }
  SECTION("a long line is clipped in the message") {
    const std::string msg = parse_error("[net]\n" + std::string(5000, 'k') + "\n");
    CHECK_THAT(msg, Catch::StartsWith("p.cfg:2:"));
    CHECK(msg.size() < 300);
  }
}

TEST_CASE("cfg files on disk: missing, directory, and the path in messages", "[parser]") {
  auto missing = parse_cfg_file("/nonexistent/dir/x.cfg");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().kind() == ErrorKind::kIo);
  CHECK_THAT(missing.status().message(), Catch::StartsWith("/nonexistent/dir/x.cfg:"));
  const std::string dir = tmp_dir("parser_dir");
  auto d = parse_cfg_file(dir);
  REQUIRE_FALSE(d.ok());
  CHECK(d.status().kind() == ErrorKind::kIo);
  CHECK_THAT(d.status().message(), Catch::Contains("directory"));
  // Messages from a file on disk carry its path as written.
  const std::string msg = build_error("[net]\nwidth=abc\nheight=1\nchannels=1\n[avg]\n", "parser_nonnum.cfg");
  CHECK_THAT(msg, Catch::Contains("nonnum.cfg:2:") && Catch::Contains("'width' expects an integer"));
}

TEST_CASE("network values: non-numeric, NaN and out-of-range values are errors with file:line", "[parser]") {
  CHECK_THAT(build_error(kNet8 + "[convolutional]\nfilters=sixteen\nsize=3\n"),
             Catch::Contains("bad.cfg:6:") && Catch::Contains("'filters' expects an integer"));
  CHECK_THAT(build_error(kNet8 + "[convolutional]\nfilters=2\nsize=3\nstride=2.5\n"),
             Catch::Contains("bad.cfg:8:") && Catch::Contains("'stride'"));
  CHECK_THAT(build_error(kNet8 + "[upsample]\nstride=2\nscale=nan\n"),
             Catch::Contains("bad.cfg:7:") && Catch::Contains("'scale' expects a number"));
  CHECK_THAT(build_error(kNet8 + "[convolutional]\nfilters=2\n\nsize=1\nactivation=leeky\n"),
             Catch::Contains("bad.cfg:9:") && Catch::Contains("unknown activation 'leeky'"));
  CHECK_THAT(build_error(kNet8 + "[convolutional]\nfilters=0\n"), Catch::Contains("bad.cfg:6:") && Catch::Contains("filters"));
  CHECK_THAT(build_error(kNet8 + "[convolutional]\nsize=1\n"),
             Catch::Contains("bad.cfg:5:") && Catch::Contains("needs 'filters'"));
  CHECK_THAT(build_error("[net]\nwidth=8\nheight=-8\nchannels=3\n[avg]\n"),
             Catch::Contains("bad.cfg:1:") && Catch::Contains("positive width, height and channels"));
  CHECK_THAT(build_error(kNet8 + "[avg]\n[net]\n"), Catch::Contains("bad.cfg:6:") && Catch::Contains("second [net]"));
  CHECK_THAT(build_error(kNet8), Catch::Contains("no layers"));
}

TEST_CASE("unknown and unused keys are warnings with file:line, training keys are not", "[parser]") {
  const Network n = build_ok(
      "[net]\n"
      "batch=64\n"            // 2: training-only, known
      "subdivisions=16\n"     // 3
      "width=8\nheight=8\nchannels=1\n"
      "learning_rate=0.001\n"  // 7
      "widht=416\n"            // 8: typo
      "[convolutional]\n"      // 9
      "filters=2\nsize=1\nactivation=linear\n"
      "filtres=3\n"            // 13: typo
      "[maxpool]\n"            // 14
      "size=2\nstride=2\n"
      "colour=red\n",          // 17
      "parser_warn.cfg");
  REQUIRE(n.warnings.size() == 3);
  CHECK_THAT(n.warnings[0], Catch::Contains("warn.cfg:8:") && Catch::Contains("'widht'") && Catch::Contains("[net]"));
  CHECK_THAT(n.warnings[1], Catch::Contains("warn.cfg:13:") && Catch::Contains("'filtres'") &&
                                Catch::Contains("[convolutional]"));
  CHECK_THAT(n.warnings[2], Catch::Contains("warn.cfg:17:") && Catch::Contains("'colour'") && Catch::Contains("[maxpool]"));

  // The warning names the section as written.
  const Network m = build_ok(kNet8 + "[conv]\nfilters=1\nsize=1\nfoo=1\n", "parser_warn2.cfg");
  REQUIRE(m.warnings.size() == 1);
  CHECK_THAT(m.warnings[0], Catch::Contains("warn2.cfg:8:") && Catch::Contains("[conv]"));
}

TEST_CASE("batch is always 1 and width/height can be overridden", "[parser]") {
  const std::string text =
      "[net]\nbatch=64\nsubdivisions=8\nwidth=16\nheight=12\nchannels=3\n"
      "[convolutional]\nfilters=4\nsize=3\nstride=2\npad=1\nactivation=leaky\n"
      "[connected]\noutput=5\nactivation=linear\n";
  const Network n = build_ok(text, "parser_batch.cfg");
  CHECK(n.input_shape() == Shape{3, 12, 16});
  CHECK(n.layers[0]->out == Shape{4, 6, 8});
  CHECK(n.layers[1]->out == Shape{5, 1, 1});
  // Activations are sized for one image: batch=64 does not multiply anything.
  const Plan p = make_plan(n);
  CHECK(p.input_bytes == size_t(3 * 12 * 16) * sizeof(float));
  REQUIRE(p.layers.size() == 2);
  CHECK(p.layers[0].output_bytes == size_t(4 * 6 * 8) * sizeof(float));
  CHECK(n.layers[1]->param_floats() == size_t(5 + 5 * 4 * 6 * 8));
  CHECK(n.warnings.empty());

  auto cfg = parse_cfg_text(text, "parser_batch.cfg");
  REQUIRE(cfg.ok());
  BuildOptions opts;
  opts.width = 32;
  opts.height = 20;
  auto big = build_network(*cfg, opts);
  REQUIRE(big.ok());
  CHECK(big->input_shape() == Shape{3, 20, 32});
  CHECK(big->layers[0]->out == Shape{4, 10, 16});
  CHECK(big->layers[1]->param_floats() == size_t(5 + 5 * 4 * 10 * 16));
  BuildOptions only_w;
  only_w.width = 24;
  auto wide = build_network(*cfg, only_w);
  REQUIRE(wide.ok());
  CHECK(wide->input_shape() == Shape{3, 12, 24});
}

TEST_CASE("each layer records its cfg line and sources resolve negative and absolute indices", "[parser]") {
  const Network n = build_ok(kNet8 +                       // 1-4
                                 "\n"                       // 5
                                 "[convolutional]\n"        // 6  layer 0
                                 "filters=2\nsize=1\nactivation=linear\n"
                                 "# comment\n"              // 10
                                 "[convolutional]\n"        // 11 layer 1
                                 "filters=3\nsize=1\nactivation=linear\n"
                                 "[route]\n"                // 15 layer 2
                                 "layers=-1, 0\n"
                                 "[shortcut]\n"             // 17 layer 3
                                 "from=-3\n"
                                 "activation=linear\n"
                                 "[route]\n"                // 20 layer 4
                                 "layers=1\n",
                             "parser_lines.cfg");
  REQUIRE(n.layers.size() == 5);
  const int lines[] = {6, 11, 15, 17, 20};
  for (int i = 0; i < 5; ++i) {
    CHECK(n.layers[size_t(i)]->index == i);
    CHECK(n.layers[size_t(i)]->cfg_line == lines[i]);
  }
  CHECK(n.layers[0]->sources == std::vector<int>{-1});
  CHECK(n.layers[2]->sources == std::vector<int>{1, 0});
  CHECK(n.layers[2]->out == Shape{5, 8, 8});
  CHECK(n.layers[3]->sources == std::vector<int>{2, 0});
  CHECK(n.layers[4]->sources == std::vector<int>{1});
  CHECK(n.layers[4]->out == Shape{3, 8, 8});
}

TEST_CASE("route errors name the layer and cfg line", "[parser]") {
  const std::string base = kNet8 + "[convolutional]\nfilters=2\nsize=1\n"  // layer 0 at line 5
                                   "[maxpool]\nsize=2\nstride=2\n";         // layer 1 at line 8, 4x4
  SECTION("index out of range") {
    CHECK_THAT(build_error(base + "[route]\nlayers=-5\n"),  // layer 2, key at line 12
               Catch::StartsWith(std::string(MDFI_TEST_TMP) + "/parser_bad.cfg:12:") && Catch::Contains("layer 2") &&
                   Catch::Contains("out of range"));
  }
  SECTION("forward reference and self reference") {
    CHECK_THAT(build_error(base + "[route]\nlayers=-1,3\n"),
               Catch::Contains("bad.cfg:12:") && Catch::Contains("layer 2") && Catch::Contains("not an earlier layer"));
    CHECK_THAT(build_error(base + "[route]\nlayers=2\n"),
               Catch::Contains("bad.cfg:12:") && Catch::Contains("not an earlier layer"));
  }
  SECTION("sources of different sizes") {
    CHECK_THAT(build_error(base + "[route]\nlayers=-1,0\n"),
               Catch::Contains("bad.cfg:12:") && Catch::Contains("layer 2") && Catch::Contains("different size") &&
                   Catch::Contains("8x8") && Catch::Contains("4x4"));
  }
  SECTION("no layers") {
    CHECK_THAT(build_error(base + "[route]\n"), Catch::Contains("bad.cfg:11:") && Catch::Contains("needs layers="));
  }
  SECTION("a route as the first layer") {
    CHECK_THAT(build_error(kNet8 + "[route]\nlayers=-1\n"), Catch::Contains("bad.cfg:6:") && Catch::Contains("layer 0"));
  }
}

TEST_CASE("shortcut errors name the layer and cfg line", "[parser]") {
  const std::string base = kNet8 + "[convolutional]\nfilters=2\nsize=1\n"  // layer 0 (8x8), line 5
                                   "[maxpool]\nsize=2\nstride=2\n";         // layer 1 (4x4), line 8
  CHECK_THAT(build_error(base + "[shortcut]\nfrom=-9\n"),
             Catch::Contains("bad.cfg:12:") && Catch::Contains("layer 2") && Catch::Contains("out of range"));
  CHECK_THAT(build_error(base + "[shortcut]\nfrom=5\n"),
             Catch::Contains("bad.cfg:12:") && Catch::Contains("layer 2") && Catch::Contains("not an earlier layer"));
  CHECK_THAT(build_error(base + "[shortcut]\n"), Catch::Contains("bad.cfg:11:") && Catch::Contains("needs from="));
  CHECK_THAT(build_error(base + "[shortcut]\nfrom=0\nalpha=abc\n"), Catch::Contains("bad.cfg:13:") && Catch::Contains("'alpha'"));
  // Width and height scale by different factors (8x4 onto 1x1): Darknet's asserts refuse it.
  CHECK_THAT(build_error("[net]\nwidth=8\nheight=4\nchannels=1\n"
                         "[convolutional]\nfilters=1\nsize=1\n"  // layer 0: 8x4, line 5
                         "[connected]\noutput=2\n"                // layer 1: 1x1, line 8
                         "[shortcut]\nfrom=0\n"),                  // layer 2, from at line 11
             Catch::Contains("bad.cfg:11:") && Catch::Contains("layer 2") && Catch::Contains("from layer 0") &&
                 Catch::Contains("cannot be added"));
  // A different-shape source with one integer factor on both axes is fine (ResNet-50).
  const Network ok = build_ok(base + "[shortcut]\nfrom=0\n", "parser_sc_ok.cfg");
  CHECK(ok.layers[2]->out == Shape{2, 4, 4});
}

TEST_CASE("yolo classes/filters mismatch and mask/anchor errors name the layer and line", "[parser]") {
  const std::string head = kNet8 + "[convolutional]\nfilters=20\nsize=1\nactivation=linear\n";  // line 5
  CHECK_THAT(build_error(head + "[yolo]\nmask=0,1,2\nanchors=1,1,2,2,3,3\nclasses=80\nnum=3\n"),
             Catch::Contains("bad.cfg:9:") && Catch::Contains("layer 1 [yolo]") && Catch::Contains("20 channels") &&
                 Catch::Contains("255") && Catch::Contains("filters="));
  CHECK_THAT(build_error(head + "[yolo]\nmask=0,5\nclasses=5\nnum=3\n"),
             Catch::Contains("bad.cfg:10:") && Catch::Contains("mask index 5"));
  CHECK_THAT(build_error(head + "[yolo]\nmask=0,1\nanchors=1,1,2\nclasses=5\nnum=2\n"),
             Catch::Contains("bad.cfg:11:") && Catch::Contains("3 anchor values"));
  const Network ok = build_ok(head + "[yolo]\nmask=0,1\nanchors=1,1, 2,2, 3,3,\nclasses=5\nnum=3\n", "parser_yolo_ok.cfg");
  CHECK(ok.layers[1]->out == Shape{20, 8, 8});
  CHECK(ok.warnings.empty());
}

TEST_CASE("upsample: stride<0 needs a divisible size, stride 0 is refused", "[parser]") {
  CHECK_THAT(build_error("[net]\nwidth=6\nheight=6\nchannels=1\n[upsample]\nstride=-4\n"),
             Catch::Contains("bad.cfg:5:") && Catch::Contains("layer 0 [upsample]") && Catch::Contains("not divisible"));
  CHECK_THAT(build_error(kNet8 + "[upsample]\nstride=0\n"), Catch::Contains("bad.cfg:6:") && Catch::Contains("stride"));
  const Network down = build_ok("[net]\nwidth=6\nheight=6\nchannels=1\n[upsample]\nstride=-3\n", "parser_up_ok.cfg");
  CHECK(down.layers[0]->out == Shape{1, 2, 2});
  const Network up = build_ok(kNet8 + "[upsample]\nstride=3\n", "parser_up_ok2.cfg");
  CHECK(up.layers[0]->out == Shape{3, 24, 24});
}
