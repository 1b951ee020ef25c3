// The layers of one path between two hosts (issue 37): raw TCP sockets, UCX over TCP and MPI on its
// own TCP transport, measured between the same two virtual hosts into one record; then MPI again
// with its socket buffers planted at 4 KiB. Links of 10 Gbit/s, faster than a 4 KiB buffer lets
// MPI move (docs/ARCHITECTURE.md, "The layers of one path": 2.7 GB/s for tcp, 0.36 for the planted
// MPI here); on the default 400 Mbit/s links the link decides every layer's rate and no setting
// shows.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <optional>

#include "support/command.hpp"
#include "virtual_cluster.hpp"

namespace npgpu::test {
namespace {

// A pingpong sweep to 1 MiB in powers of two across the first two hosts; `launch` adds mpirun's
// words (MCA parameters, exported variables).
void measure(const TempDir& dir, const std::string& module, const std::vector<std::string>& launch,
             const std::string& record) {
  std::vector<std::string> argv = joined({(cluster_dir() / "mpirun").string(), "-q", "-np", "2"}, launch);
  argv = joined(argv, {NPGPU_BINARY, "--module", module, "--fac2", "--upper", "1M", "--trial-time", "0.01",
                       "--max-trials", "5", "-o", dir.file(record)});
  const CommandResult result = run_command(argv, dir.path());
  ASSERT_EQ(result.exit_code, 0) << module << ": " << result.err;
}

nlohmann::json report(const TempDir& dir, const std::vector<std::string>& records) {
  std::vector<std::string> argv{NPGPU_BINARY, "report", "--json"};
  for (const std::string& record : records) argv.push_back(dir.file(record));
  const CommandResult result = run_command(argv);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return nlohmann::json::parse(result.out);
}

std::vector<nlohmann::json> far_below(const nlohmann::json& answer) {
  std::vector<nlohmann::json> found;
  for (const nlohmann::json& finding : answer["findings"])
    if (finding["kind"] == "layer_far_below") found.push_back(finding);
  return found;
}

// The healthy layers: tcp, then UCX over TCP and MPI on its own TCP transport, into path.h5.
void measure_healthy(const TempDir& dir) {
  measure(dir, "tcp", {}, "path.h5");
  // Between namespaces of one machine UCX would pick shared memory; a cluster's hosts have TCP.
  measure(dir, "ucx", {"-x", "UCX_TLS=tcp,self"}, "path.h5");
  measure(dir, "mpi", {"--mca", "pml", "ob1"}, "path.h5");
}

TEST(LayersBetweenHosts, MpiKeepsWhatTcpMovesUntilAnMpiSettingStarvesIt) {
  const std::vector<Host> hosts = cluster_hosts();
  ASSERT_GE(hosts.size(), 2u);
  // The layers are measured one after another, and on this machine a whole run of one may fall
  // in a fast or a slow stretch: tcp's peak spread from 0.45 to 1.2 GB/s, and 1 launch in 12
  // left ucx and mpi at 0.39 and 0.37 of it (docs/ARCHITECTURE.md, "The layers of one path").
  // A healthy launch told far below is measured once more; the second must tell nothing.
  std::optional<TempDir> dir;
  nlohmann::json healthy;
  for (int launch = 0; launch < 2 && (launch == 0 || !far_below(healthy).empty()); ++launch) {
    dir.emplace();
    measure_healthy(*dir);
    healthy = report(*dir, {"path.h5"});
  }
  measure(*dir, "mpi", {"--mca", "pml", "ob1", "--mca", "btl_tcp_sndbuf", "4096", "--mca", "btl_tcp_rcvbuf", "4096"},
          "planted.h5");

  const std::string ends = hosts[0].name + " and " + hosts[1].name;
  ASSERT_EQ(healthy["layers"].size(), 2u) << healthy["layers"].dump(1);
  for (const nlohmann::json& layer : healthy["layers"]) {
    EXPECT_EQ(layer["ends"], ends);
    EXPECT_EQ(layer["far_below"], false) << layer["text"];
  }
  EXPECT_EQ(healthy["layers"][0]["modules"], (nlohmann::json{"ucx", "tcp"}));
  EXPECT_EQ(healthy["layers"][1]["modules"], (nlohmann::json{"mpi", "tcp"})) << "pml ob1 rides on TCP, not UCX";
  EXPECT_TRUE(far_below(healthy).empty()) << healthy["findings"].dump(1);

  const nlohmann::json both = report(*dir, {"path.h5", "planted.h5"});
  const std::vector<nlohmann::json> found = far_below(both);
  ASSERT_EQ(found.size(), 1u) << both["findings"].dump(1);
  EXPECT_EQ(found[0]["runs"], (nlohmann::json{dir->file("planted.h5") + ":/runs/0001", dir->file("path.h5") + ":/runs/0001"}));
  EXPECT_LT(found[0]["ratio"].get<double>(), 0.5);
  const std::string text = found[0]["text"];
  for (const std::string& said : std::vector<std::string>{"mpi moves host memory at ", "of what tcp moves between the same ranks (" + ends + ")",
                                  "btl_tcp_rcvbuf=4096", "btl_tcp_sndbuf=4096"})
    EXPECT_NE(text.find(said), std::string::npos) << said << "\nin: " << text;
}

}  // namespace
}  // namespace npgpu::test
