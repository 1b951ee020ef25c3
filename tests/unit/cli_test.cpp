#include <gtest/gtest.h>

#include <algorithm>

#include "mpi/mpi_options.hpp"
#include "npgpu/catalog.hpp"
#include "npgpu/errors.hpp"
#include "cli/cli.hpp"
#include "p2p/p2p_options.hpp"
#include "support/refusal.hpp"
#include "tcp/tcp_options.hpp"

namespace npgpu {
namespace {

ParsedCommand parse(std::vector<std::string> args) {
  args.insert(args.begin(), "npgpu");
  return parse_command_line(args, module_catalog());
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

TEST(CommandLine, ModuleOptionsAreParsedIntoTheModulesOwnStruct) {
  const RunOptions o = parse({"-m", "mpi", "--buffers", "D,D", "--gpu-path", "staged", "--chunk", "256K",
                              "--staging", "naive", "--device", "1", "--socket-buffer", "4M", "--nodelay", "off"})
                           .options;
  const MpiOptions& mpi = options_of<MpiOptions>(o.module_options);
  EXPECT_EQ(mpi.buffers, "D,D");
  EXPECT_EQ(mpi.gpu_path, "staged");
  EXPECT_EQ(mpi.chunk, 256u * 1024);
  EXPECT_EQ(mpi.staging, "naive");
  EXPECT_EQ(mpi.device, 1);
  EXPECT_EQ(mpi.given_options, (std::vector<std::string>{"--buffers", "--gpu-path", "--chunk", "--staging", "--device"}));
  EXPECT_EQ(o.foreign_options, (std::vector<std::string>{"--socket-buffer", "--nodelay"}))
      << "tcp's options are kept, to be refused by name once mpi is known to be built";
  const RunOptions tcp_run = parse({"-m", "tcp", "--socket-buffer", "4M", "--nodelay", "off"}).options;
  const TcpOptions& tcp = options_of<TcpOptions>(tcp_run.module_options);
  EXPECT_EQ(tcp.socket.buffer_bytes, 4u * 1024 * 1024);
  EXPECT_FALSE(tcp.socket.nodelay);
  const RunOptions plain = parse({"-m", "mpi"}).options;
  EXPECT_TRUE(options_of<MpiOptions>(plain.module_options).given_options.empty());
  EXPECT_TRUE(plain.foreign_options.empty());
  EXPECT_EQ(parse({"-m", "memcpy"}).options.module_options, nullptr) << "memcpy declares no options";
}

TEST(CommandLine, ThePairingBelongsToPairModulesOnly) {
  const RunOptions mpi = parse({"-m", "mpi", "--pairs", "all", "--sizes", "8,64K", "--sample", "2", "--seed", "7"}).options;
  EXPECT_EQ(mpi.pairs, "all");
  EXPECT_EQ(mpi.sizes, (std::vector<std::uint64_t>{8, 65536}));
  EXPECT_EQ(mpi.sample, 2u);
  EXPECT_EQ(mpi.seed, 7u);
  EXPECT_TRUE(mpi.foreign_options.empty());
  EXPECT_EQ(parse({"-m", "memcpy", "--pairs", "0:1"}).options.foreign_options, (std::vector<std::string>{"--pairs"}));
  const RunOptions p2p = parse({"-m", "p2p", "--pairs", "all"}).options;
  EXPECT_TRUE(p2p.pairs.empty()) << "p2p's --pairs names GPU pairs, its own option";
  EXPECT_EQ(options_of<P2pOptions>(p2p.module_options).pairs, "all");
  EXPECT_EQ(parse({"-m", "p2p", "--sizes", "8"}).options.foreign_options, (std::vector<std::string>{"--sizes"}));
}

TEST(CommandLine, OptionsTakenAreTheModulesGroupAndThePairingOfAPairModule) {
  const std::vector<std::string> mpi = options_taken(find_module("mpi"));
  for (const char* option : {"--pairs", "--sizes", "--flag-below", "--sample", "--seed", "--buffers", "--device"})
    EXPECT_NE(std::find(mpi.begin(), mpi.end(), option), mpi.end()) << option;
  EXPECT_TRUE(options_taken(find_module("memcpy")).empty());
  const std::vector<std::string> p2p = options_taken(find_module("p2p"));
  EXPECT_EQ(p2p, (std::vector<std::string>{"--copy", "--pairs", "--p2p"}));
}

TEST(CommandLine, HelpShowsEachModulesOptionsUnderItsName) {
  const std::vector<std::string> kPairing{"--pairs", "--sizes", "--flag-below", "--sample", "--seed",
                                          "--load", "--load-ranks", "--load-size", "--load-module"};
  const std::string help = parse({"--help"}).text;
  const std::size_t first_group = help.find("[Option Group:");
  ASSERT_NE(first_group, std::string::npos) << help;
  EXPECT_LT(help.find("--trial-time"), first_group) << "the run's own options come first";
  for (const CatalogEntry& entry : module_catalog()) {
    if (entry.info.declare_options == nullptr) continue;
    const std::size_t group = help.find("[Option Group: " + entry.info.name + "]");
    ASSERT_NE(group, std::string::npos) << entry.info.name;
    const std::size_t next = help.find("[Option Group:", group + 1);
    const std::string section = help.substr(group, next - group);
    for (const std::string& option : options_taken(entry)) {
      const bool pairing = entry.info.layout == Layout::pair &&
                           std::find(kPairing.begin(), kPairing.end(), option) != kPairing.end();
      if (!pairing) {
        EXPECT_NE(section.find(option), std::string::npos) << option << " under " << entry.info.name;
      }
    }
  }
  // The shared pairing group names every pair module of the catalog, in its order: a module added
  // later appears there with no edit here.
  std::string pair_modules;
  for (const CatalogEntry& entry : module_catalog())
    if (entry.info.layout == Layout::pair) pair_modules += (pair_modules.empty() ? "" : ", ") + entry.info.name;
  EXPECT_EQ(pair_modules.rfind("mpi, tcp", 0), 0u) << pair_modules;
  EXPECT_NE(help.find("[Option Group: pairs of ranks (modules " + pair_modules + ")]"), std::string::npos) << help;
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
