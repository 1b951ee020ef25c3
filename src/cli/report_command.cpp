// `npgpu report` and `npgpu export` (and what `npgpu baseline` shares with them): read records, answer on stdout or into a file. Bad input is
// one line on stderr and exit code 2, with nothing written.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <unistd.h>

#include "npgpu/link_peaks.hpp"
#include "npgpu/catalog.hpp"
#include "npgpu/errors.hpp"
#include "record/export.hpp"
#include "record/fleet_record.hpp"
#include "record/record_reader.hpp"
#include "report/baseline_report.hpp"
#include "report/report.hpp"
#include "results/expectations.hpp"
#include "cli/subcommands.hpp"

namespace npgpu {

std::vector<RunData> read_all(const std::vector<std::string>& specs) {
  std::vector<RunData> runs;
  for (const std::string& spec : specs)
    for (RunData& run : read_runs(spec)) runs.push_back(std::move(run));
  return runs;
}

int run_subcommand(CLI::App& app, const std::vector<std::string>& args, const std::function<int()>& act) {
  std::vector<const char*> argv{app.get_name().c_str()};
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return 0;
  } catch (const CLI::ParseError& error) {
    std::fprintf(stderr, "%s: error: %s\n", app.get_name().c_str(), error.what());
    return kExitUsage;
  }
  try {
    return act();
  } catch (const std::exception& error) {  // UsageError, or a record HDF5 cannot read
    std::fprintf(stderr, "%s: error: %s\n", app.get_name().c_str(), error.what());
    return kExitUsage;
  }
}

namespace {

std::string link_names() {
  std::string names;
  for (const KnownLink& link : known_links()) names += (names.empty() ? "" : ", ") + link.name;
  return names;
}

// Written beside `path` and renamed over it: never a half-written file at `path`.
void write_file(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".npgpu-" + std::to_string(getpid());
  {
    std::ofstream out(temporary, std::ios::binary);
    out << text;
    out.close();
    if (!out) {
      std::filesystem::remove(temporary);
      throw UsageError("-o " + path + ": cannot write there");
    }
  }
  std::filesystem::rename(temporary, path);
}

// A fleet reference, or the runs of a record.
Reference read_reference(const std::string& spec) {
  if (is_fleet_reference(spec)) return {spec, {}, read_fleet_reference(spec)};
  return {spec, read_runs(spec), std::nullopt};
}

}  // namespace

int report_command(const std::vector<std::string>& args) {
  CLI::App app{"Answers from npgpu records: each curve's latency, peak, Hockney fit (alpha, beta, n1/2) and where the "
               "curve leaves it, the share of the link's theoretical peak reached, and verdicts across runs.",
               "npgpu report"};
  std::vector<std::string> files;
  bool json = false;
  std::string link, baseline;
  app.add_option("records", files, "npgpu records: FILE.h5 (every run), FILE.h5:/runs/0003 (one run)")->required();
  app.add_flag("--json", json, "JSON for scripts instead of text (docs/report-json.md)");
  app.add_option("--link", link, "Judge curves whose record has no theoretical peak against this link: " + link_names());
  app.add_option("--baseline", baseline,
                 "Judge each run against its reference: a run of the same hosts in REF.h5, or a fleet reference that "
                 "npgpu baseline made; exit code 5 where a size falls short beyond noise");
  return run_subcommand(app, args, [&] {
    const std::optional<LinkPeak> peak = link.empty() ? std::nullopt : std::optional(known_link(link).peak);
    const std::vector<RunData> runs = read_all(files);
    const Report report = make_report(runs, peak, path_words);
    // Judged before anything is printed: a refusal leaves standard output empty.
    const std::optional<BaselineReport> judged =
        baseline.empty() ? std::nullopt : std::optional(judge_against(runs, read_reference(baseline)));
    std::string text;
    if (json) {
      nlohmann::json answer = report_json(report);
      if (judged) answer["baseline"] = baseline_json(*judged);
      text = answer.dump(2) + "\n";
    } else
      text = report_text(report) + (judged ? baseline_text(*judged) : "");
    std::fputs(text.c_str(), stdout);
    return judged && !judged->shortfalls.empty() ? kExitExpectation : 0;
  });
}

int export_command(const std::vector<std::string>& args) {
  CLI::App app{"A record's curves as text: NetPIPE 3.x np.out columns (bytes, Mbps = bits/s / 2^20, one-way seconds) "
               "or CSV (bytes, seconds, B/s).",
               "npgpu export"};
  std::vector<std::string> files;
  std::string format, output;
  app.add_option("records", files, "npgpu records: FILE.h5 (every run), FILE.h5:/runs/0003 (one run)")->required();
  app.add_option("--format", format, "np.out or csv")->required()->check(CLI::IsMember({"np.out", "csv"}));
  app.add_option("-o,--output", output, "File to write (default: standard output)");
  return run_subcommand(app, args, [&] {
    const std::vector<RunData> runs = read_all(files);
    const std::string text = format == "csv" ? csv_text(runs) : np_out_text(runs);
    if (output.empty())
      std::fputs(text.c_str(), stdout);
    else
      write_file(output, text);
    return 0;
  });
}

}  // namespace npgpu
