#pragma once
// The command line: a run's options, or one of the answers that need no run.
#include <string>
#include <vector>

#include "results/options.hpp"

namespace npgpu {

// What the command line asks for: a run, or one of the answers that need no run.
enum class Action { run, help, version, list_modules, info };

struct ParsedCommand {
  Action action = Action::run;
  RunOptions options;
  std::string text;        // --help / --version text
  bool info_json = false;  // npgpu info --json
};

struct CatalogEntry;

// Throws UsageError with one line naming what is wrong and what is allowed. "npgpu info ..." is
// the info command; every other command line is a run (or --help, --version, --list-modules).
// `modules`: the catalog, whose entries declare their option groups (module_catalog()).
ParsedCommand parse_command_line(const std::vector<std::string>& args, const std::vector<CatalogEntry>& modules);

// The options `entry` takes besides the run's: its own group's, and the pairing's for a pair module.
std::vector<std::string> options_taken(const CatalogEntry& entry);

}  // namespace npgpu
