#include <gtest/gtest.h>

#include "npgpu/catalog.hpp"
#include "npgpu/errors.hpp"
#include "npgpu/options.hpp"
#include "support/refusal.hpp"

namespace npgpu {
namespace {

ParsedCommand parse(std::vector<std::string> args) {
  args.insert(args.begin(), "npgpu");
  return parse_command_line(args);
}

// The one-line message a rejected command line gives.
std::string rejection(std::vector<std::string> args) {
  return test::refusal([&] { parse(std::move(args)); });
}

TEST(CommandLine, Defaults) {
  const RunOptions o = parse({"--module", "mpi"}).options;
  EXPECT_EQ(o.module, "mpi");
  EXPECT_FALSE(o.pattern_given);
  EXPECT_EQ(o.schedule.lower, 1u);
  EXPECT_FALSE(o.upper_given);
  EXPECT_EQ(o.schedule.perturbation, 3u);
  EXPECT_FALSE(o.schedule.fac2);
  EXPECT_DOUBLE_EQ(o.calibration.trial_seconds, 0.01);
  EXPECT_EQ(o.min_trials, 3u);
  EXPECT_EQ(o.max_trials, 20u);
  EXPECT_DOUBLE_EQ(o.precision, 0.01);
  EXPECT_EQ(o.window, 64u);
  EXPECT_EQ(o.timer, "wall");
  EXPECT_EQ(o.headline, Headline::median);
  EXPECT_EQ(o.cache, CacheState::cold);
  EXPECT_EQ(o.units, Units::decimal);
  EXPECT_TRUE(o.output.empty());
  EXPECT_EQ(o.command_line, "npgpu --module mpi");
}

TEST(CommandLine, EveryOption) {
  const RunOptions o = parse({"-m", "memcpy", "--pattern", "bidir", "--lower", "4K", "--upper", "1MiB",
                              "--perturbation", "0", "--fac2", "--trial-time", "0.5", "--min-trials", "2",
                              "--max-trials", "9", "--precision", "2%", "--window", "16", "--timer",
                              "gettimeofday", "--headline", "min", "--cache", "warm", "--concurrency", "alone",
                              "--check", "--units", "binary", "-o", "x.h5"})
                           .options;
  EXPECT_EQ(o.pattern, Pattern::bidir);
  EXPECT_TRUE(o.pattern_given);
  EXPECT_EQ(o.schedule.lower, 4096u);
  EXPECT_EQ(o.schedule.upper, 1048576u);
  EXPECT_TRUE(o.upper_given);
  EXPECT_EQ(o.schedule.perturbation, 0u);
  EXPECT_TRUE(o.schedule.fac2);
  EXPECT_DOUBLE_EQ(o.calibration.trial_seconds, 0.5);
  EXPECT_EQ(o.min_trials, 2u);
  EXPECT_EQ(o.max_trials, 9u);
  EXPECT_DOUBLE_EQ(o.precision, 0.02);
  EXPECT_EQ(o.window, 16u);
  EXPECT_EQ(o.timer, "gettimeofday");
  EXPECT_EQ(o.headline, Headline::min);
  EXPECT_EQ(o.cache, CacheState::warm);
  EXPECT_EQ(o.concurrency, Concurrency::alone);
  EXPECT_TRUE(o.check_data);
  EXPECT_EQ(o.units, Units::binary);
  EXPECT_EQ(o.output, "x.h5");
}

TEST(CommandLine, ModuleOptionsAreParsedAndRemembered) {
  const RunOptions o = parse({"-m", "mpi", "--buffers", "D,D", "--gpu-path", "staged", "--chunk", "256K",
                              "--staging", "naive", "--device", "1", "--socket-buffer", "4M", "--nodelay", "off"})
                           .options;
  EXPECT_EQ(o.buffers, "D,D");
  EXPECT_EQ(o.gpu_path, "staged");
  EXPECT_EQ(o.chunk, 256u * 1024);
  EXPECT_EQ(o.staging, "naive");
  EXPECT_EQ(o.device, 1);
  EXPECT_EQ(o.socket_buffer, 4u * 1024 * 1024);
  EXPECT_FALSE(o.nodelay);
  EXPECT_EQ(o.module_options_given, (std::vector<std::string>{"--device", "--buffers", "--gpu-path", "--chunk",
                                                              "--staging", "--socket-buffer", "--nodelay"}));
  EXPECT_TRUE(parse({"-m", "mpi"}).options.module_options_given.empty());
}

TEST(CommandLine, AnswersWithoutARun) {
  EXPECT_EQ(parse({"--help"}).action, Action::help);
  EXPECT_NE(parse({"--help"}).text.find("K, KiB = 1024"), std::string::npos) << "help says what K means";
  EXPECT_EQ(parse({"--version"}).action, Action::version);
  EXPECT_EQ(parse({"--list-modules"}).action, Action::list_modules);
}

TEST(CommandLine, RejectsBadSizes) {
  EXPECT_NE(rejection({"-m", "mpi", "--lower", "0"}).find("at least 1 byte"), std::string::npos);
  EXPECT_NE(rejection({"-m", "mpi", "--upper", "-5"}).find("negative"), std::string::npos);
  EXPECT_NE(rejection({"-m", "mpi", "--upper", "lots"}).find("not a number"), std::string::npos);
  EXPECT_NE(rejection({"-m", "mpi", "--upper", "4Q"}).find("unknown unit 'Q'"), std::string::npos);
  EXPECT_NE(rejection({"-m", "mpi", "--lower", "1M", "--upper", "4K"}).find("above --upper"), std::string::npos);
}

TEST(CommandLine, RejectsBadChoices) {
  EXPECT_NE(rejection({"-m", "mpi", "--pattern", "sideways"}).find("--pattern"), std::string::npos);
  EXPECT_NE(rejection({"-m", "mpi", "--timer", "sundial"}).find("--timer"), std::string::npos);
  EXPECT_NE(rejection({"-m", "mpi", "--cache", "lukewarm"}).find("--cache"), std::string::npos);
  EXPECT_NE(rejection({"-m", "mpi", "--window", "0"}).find("--window"), std::string::npos);
  EXPECT_NE(rejection({"-m", "mpi", "--trial-time", "soon"}).find("--trial-time"), std::string::npos);
  EXPECT_NE(rejection({"-m", "mpi", "--precision", "0"}).find("between 0 and 1"), std::string::npos);
  EXPECT_NE(rejection({"-m", "mpi", "--precision", "150%"}).find("between 0 and 1"), std::string::npos);
  EXPECT_NE(rejection({"-m", "mpi", "--precision", "tight"}).find("not a number"), std::string::npos);
  EXPECT_NE(rejection({"-m", "mpi", "--min-trials", "9", "--max-trials", "3"}).find("--min-trials"), std::string::npos);
  EXPECT_NE(rejection({"-m", "mpi", "--frobnicate"}).find("--frobnicate"), std::string::npos);
  EXPECT_NE(rejection({}).find("no module"), std::string::npos);
  EXPECT_NE(rejection({"-m", "mpi", "--buffers", "D,X"}).find("--buffers"), std::string::npos);
  EXPECT_NE(rejection({"-m", "mpi", "--chunk", "0"}).find("--chunk"), std::string::npos);
  EXPECT_NE(rejection({"-m", "mpi", "--device", "-1"}).find("--device"), std::string::npos);
}

TEST(Catalog, UnknownModuleNamesTheKnownOnes) {
  try {
    find_module("carrier-pigeon");
    FAIL() << "found a module that does not exist";
  } catch (const UsageError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("carrier-pigeon"), std::string::npos);
    EXPECT_NE(message.find("memcpy"), std::string::npos);
    EXPECT_NE(message.find("mpi"), std::string::npos);
  }
}

TEST(Catalog, ListsEveryModuleWithItsStatus) {
  const std::string listing = describe_modules(2);
  for (const CatalogEntry& entry : module_catalog()) {
    EXPECT_NE(listing.find(entry.info.name), std::string::npos);
    EXPECT_NE(listing.find(entry.info.measures), std::string::npos);
  }
  EXPECT_NE(listing.find("available"), std::string::npos);
}

}  // namespace
}  // namespace npgpu
