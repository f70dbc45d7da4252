// Darknet .data files (app/data_file.*): the keys mdfi reads, Darknet's whitespace stripping and
// first-occurrence lookup, names= resolution, and telling a .data file from a names list.
#include <catch2/catch.hpp>

#include <fstream>

#include "app/data_file.h"
#include "support.h"

using namespace mdfi;
using namespace mdfi::app;
using namespace mdfi::test;

TEST_CASE("data file: Darknet's coco.data keys, whitespace stripped, first occurrence wins", "[cli]") {
  auto d = parse_data_text("classes= 80\ntrain  = /data/coco/trainvalno5k.txt\n# comment\n; also\n\n"
                           "names = data/my coco.names\nnames = second.names\nbackup = /backup/\neval=coco\r\n",
                           "coco.data");
  REQUIRE(d.ok());
  CHECK(d->classes() == 80);
  REQUIRE(d->names_entry() != nullptr);
  CHECK(d->names_entry()->value == "data/mycoco.names");  // Darknet's strip() drops inner spaces too
  CHECK(d->names_entry()->line == 6);
  CHECK(d->find("eval")->value == "coco");
  auto cls = parse_data_text("classes=1000\nlabels = data/imagenet.labels.list\n", "imagenet1k.data");
  REQUIRE(cls.ok());
  CHECK(cls->names_entry()->key == "labels");  // the classifier's fallback key
  CHECK(parse_data_text("train=x\n", "t.data")->classes() == -1);
}

TEST_CASE("data file: a names list or a bad classes= is an error naming file:line", "[cli]") {
  auto names = parse_data_text("person\nbicycle\n", "coco.names");
  REQUIRE(!names.ok());
  CHECK(names.status().message() == "coco.names:1: not a Darknet .data line (key=value expected): 'person'");
  auto cls = parse_data_text("# x\nclasses=eighty\n", "bad.data");
  REQUIRE(!cls.ok());
  CHECK(cls.status().message().find("bad.data:2: classes") == 0);
  CHECK(looks_like_data_text("valid  = coco_testdev\n"));
  CHECK(looks_like_data_text(" classes = 3\nnames=x\n"));
  CHECK(!looks_like_data_text("person\ntraffic light\nhair drier\n"));
  CHECK(looks_like_data_file("whatever.data"));
}

TEST_CASE("data file: names= relative to the working directory, then the .data file's directory and its parent", "[cli]") {
  const std::string root = tmp_dir("data_file_resolve");
  REQUIRE(run_command("mkdir -p '" + root + "/cfg' '" + root + "/labels'").exit_code == 0);
  std::ofstream(root + "/labels/mdfi-test-voc.names") << "aeroplane\n";
  std::ofstream(root + "/cfg/beside.names") << "aeroplane\n";
  auto up = parse_data_text("names=labels/mdfi-test-voc.names\n", root + "/cfg/voc.data");
  REQUIRE(up.ok());
  CHECK(*resolve_names_path(*up) == root + "/cfg/../labels/mdfi-test-voc.names");
  auto beside = parse_data_text("names=beside.names\n", root + "/cfg/voc.data");
  CHECK(*resolve_names_path(*beside) == root + "/cfg/beside.names");
  auto abs = parse_data_text("names=" + root + "/labels/mdfi-test-voc.names\n", "/elsewhere/voc.data");
  CHECK(*resolve_names_path(*abs) == root + "/labels/mdfi-test-voc.names");
  auto missing = parse_data_text("\nnames=data/nope.names\n", root + "/cfg/voc.data");
  auto r = resolve_names_path(*missing);
  REQUIRE(!r.ok());
  CHECK(r.status().message().find(root + "/cfg/voc.data:2: names=data/nope.names: no such file") == 0);
  auto none = parse_data_text("classes=2\n", "two.data");
  CHECK(!resolve_names_path(*none).ok());
}
