#pragma once
// The option groups a command line is parsed with, besides the run's own options: the module's
// group (its ModuleOptions, declared in its folder), the pairing's group for a pair module, every
// group for --help, and a hidden group that takes the other modules' options, so that they are
// refused by name once the module is known to be built (make_plan) and anything else is refused by
// CLI11 as an option no module has.
#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "npgpu/catalog.hpp"
#include "cli/cli.hpp"

namespace npgpu {

// The pairing's options as given, converted by finish_module_groups.
struct PairingText {
  std::string sizes, flag_below;
  std::uint64_t seed = 0;
  RunOptions::LoadText load;
  std::string load_size;
};

// Before the parse proper, which needs the module's option group: the module the command line
// names, and whether it asks for help (which shows every group).
struct Scouted {
  std::string module;
  bool help = false;
};
Scouted module_named_in(const std::vector<const char*>& argv);

struct ModuleGroups {
  PairingText pairing;
  CLI::App* own = nullptr;
  CLI::App* others = nullptr;
  std::string others_value;
  std::vector<std::shared_ptr<ModuleOptions>> shown;  // --help: each module's, parsed into nothing
};

// Adds the groups to `app`, bound to `o` and `groups`, which must outlive the parse.
void add_module_groups(CLI::App& app, const std::vector<CatalogEntry>& modules, const Scouted& scouted, RunOptions& o,
                       ModuleGroups& groups);

// After the parse: the module's options converted and the ones given named, the pairing's
// converted, the other modules' options given listed in o.foreign_options. UsageError, one line.
void finish_module_groups(const CLI::App& app, const ModuleGroups& groups, RunOptions& o);

// A module's options as an empty command line leaves them (null where it has none): a load module's
// (--load-module), which is given none of its own.
std::shared_ptr<ModuleOptions> default_module_options(const ModuleInfo& module);

}  // namespace npgpu
