// cudaMemcpy and cuMemcpy options are settled before any GPU is touched, so they are tested here.
#include <gtest/gtest.h>

#include "cuda_copy/copy_options.hpp"
#include "cli/cli.hpp"
#include "npgpu/catalog.hpp"
#include "npgpu/errors.hpp"

namespace npgpu {
namespace {

// The options as the command line leaves them for `module`, through its own option group.
RunOptions parsed(std::vector<std::string> args, const char* module) {
  args.insert(args.begin(), {"npgpu", "--module", module});
  return parse_command_line(args, module_catalog()).options;
}

RunOptions resolved(std::vector<std::string> args, const char* module = "cudaMemcpy") {
  RunOptions options = parsed(std::move(args), module);
  settle_module_options(options);
  return options;
}

const CopyOptions& own(const RunOptions& options) { return options_of<CopyOptions>(options.module_options); }

std::string refusal(std::vector<std::string> args, const char* module = "cudaMemcpy") {
  try {
    resolved(std::move(args), module);
  } catch (const UsageError& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
    return message;
  }
  return "accepted";
}

TEST(CudaCopyOptions, EachDirectionMeasuresItsPattern) {
  for (const auto& [direction, pattern] : std::vector<std::pair<std::string, Pattern>>{
           {"h2d", Pattern::stream}, {"d2h", Pattern::stream}, {"d2d", Pattern::stream},
           {"h2d2h", Pattern::pingpong}, {"bidir", Pattern::bidir}}) {
    const RunOptions options = resolved({"--direction", direction});
    EXPECT_EQ(options.pattern, pattern) << direction;
    EXPECT_TRUE(options.pattern_given) << direction << ": the driver must not put the module's default over it";
  }
}

TEST(CudaCopyOptions, APatternAlonePicksTheDirectionThatMeasuresIt) {
  EXPECT_EQ(own(resolved({"--pattern", "pingpong"})).direction, "h2d2h");
  EXPECT_EQ(own(resolved({"--pattern", "bidir"})).direction, "bidir");
  EXPECT_EQ(own(resolved({"--pattern", "stream"})).direction, "h2d");
}

TEST(CudaCopyOptions, APatternThatContradictsTheDirectionIsRefused) {
  EXPECT_NE(refusal({"--direction", "h2d", "--pattern", "pingpong"}).find("--pattern pingpong conflicts with --direction h2d"),
            std::string::npos);
  EXPECT_NE(refusal({"--direction", "h2d2h", "--pattern", "stream"}).find("measures pattern pingpong"), std::string::npos);
  EXPECT_EQ(refusal({"--direction", "bidir", "--pattern", "bidir"}), "accepted");
}

TEST(CudaCopyOptions, HostMemoryDoesNotApplyInsideOneGpu) {
  EXPECT_NE(refusal({"--direction", "d2d", "--memory", "pageable"}).find("--memory pageable does not apply to --direction d2d"),
            std::string::npos);
  EXPECT_NE(refusal({"--direction", "d2d", "--memory", "pinned"}).find("uses no host memory"), std::string::npos);
  EXPECT_EQ(refusal({"--direction", "d2d", "--copy", "sm"}), "accepted");
}

TEST(CudaCopyOptions, PageableMemoryIsCopiedSynchronously) {
  EXPECT_EQ(own(resolved({"--memory", "pageable"})).api, "sync")
      << "pageable copies block whatever the API, so they are timed by the host clock";
  EXPECT_NE(refusal({"--memory", "pageable", "--api", "async"}).find("--api async cannot use --memory pageable"),
            std::string::npos);
  EXPECT_NE(refusal({"--memory", "pageable", "--copy", "sm"}).find("a kernel cannot reach pageable"),
            std::string::npos);
  EXPECT_NE(refusal({"--memory", "pageable", "--direction", "bidir"}).find("cannot overlap"), std::string::npos);
}

TEST(CudaCopyOptions, PinnedKindsKeepTheAsyncDefault) {
  for (const char* memory : {"pinned", "write-combined", "registered"}) {
    EXPECT_EQ(own(resolved({"--memory", memory, "--copy", "sm"})).api, "async") << memory;
  }
}

TEST(CudaCopyOptions, BlockingCopiesCannotOverlapTwoDirections) {
  EXPECT_NE(refusal({"--direction", "bidir", "--api", "sync"}).find("--direction bidir needs --api async"),
            std::string::npos);
  EXPECT_EQ(refusal({"--direction", "h2d2h", "--api", "sync"}), "accepted");
}

TEST(CuMemcpyOptions, TheCopyKernelBelongsToCudaMemcpy) {
  EXPECT_NE(refusal({"--copy", "sm"}, "cuMemcpy").find("--copy sm does not apply to module cuMemcpy"),
            std::string::npos);
  EXPECT_NE(refusal({"--direction", "d2d", "--memory", "pinned"}, "cuMemcpy").find("no host memory"),
            std::string::npos)
      << "and the rest is checked as for cudaMemcpy";
}

TEST(DirectionLegs, EachDirectionUsesItsPlaces) {
  EXPECT_EQ(places_used(direction_legs("h2d")), (std::vector<std::size_t>{kHostSource, kGpuTarget}));
  EXPECT_EQ(places_used(direction_legs("d2h")), (std::vector<std::size_t>{kHostTarget, kGpuSource}));
  EXPECT_EQ(places_used(direction_legs("d2d")), (std::vector<std::size_t>{kGpuSource, kGpuTarget}));
  EXPECT_EQ(places_used(direction_legs("h2d2h")), (std::vector<std::size_t>{kHostSource, kHostTarget, kGpuTarget}));
  EXPECT_EQ(places_used(direction_legs("bidir")),
            (std::vector<std::size_t>{kHostSource, kHostTarget, kGpuSource, kGpuTarget}));
}

TEST(DirectionLegs, TheRoundTripIsChainedAndBidirUsesTwoStreams) {
  const CopyLegs round_trip = direction_legs("h2d2h");
  ASSERT_EQ(round_trip.legs.size(), 2u);
  EXPECT_TRUE(round_trip.chained);
  EXPECT_EQ(round_trip.legs[1].from, round_trip.legs[0].to) << "the message comes back from where it went";
  EXPECT_EQ(stream_count(round_trip), 1u);
  const CopyLegs both = direction_legs("bidir");
  EXPECT_FALSE(both.chained);
  EXPECT_EQ(stream_count(both), 2u);
  EXPECT_EQ(stream_count(direction_legs("d2d")), 1u);
}

TEST(CopyShape, TransfersAndBytesPerPattern) {
  EXPECT_EQ(copy_shape(Pattern::stream, 100).transfers_per_rep, 1);
  EXPECT_EQ(copy_shape(Pattern::stream, 100).bytes_per_transfer, 100);
  EXPECT_EQ(copy_shape(Pattern::pingpong, 100).transfers_per_rep, 2) << "latency is half the round trip";
  EXPECT_EQ(copy_shape(Pattern::bidir, 100).bytes_per_transfer, 200) << "both directions counted";
}

}  // namespace
}  // namespace npgpu
