#include "cli/subcommands.hpp"

namespace npgpu {

const std::vector<Subcommand>& subcommands() {
  static const std::vector<Subcommand> table{
      {"report", "latency, peak, Hockney fit, share of the link's peak and verdicts from records (--json)",
       report_command},
      {"export", "a record's curves as NetPIPE np.out columns or CSV", export_command},
      {"baseline", "healthy records of many nodes of one kind folded into a fleet reference for report --baseline",
       baseline_command},
  };
  return table;
}

const Subcommand* find_subcommand(const std::vector<std::string>& argv) {
  if (argv.size() < 2) return nullptr;
  for (const Subcommand& subcommand : subcommands())
    if (argv[1] == subcommand.name) return &subcommand;
  return nullptr;
}

std::string subcommands_help() {
  std::string help = "\nSubcommands (npgpu NAME --help for their options):\n";
  for (const Subcommand& subcommand : subcommands())
    help += "  npgpu " + std::string(subcommand.name) + ": " + subcommand.summary + "\n";
  return help;
}

}  // namespace npgpu
