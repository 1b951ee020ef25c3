// The console for --pairs all: a line per step and size while measuring, then the matrices (when
// they fit a screen) and the flagged links.
#include <algorithm>
#include <cmath>
#include <vector>

#include "run/console_text.hpp"
#include "run/console.hpp"

namespace npgpu {
namespace {

constexpr int kLargestPrintedMatrix = 16;  // ranks; larger matrices are in the record only

// A cell as the console shows it: one-way time for a latency matrix, throughput otherwise.
std::string cell_text(const RunRecord& r, std::size_t index, const SizeResult& cell) {
  if (cell.trial_seconds.empty()) return "-";
  if (r.patterns[index] == Pattern::pingpong) return format_seconds(headline_of(cell.time, r.options.headline));
  return format_throughput(cell_throughput(cell, r.options.headline), r.options.units);
}

std::string who(const PairMatrix& m, int rank) {
  const auto r = static_cast<std::size_t>(rank);
  return "rank " + std::to_string(rank) + " (" + m.rank_host[r] + (m.rank_gpu[r].empty() ? "" : ", " + m.rank_gpu[r]) + ")";
}

}  // namespace

void ConsoleReporter::matrix_cells_done(const RunRecord& r, int shift, std::size_t index, const Progress& progress) {
  const PairMatrix& m = r.matrix;
  struct Cell {
    double rate;
    int from;
  };
  std::vector<Cell> cells;
  for (int from = 0; from < m.ranks; ++from) {
    const SizeResult& cell = m.cells[index][static_cast<std::size_t>(from * m.ranks + (from + shift) % m.ranks)];
    if (!cell.trial_seconds.empty()) cells.push_back({cell_throughput(cell, r.options.headline), from});
  }
  std::sort(cells.begin(), cells.end(), [](const Cell& a, const Cell& b) { return a.rate < b.rate; });
  auto text = [&](const Cell& c) {
    const std::size_t at = static_cast<std::size_t>(c.from * m.ranks + (c.from + shift) % m.ranks);
    return std::to_string(c.from) + "->" + std::to_string((c.from + shift) % m.ranks) + " " +
           cell_text(r, index, m.cells[index][at]);
  };
  const Cell& median = cells[cells.size() / 2];
  const std::size_t median_at = static_cast<std::size_t>(median.from * m.ranks + (median.from + shift) % m.ranks);
  std::fprintf(out_, "%-10s shift %-3d %10s %-8s  median %s  slowest %s  fastest %s  %s\n",
               progress_text(progress).c_str(), shift, format_bytes(r.schedule[index]).c_str(),
               pattern_name(r.patterns[index]), cell_text(r, index, m.cells[index][median_at]).c_str(),
               text(cells.front()).c_str(), text(cells.back()).c_str(), time_left(progress).c_str());
  std::fflush(out_);
}

void ConsoleReporter::print_matrices(const RunRecord& r) {
  const PairMatrix& m = r.matrix;
  for (std::size_t index = 0; index < m.bytes.size(); ++index) {
    const bool latency = m.patterns[index] == Pattern::pingpong;
    std::fprintf(out_, "\n%s %s: %s %s, row rank sends to column rank\n", format_bytes(m.bytes[index]).c_str(),
                 pattern_name(m.patterns[index]), headline_name(r.options.headline),
                 latency ? "one-way time" : "throughput");
    if (latency && !m.latency_cells.empty()) std::fprintf(out_, "  measured %s\n", m.latency_cells.c_str());
    if (index < m.measured_again.size() && m.measured_again[index] > 0)
      std::fprintf(out_, "  measured again: %llu time(s) a slow cell whose trials disagreed or lasted under a second; each "
                   "keeps its measurement with the fastest trial\n",
                   static_cast<unsigned long long>(m.measured_again[index]));
    if (m.ranks > kLargestPrintedMatrix) {
      std::fprintf(out_, "  (%d x %d cells: in the record, /runs/NNNN/matrix)\n", m.ranks, m.ranks);
      continue;
    }
    std::fprintf(out_, "%8s", "");
    for (int to = 0; to < m.ranks; ++to) std::fprintf(out_, " %11d", to);
    std::fprintf(out_, "\n");
    for (int from = 0; from < m.ranks; ++from) {
      std::fprintf(out_, "%8d", from);
      for (int to = 0; to < m.ranks; ++to)
        std::fprintf(out_, " %11s", cell_text(r, index, m.cells[index][static_cast<std::size_t>(from * m.ranks + to)]).c_str());
      std::fprintf(out_, "\n");
    }
  }
  std::fprintf(out_, "\nFlagged links (throughput below %g x the median of comparable links at the same size):",
               m.flag_below);
  if (m.flagged.empty()) std::fprintf(out_, " none flagged\n");
  else std::fprintf(out_, "\n");
  for (const FlaggedLink& link : m.flagged)
    std::fprintf(out_, "  %s: %s -> %s: %s, %.2f x the median %s of '%s'\n", format_bytes(m.bytes[link.size_index]).c_str(),
                 who(m, link.from).c_str(), who(m, link.to).c_str(),
                 format_throughput(link.throughput, r.options.units).c_str(), link.throughput / link.class_median,
                 format_throughput(link.class_median, r.options.units).c_str(),
                 m.classes[static_cast<std::size_t>(m.cell_class[static_cast<std::size_t>(link.from * m.ranks + link.to)])].c_str());
}

}  // namespace npgpu
