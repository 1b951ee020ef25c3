// npgpu report --baseline and npgpu baseline as a user meets them: a reference recorded by a real
// run of mpi over TCP, healthy launches that must pass, a launch slowed by a fault of known size
// (socket buffers of 2 KiB: over this machine's loopback every size past a few KiB moves at about
// 120 MB/s instead of GB/s) that must be found at the sizes it slows, and bad input refused.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <set>

#include <hdf5.h>

#include "report/baseline.hpp"
#include "support/command.hpp"

namespace npgpu::test {
namespace {

std::string data(const std::string& name) { return std::string(NPGPU_SOURCE_DIR) + "/tests/data/report/" + name; }

// mpi over TCP on this host, 1 B to 1 MiB; `mca` adds MCA parameters (the planted fault). Waits
// are bounded generously: a run here shares two cores with whatever else the machine does.
CommandResult record(const std::string& path, const std::vector<std::string>& mca = {}) {
  std::vector<std::string> argv = mpirun_npgpu(2, joined({"pml", "ob1", "btl", "tcp,self"}, mca));
  return run_command(joined(argv, {"--module", "mpi", "--upper", "1M", "--trial-time", "0.01", "--max-trials", "5",
                                   "--timeout", "120", "-o", path}));
}

const std::vector<std::string> kTinySocketBuffers{"btl_tcp_sndbuf", "2048", "btl_tcp_rcvbuf", "2048"};

// The sizes the baseline section names as short.
std::set<double> short_sizes(const CommandResult& report) {
  std::set<double> sizes;
  const nlohmann::json answer = nlohmann::json::parse(report.out);
  for (const auto& shortfall : answer["baseline"]["shortfalls"]) sizes.insert(shortfall["bytes"].get<double>());
  return sizes;
}

// A copy of a checked-in record whose run says it was measured another way (method 2).
void measured_another_way(const std::string& record, const std::string& run) {
  const hid_t file = H5Fopen(record.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  const hid_t group = H5Gopen2(file, run.c_str(), H5P_DEFAULT);
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t attribute = H5Acreate2(group, "method_version", H5T_NATIVE_INT64, space, H5P_DEFAULT, H5P_DEFAULT);
  const long long method = 2;
  H5Awrite(attribute, H5T_NATIVE_LLONG, &method);
  H5Aclose(attribute);
  H5Sclose(space);
  H5Gclose(group);
  ASSERT_GE(H5Fclose(file), 0);
}

void expect_refused(const CommandResult& r, const std::string& says) {
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(r.out.empty()) << "nothing written on a refusal:\n" << r.out;
  EXPECT_EQ(lines_of(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find(says), std::string::npos) << "missing: " << says << "\nin: " << r.err;
}

TEST(AgainstABaseline, HealthyLaunchesPassAndSmallSocketBuffersAreFoundWhereTheySlow) {
  TempDir dir;
  const CommandResult reference = record(dir.file("ref.h5"));
  ASSERT_EQ(reference.exit_code, 0) << reference.err;
  for (int launch = 0; launch < 2; ++launch) {
    const std::string healthy = dir.file("healthy" + std::to_string(launch) + ".h5");
    const CommandResult run = record(healthy);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const CommandResult r = npgpu({"report", "--json", "--baseline", dir.file("ref.h5"), healthy});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(short_sizes(r), std::set<double>{}) << "launch " << launch << ": noise alone flags nothing";
  }
  const CommandResult slowed = record(dir.file("slow.h5"), kTinySocketBuffers);
  ASSERT_EQ(slowed.exit_code, 0) << slowed.err;
  const CommandResult r = npgpu({"report", "--json", "--baseline", dir.file("ref.h5"), dir.file("slow.h5")});
  EXPECT_EQ(r.exit_code, 5) << r.err;
  // Against a noisy reference launch fewer sizes clear the bound (6 of the 50 slowed, 64 to 96 KiB,
  // against the noisiest seen here): a row of 9 at least, and none far from what the fault slows.
  // A 2 KiB buffer's receive window is smaller than the buffer (the kernel keeps part of it for its
  // own bookkeeping), so here the fault slows from about 512 B (x0.7 at 515 to 771 B). A row's edge
  // may take in the sizes just before it that the machine's load slowed in the same moments (one CI
  // launch: 384 and 387 B), as a healthy launch's rows do: up to two size classes (253 to 387 B),
  // no further.
  const std::set<double> found = short_sizes(r);
  EXPECT_GE(found.size(), kSizesInARow) << r.out;
  for (double bytes : found) EXPECT_GE(bytes, 253) << "a message this small fits the socket buffer";
  const auto baseline = nlohmann::json::parse(r.out)["baseline"];
  EXPECT_EQ(baseline["kind"], "run");
  EXPECT_EQ(baseline["runs"][0]["reference_made_by"].get<std::string>().rfind("npgpu ", 0), 0u);
  double worst = 1;
  for (const auto& shortfall : baseline["shortfalls"]) worst = std::min(worst, shortfall["ratio"].get<double>());
  EXPECT_LT(worst, 0.2) << "the slowed sizes move at a tenth or less";

  const CommandResult text = npgpu({"report", "--baseline", dir.file("ref.h5"), dir.file("slow.h5")});
  EXPECT_EQ(text.exit_code, 5);
  EXPECT_NE(text.out.find("SHORT: rank0 ("), std::string::npos) << text.out;

  // The healthy launches folded into a fleet reference judge by it the same way.
  const CommandResult fold = npgpu({"baseline", "-o", dir.file("fleet.h5"), dir.file("ref.h5"), dir.file("healthy0.h5"),
                                    dir.file("healthy1.h5")});
  ASSERT_EQ(fold.exit_code, 0) << fold.err;
  EXPECT_EQ(npgpu({"report", "--baseline", dir.file("fleet.h5"), dir.file("slow.h5")}).exit_code, 5);
  const CommandResult by_fleet = npgpu({"report", "--json", "--baseline", dir.file("fleet.h5"), dir.file("healthy1.h5")});
  EXPECT_EQ(by_fleet.exit_code, 0) << by_fleet.err;
  EXPECT_EQ(nlohmann::json::parse(by_fleet.out)["baseline"]["kind"], "fleet");
  expect_refused(npgpu({"baseline", "-o", dir.file("fleet.h5"), dir.file("ref.h5")}), "never overwritten");
}

TEST(AgainstABaseline, BadReferencesAreRefusedInOneLine) {
  TempDir dir;
  expect_refused(npgpu({"report", "--baseline", dir.file("missing.h5"), data("cluster.h5")}), "missing.h5: no such file");
  std::filesystem::copy_file(data("cluster.h5"), dir.file("damaged.h5"));
  std::filesystem::resize_file(dir.file("damaged.h5"), 1000);
  expect_refused(npgpu({"report", "--baseline", dir.file("damaged.h5"), data("cluster.h5")}), "damaged.h5");
  expect_refused(npgpu({"report", "--baseline", data("node.h5"), data("cluster.h5:1")}), "no complete run like");
  expect_refused(npgpu({"report", "--baseline", data("cluster-b.h5:2"), data("cluster-b.h5:3")}),
                 "a run judges only the same hosts and GPUs");
  std::filesystem::copy_file(data("cluster-b.h5"), dir.file("newer.h5"));
  measured_another_way(dir.file("newer.h5"), "/runs/0002");
  expect_refused(npgpu({"report", "--baseline", dir.file("newer.h5:2"), data("cluster-b.h5:2")}),
                 "the way of measuring changed");
  expect_refused(npgpu({"baseline", "-o", dir.file("fleet.h5"), dir.file("missing.h5")}), "no such file");
  EXPECT_FALSE(std::filesystem::exists(dir.file("fleet.h5")));
}

}  // namespace
}  // namespace npgpu::test
