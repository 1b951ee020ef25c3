// The lone-run file keeps every curve size at once, and the all-pairs matrix at a bounded cost.
#include <gtest/gtest.h>

#include <filesystem>

#include "record/record_writer.hpp"
#include "support/command.hpp"
#include "support/h5_file.hpp"
#include "support/sample_record.hpp"

namespace npgpu {
namespace {

std::string lone_run_file(const test::TempDir& dir) {
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    if (entry.path().extension() == ".run") return entry.path().string();
  return "";
}

std::string saved_reason(const test::TempDir& dir) {
  const test::H5File file(lone_run_file(dir));
  const std::vector<std::string> runs = file.members("/runs");
  return runs.empty() ? "" : file.text_attribute("/runs/" + runs.front(), "status_reason");
}

TEST(SnapshotReporter, WritesEveryCurveSize) {
  test::TempDir dir;
  RecordWriter writer(dir.file("record.h5"));
  SnapshotReporter snapshots(writer);
  RunRecord record = test::sample_record();
  for (const char* reason : {"size 1", "size 2"}) {
    record.status_reason = reason;
    snapshots.size_done(record, 0, 0, {1, 9, 0});
    EXPECT_EQ(saved_reason(dir), reason);
  }
}

TEST(SnapshotReporter, RewritesTheMatrixOnlyOnceTenTimesTheLastWriteHasPassedAndAlwaysAtTheEnd) {
  test::TempDir dir;
  RecordWriter writer(dir.file("record.h5"));
  SnapshotReporter snapshots(writer);
  RunRecord record = test::sample_record();
  record.status_reason = "step 1";
  snapshots.matrix_cells_done(record, 1, 0, {1, 3, 0});  // the first is written
  record.status_reason = "step 2";
  snapshots.matrix_cells_done(record, 2, 0, {2, 3, 0});  // at once after: not
  EXPECT_EQ(saved_reason(dir), "step 1");
  record.status_reason = "step 3";
  snapshots.matrix_cells_done(record, 3, 0, {3, 3, 0});  // the last, at once after: written
  EXPECT_EQ(saved_reason(dir), "step 3");
}

}  // namespace
}  // namespace npgpu
