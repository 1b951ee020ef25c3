// The layers of one path as a user meets them: raw TCP sockets and MPI over TCP between the same two
// ranks, measured by the real binary under mpirun, then `npgpu report --json` on the records.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/command.hpp"

namespace npgpu::test {
namespace {

// A pingpong sweep to 1 MiB in powers of two: the sizes where a starved socket shows.
void measure(const std::string& module, const std::vector<std::string>& mca, const std::string& record) {
  std::vector<std::string> argv = joined(mpirun_npgpu(2, mca), {"--module", module, "--fac2", "-o", record});
  argv = joined(argv, quick_sweep("1M"));
  const CommandResult result = run_command(argv);
  ASSERT_EQ(result.exit_code, 0) << module << ": " << result.err;
}

nlohmann::json report(const std::vector<std::string>& records) {
  const CommandResult result = run_command(joined({NPGPU_BINARY, "report", "--json"}, records));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return nlohmann::json::parse(result.out);
}

std::vector<nlohmann::json> of_kind(const nlohmann::json& findings, const std::string& kind) {
  std::vector<nlohmann::json> found;
  for (const nlohmann::json& finding : findings)
    if (finding["kind"] == kind) found.push_back(finding);
  return found;
}

// MPI over its TCP transport keeps about what raw TCP moves between the same ranks (3.8 against 3.7
// GB/s here); with its socket buffers planted at 4 KiB (btl_tcp_sndbuf, btl_tcp_rcvbuf) it peaks near
// 0.3 GB/s, and the report names that setting, from the second file given.
TEST(Layers, MpiOverTcpKeepsWhatTcpMovesUntilAnMpiSettingStarvesIt) {
  TempDir dir;
  const std::string path = dir.file("path.h5"), planted = dir.file("planted.h5");
  const std::vector<std::string> over_tcp{"pml", "ob1", "btl", "tcp,self"};
  measure("tcp", {}, path);
  measure("mpi", over_tcp, path);

  const nlohmann::json healthy = report({path});
  ASSERT_EQ(healthy["layers"].size(), 1u) << healthy["layers"].dump(1);
  EXPECT_EQ(healthy["layers"][0]["modules"], (nlohmann::json{"mpi", "tcp"}));
  EXPECT_EQ(healthy["layers"][0]["ends"], "two ranks on " + healthy["runs"][0]["curves"][0]["host"].get<std::string>());
  EXPECT_EQ(healthy["layers"][0]["far_below"], false) << healthy["layers"][0]["text"];
  EXPECT_TRUE(of_kind(healthy["findings"], "layer_far_below").empty()) << healthy["findings"].dump(1);

  measure("mpi", joined(over_tcp, {"btl_tcp_sndbuf", "4096", "btl_tcp_rcvbuf", "4096"}), planted);
  const nlohmann::json both = report({path, planted});
  ASSERT_EQ(both["layers"].size(), 2u) << both["layers"].dump(1);
  EXPECT_EQ(both["layers"][0]["far_below"], false) << both["layers"][0]["text"];
  EXPECT_EQ(both["layers"][1]["far_below"], true) << both["layers"][1]["text"];
  const std::vector<nlohmann::json> found = of_kind(both["findings"], "layer_far_below");
  ASSERT_EQ(found.size(), 1u) << both["findings"].dump(1);
  EXPECT_EQ(found[0]["runs"], (nlohmann::json{planted + ":/runs/0001", path + ":/runs/0001"}));
  EXPECT_LT(found[0]["ratio"].get<double>(), 0.5);
  const std::string text = found[0]["text"];
  for (const char* said : {"mpi moves host memory at ", "of what tcp moves between the same ranks", "MPI's settings",
                           "btl_tcp_rcvbuf=4096", "btl_tcp_sndbuf=4096"})
    EXPECT_NE(text.find(said), std::string::npos) << said << "\nin: " << text;
}

}  // namespace
}  // namespace npgpu::test
