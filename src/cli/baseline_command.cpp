// `npgpu baseline -o REF.h5 RECORDS...`: healthy records of many nodes of one kind folded into a
// fleet reference, for `npgpu report --baseline REF.h5` to judge other nodes of that kind by their
// hardware rather than their names. Bad input is one line on stderr and exit code 2, with nothing
// written; the reference appears whole or not at all, and never over an existing file.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "record/fleet_record.hpp"
#include "report/baseline_report.hpp"
#include "cli/subcommands.hpp"

namespace npgpu {

int baseline_command(const std::vector<std::string>& args) {
  CLI::App app{"Fold healthy records of many nodes of one kind into a fleet reference: per path (label, CPU, GPU and "
               "link, or matrix class) and size, the median of the records' fastest trials, their spread, and how "
               "many records stand behind each figure. npgpu report --baseline REF.h5 judges runs by it.",
               "npgpu baseline"};
  std::vector<std::string> files;
  std::string output;
  app.add_option("records", files, "npgpu records of healthy nodes: FILE.h5 (every run), FILE.h5:/runs/0003")->required();
  app.add_option("-o,--output", output, "The fleet reference to write (a new file)")->required();
  return run_subcommand(app, args, [&] {
    std::vector<std::string> left_out;
    const FleetReference fleet = fold_fleet(read_all(files), left_out);
    write_fleet_reference(output, fleet);
    for (const std::string& line : left_out) std::printf("%s\n", line.c_str());
    std::printf("%s: %zu paths from %zu records\n", output.c_str(), fleet.paths.size(), fleet.records.size());
    return 0;
  });
}

}  // namespace npgpu
