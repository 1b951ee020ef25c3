#pragma once
// `npgpu NAME ...` runs a subcommand instead of a measurement: one table, so that adding one is a
// row here and a function of its own. Subcommands read records or the machine; none needs MPI.
#include <functional>
#include <string>
#include <vector>

#include "results/run_data.hpp"

namespace CLI {
class App;
}

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

// The subcommands themselves (report_command.cpp, baseline_command.cpp).
int report_command(const std::vector<std::string>& args);
int export_command(const std::vector<std::string>& args);
int baseline_command(const std::vector<std::string>& args);

// What they share (report_command.cpp): the runs of every record named ("run.h5", "run.h5:/runs/3")...
std::vector<RunData> read_all(const std::vector<std::string>& specs);
// ... and their command line parsed with CLI11, then `act` run, which returns the exit code: help
// on request, one line on stderr and exit code 2 on bad input.
int run_subcommand(CLI::App& app, const std::vector<std::string>& args, const std::function<int()>& act);

}  // namespace npgpu
