#pragma once
// `npgpu NAME ...` runs a subcommand instead of a measurement: one table, so that adding one is a
// row here and a function of its own. Subcommands read records or the machine; none needs MPI.
#include <string>
#include <vector>

namespace npgpu {

struct Subcommand {
  const char* name;
  const char* summary;  // one line for --help
  int (*run)(const std::vector<std::string>& args);  // the arguments after the name; returns the exit code
};

const std::vector<Subcommand>& subcommands();

// The subcommand argv[1] names, or nullptr: then argv is a measurement's command line.
const Subcommand* find_subcommand(const std::vector<std::string>& argv);

// The lines --help adds about the subcommands.
std::string subcommands_help();

// The subcommands themselves (report_command.cpp).
int report_command(const std::vector<std::string>& args);
int export_command(const std::vector<std::string>& args);

}  // namespace npgpu
