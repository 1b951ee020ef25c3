#include "cli/module_groups.hpp"

#include <algorithm>

#include "cli/option_text.hpp"
#include "npgpu/errors.hpp"

namespace npgpu {
namespace {

// Pair modules' options: the driver pairs their ranks and, for --pairs all, draws the matrices.
void declare_pairing(CLI::App& group, RunOptions& o, PairingText& text) {
  group.add_option("--pairs", o.pairs, "Ranks A:B (default 0:1), halves (rank i with i+N/2, all at once), all (every "
                   "pair, mpiGraph's shifts)");
  group.add_option("--sizes", text.sizes, "--pairs all: sizes of the matrices (default 8,1M: a latency and a "
                   "throughput matrix)");
  group.add_option("--flag-below", text.flag_below, "--pairs all: flag links slower than this fraction of the median "
                   "of comparable links (default 0.8)");
  group.add_option("--sample", o.sample, "--pairs all: each rank measures K random partners instead of all N-1");
  group.add_option("--seed", text.seed, "--sample: seed of the random partners (default: drawn, and recorded)");
  group.add_option("--load", text.load.pattern, "Ranks of --load-ranks make traffic while the others measure, first "
                   "alone, then under it: stream, bidir (the load ranks pair up as halves), incast (every load rank "
                   "to the first), alltoall (every load rank with every other)");
  group.add_option("--load-ranks", text.load.ranks, "--load: the ranks that make load, e.g. 0,1,4,5 or 4-7");
  group.add_option("--load-size", text.load_size, "--load: each load message (default 4M)");
  group.add_option("--load-module", text.load.module, "--load: the module that moves the load (default: the measured "
                   "one)");
}

void finish_pairing(const CLI::App& app, RunOptions& o, const PairingText& text) {
  if (!text.sizes.empty()) o.sizes = parse_size_list(text.sizes);
  if (!text.flag_below.empty()) o.flag_below = parse_fraction(text.flag_below, "--flag-below");
  if (app.count("--seed") > 0) o.seed = text.seed;
  if (app.count("--sample") > 0 && o.sample == 0)
    throw UsageError("--sample 0: each rank needs at least one partner; choose 1 to N-1 for N ranks");
  const bool load_named = app.count("--load") > 0;
  for (const char* option : {"--load-ranks", "--load-size", "--load-module"})
    if (app.count(option) > 0 && !load_named)
      throw UsageError(std::string(option) + " is for a run under load: give --load PATTERN too");
  if (!load_named) return;
  if (text.load.ranks.empty()) throw UsageError("--load " + text.load.pattern + ": name the ranks that make load with --load-ranks");
  o.load = text.load;
  if (!text.load_size.empty()) o.load->bytes = parse_size(text.load_size, "--load-size");
}

// An option as a group declares it: its name, and whether it takes a value.
struct DeclaredOption {
  std::string name;
  bool takes_value = true;
};

// The options a declaration adds, each by its long name ("--direction").
template <typename Declare>
std::vector<DeclaredOption> declared_options(Declare declare) {
  CLI::App scratch;
  scratch.set_help_flag();
  declare(scratch);
  std::vector<DeclaredOption> declared;
  for (const CLI::Option* option : scratch.get_options())
    declared.push_back({"--" + option->get_lnames().front(), option->get_type_size_max() > 0});
  return declared;
}

std::vector<DeclaredOption> pairing_options() {
  RunOptions o;
  PairingText text;
  return declared_options([&](CLI::App& group) { declare_pairing(group, o, text); });
}

std::vector<DeclaredOption> options_of_entry(const CatalogEntry& entry) {
  std::vector<DeclaredOption> taken;
  if (entry.info.layout == Layout::pair) taken = pairing_options();
  if (entry.info.declare_options != nullptr)
    for (const DeclaredOption& own : declared_options(entry.info.declare_options)) taken.push_back(own);
  return taken;
}


std::string pair_module_names(const std::vector<CatalogEntry>& modules) {
  std::string names;
  for (const CatalogEntry& entry : modules)
    if (entry.info.layout == Layout::pair) names += (names.empty() ? "" : ", ") + entry.info.name;
  return names;
}

}  // namespace

void add_module_groups(CLI::App& app, const std::vector<CatalogEntry>& modules, const Scouted& scouted, RunOptions& o,
                       ModuleGroups& groups) {
  const CatalogEntry* chosen = nullptr;
  for (const CatalogEntry& entry : modules)
    if (entry.info.name == scouted.module) chosen = &entry;
  const auto add_pairing = [&] {
    declare_pairing(*app.add_option_group("pairs of ranks (modules " + pair_module_names(modules) + ")",
                                          "which ranks measure together: the driver pairs them"),
                    o, groups.pairing);
  };
  if (scouted.help) {
    add_pairing();
    for (const CatalogEntry& entry : modules)
      if (entry.info.declare_options != nullptr)
        groups.shown.push_back(entry.info.declare_options(*app.add_option_group(entry.info.name, entry.info.measures)));
    return;
  }
  std::vector<std::string> taken;
  if (chosen != nullptr) {
    if (chosen->info.layout == Layout::pair) add_pairing();
    if (chosen->info.declare_options != nullptr) {
      groups.own = app.add_option_group(chosen->info.name, chosen->info.measures);
      o.module_options = chosen->info.declare_options(*groups.own);
    }
    for (const DeclaredOption& option : options_of_entry(*chosen)) taken.push_back(option.name);
  }
  groups.others = app.add_option_group("");
  std::vector<DeclaredOption> every = pairing_options();
  for (const CatalogEntry& entry : modules)
    if (entry.info.declare_options != nullptr)
      for (const DeclaredOption& option : declared_options(entry.info.declare_options)) every.push_back(option);
  for (const DeclaredOption& option : every) {
    if (std::find(taken.begin(), taken.end(), option.name) != taken.end() ||
        groups.others->get_option_no_throw(option.name) != nullptr)
      continue;
    if (option.takes_value)
      groups.others->add_option(option.name, groups.others_value);
    else
      groups.others->add_flag(option.name);
  }
}

std::shared_ptr<ModuleOptions> default_module_options(const ModuleInfo& module) {
  if (module.declare_options == nullptr) return nullptr;
  CLI::App app;
  std::shared_ptr<ModuleOptions> options = module.declare_options(*app.add_option_group(module.name));
  std::vector<std::string> nothing;
  app.parse(nothing);
  options->finish();
  return options;
}

void finish_module_groups(const CLI::App& app, const ModuleGroups& groups, RunOptions& o) {
  if (o.module_options != nullptr) {
    for (const CLI::Option* option : groups.own->get_options())
      if (option->count() > 0) o.module_options->given_options.push_back("--" + option->get_lnames().front());
    o.module_options->finish();
  }
  finish_pairing(app, o, groups.pairing);
  if (groups.others == nullptr) return;
  for (const CLI::Option* option : groups.others->parse_order()) {
    const std::string name = "--" + option->get_lnames().front();
    if (std::find(o.foreign_options.begin(), o.foreign_options.end(), name) == o.foreign_options.end())
      o.foreign_options.push_back(name);
  }
}

Scouted module_named_in(const std::vector<const char*>& argv) {
  CLI::App app;
  app.allow_extras();
  Scouted scouted;
  app.add_option("-m,--module", scouted.module);
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::CallForHelp&) {
    scouted.help = true;
  } catch (const CLI::ParseError&) {
    // The parse proper says what is wrong.
  }
  return scouted;
}

std::vector<std::string> options_taken(const CatalogEntry& entry) {
  std::vector<std::string> names;
  for (const DeclaredOption& option : options_of_entry(entry)) names.push_back(option.name);
  return names;
}

}  // namespace npgpu
