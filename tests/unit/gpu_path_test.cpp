// mpi's choice of path for GPU buffers and the checks of its options: pure, so tested anywhere.
#include <gtest/gtest.h>

#include "mpi/gpu_path.hpp"
#include "mpi/mpi_options.hpp"
#include "mpi_common/cuda_awareness.hpp"
#include "cli/cli.hpp"
#include "npgpu/catalog.hpp"
#include "support/refusal.hpp"

namespace npgpu {
namespace {

constexpr CudaAwareness kNotBuilt{false, false};
constexpr CudaAwareness kBuiltButOff{true, false};
constexpr CudaAwareness kAware{true, true};

using test::refusal;

TEST(GpuPath, AutoTakesDirectOnlyOnACudaAwareMpi) {
  EXPECT_EQ(choose_gpu_path("auto", kAware).path, GpuPath::direct);
  const GpuPathChoice fallback = choose_gpu_path("auto", kNotBuilt);
  EXPECT_EQ(fallback.path, GpuPath::staged);
  EXPECT_NE(fallback.why.find("auto: MPI is not CUDA-aware"), std::string::npos) << fallback.why;
  EXPECT_EQ(choose_gpu_path("auto", kBuiltButOff).path, GpuPath::staged) << "built for CUDA is not enough";
}

TEST(GpuPath, StagedWhenAskedEvenOnACudaAwareMpi) {
  EXPECT_EQ(choose_gpu_path("staged", kAware).path, GpuPath::staged);
  EXPECT_EQ(choose_gpu_path("staged", kNotBuilt).path, GpuPath::staged);
}

TEST(GpuPath, DirectIsRefusedUnlessMpiIsCudaAware) {
  EXPECT_EQ(choose_gpu_path("direct", kAware).path, GpuPath::direct);
  const std::string not_built = refusal([] { choose_gpu_path("direct", kNotBuilt); });
  EXPECT_NE(not_built.find("--gpu-path direct: this MPI is not CUDA-aware (built without CUDA support"), std::string::npos)
      << not_built;
  EXPECT_NE(not_built.find("use --gpu-path staged or auto"), std::string::npos) << not_built;
  const std::string off = refusal([] { choose_gpu_path("direct", kBuiltButOff); });
  EXPECT_NE(off.find("MPIX_Query_cuda_support() says it is off"), std::string::npos) << off;
}

TEST(GpuPath, DescribesAwarenessForTheRecord) {
  EXPECT_EQ(describe(kAware).rfind("yes", 0), 0u);
  EXPECT_EQ(describe(kNotBuilt).rfind("no: built without", 0), 0u);
}

TEST(GpuPath, BuffersSayWhichSideOfAPairHoldsGpuMemory) {
  EXPECT_FALSE(side_uses_device("H,D", 0));
  EXPECT_TRUE(side_uses_device("H,D", 1));
  EXPECT_TRUE(side_uses_device("D,H", 0));
  EXPECT_FALSE(side_uses_device("D,H", 1));
}

RunOptions parsed(std::vector<std::string> args) {
  args.insert(args.begin(), {"npgpu", "--module", "mpi"});
  return parse_command_line(args, module_catalog()).options;
}

const MpiOptions& own(const RunOptions& options) { return options_of<MpiOptions>(options.module_options); }

std::string refused_options(std::vector<std::string> args, bool cuda = true, CudaAwareness awareness = kNotBuilt) {
  RunOptions options = parsed(std::move(args));
  return refusal([&] { resolve_mpi_options(own(options), cuda, awareness); });
}

TEST(MpiOptions, AcceptsWhatFitsTogether) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {},
           {"--buffers", "D,D"},
           {"--buffers", "H,D", "--chunk", "256K", "--gpu-path", "staged"},
           {"--buffers", "D,H", "--staging", "naive"},
           {"--buffers", "D,D", "--device", "1"}}) {
    RunOptions options = parsed(args);
    EXPECT_NO_THROW(resolve_mpi_options(own(options), true, kNotBuilt)) << options.command_line;
  }
  RunOptions direct = parsed({"--buffers", "D,D", "--gpu-path", "direct"});
  EXPECT_NO_THROW(resolve_mpi_options(own(direct), true, kAware));
}

TEST(MpiOptions, GpuOptionsNeedGpuBuffers) {
  for (const char* option : {"--gpu-path", "--chunk", "--staging", "--device"}) {
    const std::string value = std::string(option) == "--gpu-path"  ? "staged"
                              : std::string(option) == "--chunk"   ? "64K"
                              : std::string(option) == "--staging" ? "naive"
                                                                   : "0";
    const std::string message = refused_options({option, value});
    EXPECT_NE(message.find(std::string(option) + " applies to GPU buffers only, and --buffers is H,H"), std::string::npos)
        << message;
  }
}

TEST(MpiOptions, GpuBuffersNeedACudaBuild) {
  const std::string message = refused_options({"--buffers", "D,D"}, false);
  EXPECT_NE(message.find("--buffers D,D: GPU buffers need CUDA, and this build has none"), std::string::npos) << message;
}

TEST(MpiOptions, DirectOnAnMpiThatIsNotCudaAwareIsRefused) {
  const std::string message = refused_options({"--buffers", "D,D", "--gpu-path", "direct"});
  EXPECT_NE(message.find("not CUDA-aware"), std::string::npos) << message;
}

TEST(MpiOptions, StagingOptionsNeedTheStagedPath) {
  const std::string direct = refused_options({"--buffers", "D,D", "--chunk", "64K"}, true, kAware);
  EXPECT_NE(direct.find("--chunk applies to the staged path, and this run takes the direct one"), std::string::npos)
      << direct;
  const std::string naive = refused_options({"--buffers", "D,D", "--staging", "naive", "--chunk", "64K"});
  EXPECT_NE(naive.find("--chunk applies to --staging pipelined"), std::string::npos) << naive;
}

TEST(MpiOptions, ChunkIsOneMpiMessage) {
  const std::string message = refused_options({"--buffers", "D,D", "--chunk", "3G"});
  EXPECT_NE(message.find("a chunk is at most 2147483647 bytes"), std::string::npos) << message;
}

}  // namespace
}  // namespace npgpu
