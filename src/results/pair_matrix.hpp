#pragma once
// The all-pairs result (--pairs all): one cell per ordered pair of ranks at each size, the class
// of path each cell crosses, and the cells slower than the others of their class. Pure functions,
// as Google Benchmark computes its aggregates from the runs.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "results/results.hpp"

namespace npgpu {

struct FlaggedLink {
  std::size_t size_index = 0;
  int from = 0;
  int to = 0;
  double throughput = 0;    // bytes per second, from the headline time
  double class_median = 0;  // the median of the measured cells of its class at that size
};

struct PairMatrix {
  int ranks = 0;
  std::vector<std::uint64_t> bytes;            // the sizes, one matrix each
  std::vector<Pattern> patterns;               // the pattern each size was measured with
  std::vector<std::vector<SizeResult>> cells;  // [size][from * ranks + to]; no trials: not measured
  std::vector<int> cell_class;                 // [from * ranks + to]: index into classes; -1 on the diagonal
  std::vector<std::string> classes;            // "one host, host buffers", "two hosts, GPU buffers", ...
  std::vector<std::string> rank_host;
  std::vector<std::string> rank_gpu;           // "" where the rank used no GPU
  double flag_below = 0.8;
  std::string latency_cells;                   // how the pingpong sizes were measured, where not as the rest
  std::vector<std::uint64_t> measured_again;   // [size]: slow cells whose trials disagreed, measured twice
  std::vector<FlaggedLink> flagged;
};

// An empty matrix of `ranks` x `ranks` cells for each size.
PairMatrix empty_matrix(int ranks, const std::vector<std::uint64_t>& bytes, const std::vector<Pattern>& patterns);

// Comparable cells share a class: both ranks on one host or on two, and where the messages live
// (host buffers, GPU buffers, or one of each). Fills cell_class and classes from rank_host and
// rank_gpu.
void classify_cells(PairMatrix& matrix);

// Throughput of a cell from its headline time; NaN when the cell was not measured.
double cell_throughput(const SizeResult& cell, Headline headline);

// Every measured cell whose throughput is below flag_below x the median of its class at its size,
// and whose fastest trial is too, against the median of its class's fastest trials: noise only
// ever adds time (a rank descheduled, a neighbour's burst), so a cell whose best trial keeps up
// with its class was slowed by noise, not by its link. Nor is a cell flagged that keeps up with the
// other cells of its class in its own shift (the median of them), where it has any: a shift's cells
// are measured one after another, so a spell of the machine's slowness (a whole shift of 8 B cells
// a quarter slower, seen here) slows them together, while a slow host's links lie in different
// shifts, one or two of each.
std::vector<FlaggedLink> flag_slow_links(const PairMatrix& matrix, Headline headline);

}  // namespace npgpu
