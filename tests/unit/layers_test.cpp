// The layers of one path (report/layers.hpp): which module lies under which, which curves share
// their ends, and a layer far below the one under it named with the cause its record gives.
#include <algorithm>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "npgpu/catalog.hpp"
#include "report/layers.hpp"
#include "report/report.hpp"

namespace npgpu {
namespace {

// t(n) = alpha + n / beta over 1 B to 64 MiB in powers of four; each size's fastest trial
// `fastest` times the headline (1: no spread).
CurveData pair_curve(int rank, int peer, const std::string& host, const std::string& peer_host, double alpha,
                     double beta, double fastest = 1) {
  CurveData curve;
  curve.name = "rank" + std::to_string(rank);
  curve.rank = rank;
  curve.peer = peer;
  curve.host = host;
  curve.peer_host = peer_host;
  for (double n = 1; n <= 64.0 * 1024 * 1024; n *= 4) {
    curve.bytes.push_back(n);
    curve.bytes_per_transfer.push_back(n);
    curve.seconds.push_back(alpha + n / beta);
    curve.seconds_min.push_back(fastest * (alpha + n / beta));
  }
  return curve;
}

RunData run_of(const std::string& group, const std::string& module, const std::string& pattern, CurveData curve,
               std::vector<PlacementFacts> rank_facts = {}) {
  RunData run;
  run.file = "path.h5";
  run.group = group;
  run.module = module;
  run.pattern = pattern;
  run.headline = "median";
  run.curves.push_back(std::move(curve));
  run.rank_facts = std::move(rank_facts);
  if (!run.rank_facts.empty()) run.facts = run.rank_facts.front();
  return run;
}

// Two ranks on one host, host memory: raw TCP sockets and MPI over TCP.
RunData tcp_run(const std::string& peer_host = "vm") {
  return run_of("/runs/0001", "tcp", "pingpong", pair_curve(0, 1, "vm", peer_host, 5.1e-6, 3.7e9));
}
RunData mpi_host_run(const std::string& group, double beta, std::vector<std::string> parameters = {}, double fastest = 1) {
  const PlacementFacts host{{"messages", "host memory"}, {"gpu_path", "host: both ranks' messages are host memory"}};
  RunData run = run_of(group, "mpi", "pingpong", pair_curve(0, 1, "vm", "vm", 6.3e-6, beta, fastest), {host, host});
  run.mpi_parameters = std::move(parameters);
  return run;
}

// 2 x H200 of one host, as measured (docs/results-h200.md): p2p's copy from GPU 0 to GPU 1 in one
// process, cudaIpc between two ranks, and mpi --buffers D,D with Open MPI 4.1.6, not CUDA-aware.
constexpr const char* kGpu0 = "0000:18:00.0";
constexpr const char* kGpu1 = "0000:2a:00.0";
PlacementFacts gpu_rank(const std::string& bus) { return {{"gpu_pci_bus_id", bus}, {"gpu_name", "NVIDIA H200"}}; }

RunData p2p_run() {
  CurveData curve = pair_curve(0, -1, "h200", "", 2.4e-6, 396e9);
  curve.name = "rank0_gpu0_to_gpu1";
  const std::string gpus = std::string("0: NVIDIA H200, GPU-aaaa, ") + kGpu0 + ", NUMA node 0; 1: NVIDIA H200, GPU-bbbb, " +
                           kGpu1 + ", NUMA node 0";
  return run_of("/runs/0001", "p2p", "stream", curve, {{{"gpus", gpus}}});
}
RunData cuda_ipc_run(const std::string& second_gpu = kGpu1) {
  return run_of("/runs/0002", "cudaIpc", "stream", pair_curve(0, 1, "h200", "h200", 9.8e-6, 391e9),
                {gpu_rank(kGpu0), gpu_rank(second_gpu)});
}
RunData mpi_device_run(const std::string& second_gpu = kGpu1) {
  const PlacementFacts staged{
      {"messages", "GPU memory"},
      {"gpu_path", "staged (auto: MPI is not CUDA-aware, so copies go through pinned host buffers)"},
      {"mpi_cuda_aware", "no: built without CUDA support: MPIX_CUDA_AWARE_SUPPORT is 0 or missing in <mpi-ext.h>"}};
  PlacementFacts first = gpu_rank(kGpu0), second = gpu_rank(second_gpu);
  first.insert(staged.begin(), staged.end());
  second.insert(staged.begin(), staged.end());
  RunData run = run_of("/runs/0003", "mpi", "stream", pair_curve(0, 1, "h200", "h200", 21e-6, 7.3e9), {first, second});
  run.mpi_parameters = {"btl_vader_single_copy_mechanism=none"};
  return run;
}

const Finding* far_below(const Report& report) {
  for (const Finding& f : report.findings)
    if (f.kind == "layer_far_below") return &f;
  return nullptr;
}

TEST(Layers, EachModuleLiesOnTheModulesUnderItNearestFirst) {
  EXPECT_EQ(layers_under("mpi", false), (std::vector<std::string>{"ucx", "tcp"}));
  EXPECT_EQ(layers_under("mpiRma", false), (std::vector<std::string>{"mpi", "ucx", "tcp"}));
  EXPECT_EQ(layers_under("ucx", false), (std::vector<std::string>{"tcp"}));
  EXPECT_EQ(layers_under("mpi", true), (std::vector<std::string>{"cudaIpc", "p2p"}));
  EXPECT_EQ(layers_under("nccl", true), (std::vector<std::string>{"cudaIpc", "p2p"}));
  EXPECT_EQ(layers_under("cudaIpc", true), (std::vector<std::string>{"p2p"}));
  for (const char* bottom : {"tcp", "p2p", "memcpy"}) {
    EXPECT_TRUE(layers_under(bottom, false).empty()) << bottom;
    EXPECT_TRUE(layers_under(bottom, true).empty()) << bottom;
  }
}

TEST(Layers, MpiThatStagesGpuMemoryIsFarBelowCudaIpcBetweenTheSameGpus) {
  const Report report = make_report({p2p_run(), cuda_ipc_run(), mpi_device_run()}, std::nullopt, path_words);
  ASSERT_EQ(report.layers.size(), 2u);
  const LayerStep& ipc = report.layers[0];
  EXPECT_EQ(ipc.upper + " over " + ipc.lower, "cudaIpc over p2p");
  EXPECT_FALSE(ipc.far_below);
  EXPECT_NEAR(ipc.share, 0.95, 0.01);  // 64 MiB: 370 GB/s against 390
  const LayerStep& mpi = report.layers[1];
  EXPECT_EQ(mpi.upper + " over " + mpi.lower, "mpi over cudaIpc") << "the nearest layer under it, not p2p";
  EXPECT_TRUE(mpi.far_below);
  EXPECT_NEAR(mpi.share, 0.0197, 0.0005);  // 64 MiB: 7.28 GB/s against 370
  EXPECT_EQ(mpi.ends, std::string("GPUs ") + kGpu0 + " and " + kGpu1 + " on h200");
  const Finding* finding = far_below(report);
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->runs, (std::vector<std::string>{"path.h5:/runs/0003", "path.h5:/runs/0002"}));
  for (const char* said : {"mpi moves GPU memory at 2.0% of what cudaIpc moves between the same GPUs",
                           "7.28 GB/s against 370 GB/s", "this MPI is not CUDA-aware (built without CUDA support",
                           "stages GPU memory through pinned host buffers",
                           "an Open MPI built with CUDA (and UCX) moves it over the GPUs' own link (NVLink"})
    EXPECT_NE(finding->text.find(said), std::string::npos) << said << "\n" << finding->text;
}

TEST(Layers, P2pNamesTheGpusOfABidirCurveToo) {
  RunData p2p = p2p_run(), ipc = cuda_ipc_run();
  p2p.curves[0].name = "rank0_gpu0_and_gpu1";
  p2p.pattern = ipc.pattern = "bidir";
  const Report report = make_report({p2p, ipc}, std::nullopt, path_words);
  ASSERT_EQ(report.layers.size(), 1u);
  EXPECT_EQ(report.layers[0].upper + " over " + report.layers[0].lower, "cudaIpc over p2p");
}

TEST(Layers, MpiFarBelowTcpNamesTheMpiSettingsItWasLaunchedWith) {
  const RunData planted =
      mpi_host_run("/runs/0002", 0.32e9, {"btl=tcp,self", "btl_tcp_rcvbuf=4096", "btl_tcp_sndbuf=4096", "pml=ob1"});
  const Report report = make_report({tcp_run(), planted}, std::nullopt, path_words);
  ASSERT_EQ(report.layers.size(), 1u);
  EXPECT_TRUE(report.layers[0].far_below);
  EXPECT_EQ(report.layers[0].ends, "two ranks on vm");
  const Finding* finding = far_below(report);
  ASSERT_NE(finding, nullptr);
  EXPECT_NEAR(finding->ratio, 0.0865, 0.0005);  // 64 MiB: 320 MB/s against 3.70 GB/s
  for (const char* said : {"mpi moves host memory at 8.7% of what tcp moves between the same ranks (two ranks on vm)",
                           "MPI's settings", "btl_tcp_rcvbuf=4096, btl_tcp_sndbuf=4096", "Open MPI's defaults",
                           "adds 1.20 us at 1 B"})
    EXPECT_NE(finding->text.find(said), std::string::npos) << said << "\n" << finding->text;
}

TEST(Layers, LayersThatAgreeAreStatedNotFlagged) {
  const Report report =
      make_report({tcp_run(), mpi_host_run("/runs/0002", 3.82e9, {"btl=tcp,self", "pml=ob1"})}, std::nullopt, path_words);
  ASSERT_EQ(report.layers.size(), 1u);
  EXPECT_FALSE(report.layers[0].far_below);
  EXPECT_TRUE(report.layers[0].cause.empty());
  EXPECT_EQ(far_below(report), nullptr);
  const std::string text = report_text(report);
  EXPECT_NE(text.find("Layers of one path"), std::string::npos) << text;
  EXPECT_NE(text.find("mpi over tcp, host memory between two ranks on vm (pingpong): adds 1.20 us at 1 B"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("far below"), std::string::npos) << text;
}

// MPI launched on its own TCP transport (pml ob1) lies on tcp, not on the UCX measured between the
// same ranks; launched on UCX, or with no pml named, on UCX, the nearest.
TEST(Layers, MpiLiesOnTheTransportItsPmlNames) {
  RunData ucx = tcp_run();
  ucx.group = "/runs/0003";
  ucx.module = "ucx";
  const auto under = [&](std::vector<std::string> parameters) {
    const Report report = make_report({tcp_run(), ucx, mpi_host_run("/runs/0002", 3.82e9, std::move(parameters))},
                                      std::nullopt, path_words);
    for (const LayerStep& step : report.layers)
      if (step.upper == "mpi") return step.lower;
    return std::string("none");
  };
  EXPECT_EQ(under({"btl=tcp,self", "pml=ob1"}), "tcp");
  EXPECT_EQ(under({"pml=^ucx"}), "tcp");
  EXPECT_EQ(under({"pml=ucx"}), "ucx");
  EXPECT_EQ(under({}), "ucx");
}

// A median under half of the layer under it whose fastest trials reach more than half: the trials'
// spread explains the gap, so it is no finding.
TEST(Layers, AGapTheTrialsSpreadExplainsIsNotFarBelow) {
  const Report report = make_report({tcp_run(), mpi_host_run("/runs/0002", 1.7e9, {}, 0.4)}, std::nullopt, path_words);
  ASSERT_EQ(report.layers.size(), 1u);
  EXPECT_LT(report.layers[0].share, kFarBelow);
  EXPECT_GT(report.layers[0].fastest_share, kFarBelow);
  EXPECT_FALSE(report.layers[0].far_below);
  EXPECT_EQ(far_below(report), nullptr);
}

// One size of the layer under it timed in a quiet moment, three times as fast as its neighbours
// (tcp between two virtual hosts did so at 512 KiB): it counts at most x1.25 over them, so a layer
// keeping 0.81 of the rest keeps 0.65 of that peak, not 0.27, and is not far below; one that is
// stays so.
TEST(Layers, OneLuckySizeUnderALayerSetsNoBar) {
  RunData lucky = tcp_run();
  CurveData& curve = lucky.curves.front();
  const auto at = static_cast<std::size_t>(std::find(curve.bytes.begin(), curve.bytes.end(), 4.0 * 1024 * 1024) -
                                           curve.bytes.begin());
  ASSERT_LT(at, curve.bytes.size());
  curve.seconds[at] /= 3;
  curve.seconds_min[at] /= 3;
  const Report healthy = make_report({lucky, mpi_host_run("/runs/0002", 3.0e9)}, std::nullopt, path_words);
  ASSERT_EQ(healthy.layers.size(), 1u);
  EXPECT_NEAR(healthy.layers[0].share, 0.81 / 1.25, 0.01);
  EXPECT_NEAR(healthy.layers[0].fastest_share, 0.81 / 1.25, 0.01);
  EXPECT_EQ(far_below(healthy), nullptr);
  const Report starved = make_report({lucky, mpi_host_run("/runs/0002", 0.3e9)}, std::nullopt, path_words);
  ASSERT_EQ(starved.layers.size(), 1u);
  EXPECT_TRUE(starved.layers[0].far_below);
  EXPECT_LT(starved.layers[0].share, 0.1);
}

TEST(Layers, DifferentEndsOrPatternsAreNotLayersOfOnePath) {
  EXPECT_TRUE(make_report({tcp_run("beta"), mpi_host_run("/runs/0002", 0.3e9)}, std::nullopt, path_words).layers.empty())
      << "tcp to another host";
  EXPECT_TRUE(make_report({cuda_ipc_run("0000:3b:00.0"), mpi_device_run()}, std::nullopt, path_words).layers.empty())
      << "cudaIpc to another GPU";
  RunData stream = tcp_run();
  stream.pattern = "stream";
  EXPECT_TRUE(make_report({stream, mpi_host_run("/runs/0002", 0.3e9)}, std::nullopt, path_words).layers.empty())
      << "a stream's rate is not a pingpong's";
  RunData device = mpi_device_run();
  device.pattern = "pingpong";
  EXPECT_TRUE(make_report({tcp_run(), device}, std::nullopt, path_words).layers.empty())
      << "GPU memory does not lie on tcp";
  RunData together = mpi_device_run();  // of --pairs halves, two pairs at once
  together.pairing = PairingMode::halves;
  together.concurrency = "together";
  together.curves.push_back(together.curves.front());
  EXPECT_TRUE(make_report({cuda_ipc_run(), together}, std::nullopt, path_words).layers.empty())
      << "pairs moving together against a pair alone";
  RunData loaded = mpi_device_run();
  loaded.load = "loaded";
  EXPECT_TRUE(make_report({cuda_ipc_run(), loaded}, std::nullopt, path_words).layers.empty())
      << "a run under load measures the load too";
}

TEST(Layers, JsonListsEveryLayerAndTheFindingKind) {
  const nlohmann::json json = report_json(make_report({p2p_run(), cuda_ipc_run(), mpi_device_run()}, std::nullopt, path_words));
  ASSERT_EQ(json["layers"].size(), 2u);
  const nlohmann::json& mpi = json["layers"][1];
  EXPECT_EQ(mpi["modules"], (nlohmann::json{"mpi", "cudaIpc"}));
  EXPECT_EQ(mpi["memory"], "GPU");
  EXPECT_EQ(mpi["far_below"], true);
  EXPECT_NEAR(mpi["share"].get<double>(), 0.0197, 0.0005);
  EXPECT_NEAR(mpi["added_latency_s"].get<double>(), 21e-6 - 9.8e-6, 1e-7);
  EXPECT_TRUE(mpi["cause"].is_string());
  EXPECT_TRUE(json["layers"][0]["cause"].is_null());
  EXPECT_EQ(json["findings"].back()["kind"], "layer_far_below");
}

}  // namespace
}  // namespace npgpu
