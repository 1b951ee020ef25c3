// npgpu info on this machine: its facts against what the system says through other doors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "refusal.hpp"

namespace npgpu::test {
namespace {

nlohmann::json info_json(int ranks, const std::vector<std::string>& mca = {}) {
  std::vector<std::string> argv = ranks > 0 ? mpirun_npgpu(ranks, mca) : std::vector<std::string>{NPGPU_BINARY};
  argv.insert(argv.end(), {"info", "--json"});
  const CommandResult result = run_command(argv);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return nlohmann::json::parse(result.out);
}

std::string host_name() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

std::uint64_t mem_total_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);)
    if (line.rfind("MemTotal:", 0) == 0) return std::stoull(line.substr(9)) * 1024;
  return 0;
}

std::size_t numa_nodes_in_sysfs() {
  std::size_t nodes = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/sys/devices/system/node"))
    if (std::regex_match(entry.path().filename().string(), std::regex("node[0-9]+"))) ++nodes;
  return nodes;
}

std::set<std::string> interfaces_in_sysfs() {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator("/sys/class/net"))
    names.insert(entry.path().filename().string());
  return names;
}

// "mpirun (Open MPI) 4.1.4" -> "4.1.4"
std::string mpirun_version() {
  const CommandResult result = run_command({NPGPU_MPIEXEC, "--version"});
  std::smatch match;
  return std::regex_search(result.out, match, std::regex("[0-9]+\\.[0-9]+\\.[0-9]+")) ? match.str() : "";
}

TEST(Info, JsonAgreesWithTheSystemsOwnAnswers) {
  const nlohmann::json info = info_json(0);
  ASSERT_EQ(info.at("hosts").size(), 1u);
  const nlohmann::json& host = info.at("hosts")[0];
  EXPECT_EQ(host.at("name"), host_name());
  EXPECT_EQ(host.at("memory_bytes"), mem_total_bytes());
  const nlohmann::json& topology = host.at("topology");
  EXPECT_EQ(topology.at("hardware_threads"), std::stoi(run_command({"nproc"}).out));
  EXPECT_EQ(topology.at("numa_nodes").size(), numa_nodes_in_sysfs());
  EXPECT_GE(topology.at("sockets"), 1);
  std::set<std::string> interfaces;
  for (const nlohmann::json& interface : host.at("network"))
    if (interface.at("name").get<std::string>().find(':') == std::string::npos) interfaces.insert(interface.at("name"));
  EXPECT_EQ(interfaces, interfaces_in_sysfs());
  const std::string version = mpirun_version();
  ASSERT_FALSE(version.empty());
  EXPECT_NE(info.at("mpi").at("library").get<std::string>().find(version), std::string::npos)
      << info.at("mpi").at("library") << " is not mpirun's " << version;
}

TEST(Info, JsonHasTheDocumentedKeys) {
  const nlohmann::json info = info_json(0);
  for (const char* key : {"schema", "npgpu_version", "hdf5_version", "mpi", "hosts", "ranks"})
    EXPECT_TRUE(info.contains(key)) << key;
  EXPECT_EQ(info.at("schema"), "npgpu-info-1");
  for (const char* key : {"library", "cuda_aware", "parameters"}) EXPECT_TRUE(info.at("mpi").contains(key)) << key;
  const nlohmann::json& host = info.at("hosts")[0];
  for (const char* key : {"name", "kernel", "memory_bytes", "topology", "network", "gpus"})
    EXPECT_TRUE(host.contains(key)) << key;
  for (const char* key : {"cpu_model", "sockets", "cores", "hardware_threads", "numa_nodes", "last_level_cache_bytes",
                          "hwloc_version"})
    EXPECT_TRUE(host.at("topology").contains(key)) << key;
  for (const char* key : {"unavailable", "cuda_driver", "cuda_runtime", "gpus", "pairs"})
    EXPECT_TRUE(host.at("gpus").contains(key)) << key;
  for (const char* key : {"rank", "host", "cpus", "node_local_rank", "gpu", "module_facts"})
    EXPECT_TRUE(info.at("ranks")[0].contains(key)) << key;
}

TEST(Info, ListsTheMcaParametersTheUserSetNotMpirunsOwn) {
  const nlohmann::json parameters = info_json(2, {"btl", "self,tcp"}).at("mpi").at("parameters");
  EXPECT_EQ(parameters.value("btl", ""), "self,tcp");
  for (const auto& [name, value] : parameters.items())
    for (const char* wiring : {"orte_", "ess", "pmix", "initial_wdir", "shmem_RUNTIME_QUERY_hint"})
      EXPECT_NE(name.rfind(wiring, 0), 0u) << name << "=" << value << ": mpirun's own";
}

TEST(Info, TextShowsTheSameFacts) {
  const CommandResult result = run_command({NPGPU_BINARY, "info"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("host " + host_name()), std::string::npos) << result.out;
  const std::string threads = run_command({"nproc"}).out;
  EXPECT_NE(result.out.find(threads.substr(0, threads.size() - 1) + " hardware thread"), std::string::npos) << result.out;
  for (const std::string& interface : interfaces_in_sysfs())
    EXPECT_NE(result.out.find("  " + interface + " "), std::string::npos) << interface << " missing:\n" << result.out;
  EXPECT_NE(result.out.find("MPI: "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("CUDA"), std::string::npos) << result.out;
}

TEST(Info, UnderMpirunMapsEveryRank) {
  const nlohmann::json info = info_json(2);
  ASSERT_EQ(info.at("ranks").size(), 2u);
  EXPECT_EQ(info.at("hosts").size(), 1u) << "two ranks on one host report it once";
  for (int rank = 0; rank < 2; ++rank) {
    const nlohmann::json& entry = info.at("ranks")[static_cast<std::size_t>(rank)];
    EXPECT_EQ(entry.at("rank"), rank);
    EXPECT_EQ(entry.at("host"), host_name());
    EXPECT_EQ(entry.at("node_local_rank"), rank);
    EXPECT_FALSE(entry.at("cpus").get<std::string>().empty());
  }
  std::vector<std::string> argv = mpirun_npgpu(2);
  argv.push_back("info");
  const CommandResult text = run_command(argv);
  EXPECT_EQ(text.exit_code, 0) << text.err;
  for (const char* row : {"\n  0     ", "\n  1     "}) EXPECT_NE(text.out.find(row), std::string::npos) << text.out;
}

TEST(Info, BadInputIsOneLineAndExitTwo) {
  expect_refusal({"info", "--jsn"}, "npgpu info takes --json and --help only");
  expect_refusal({"info", "extra"}, "npgpu info takes --json and --help only");
  expect_refusal({"info", "--module", "mpi"}, "npgpu info takes --json and --help only");
}

TEST(Info, OnlyAsTheFirstWord) {
  // "info" elsewhere is what it always was: a word the run's command line does not take.
  expect_refusal({"--module", "memcpy", "info"}, "info");
}

}  // namespace
}  // namespace npgpu::test
