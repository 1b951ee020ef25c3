#pragma once
// A run as the analysis sees it, whether it comes from a record on disk (record_reader.hpp) or
// from the run that just ended: headline times per curve, the pairs' aggregate, the matrix's
// flagged links, the expectations. Plain data.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "results/expectations.hpp"
#include "npgpu/module.hpp"
#include "results/pair_matrix.hpp"
#include "npgpu/path_words.hpp"

namespace npgpu {

struct RunRecord;

struct CurveData {
  std::string name;  // "rank0", "rank0_gpu0_to_gpu1": the curve's group in the record
  int rank = 0;
  std::string host;
  int peer = -1;  // pair modules: the rank it measured with
  std::string peer_host;
  std::vector<double> bytes;               // message size
  std::vector<double> bytes_per_transfer;  // what one transfer counts (bidir: both directions)
  std::vector<double> seconds;             // headline one-way time per transfer
  std::vector<double> seconds_min, seconds_max;
  std::vector<double> tail_p99_seconds;    // one-way time per transfer at the 99th percentile; NaN or absent: not measured
  std::vector<double> trials;              // trials kept at each size
  std::vector<double> wall_seconds;        // what each size took, warm-up and checks included
  std::vector<std::vector<double>> trial_seconds;  // each trial of each size, as time per transfer (as `seconds`)
  // Each size's trials measured again after the sweep around a break, the same way; empty for most
  std::vector<std::vector<double>> rechecked;
  LinkPeak link_peak;                      // 0 B/s: unknown

  double throughput(std::size_t i) const { return bytes_per_transfer[i] / seconds[i]; }
  // Its two ranks share a host: a path's settings for shared memory apply, not its network's.
  bool within_one_host() const { return !peer_host.empty() && peer_host == host; }
};

// --pairs halves: the pairs together, size by size.
struct AggregateData {
  std::vector<double> bytes, sum, slowest;  // B, B/s, B/s
  std::vector<int> slowest_rank;
};

// --pairs all: the sizes and the cells slower than their class.
struct MatrixData {
  std::vector<double> bytes;
  std::vector<Pattern> patterns;
  std::vector<std::string> rank_host, rank_gpu, classes;
  std::vector<int> cell_class;  // [from * ranks + to]
  std::vector<double> throughput;  // [size][from][to], B/s; NaN: not measured
  std::vector<std::vector<double>> trial_seconds;  // [size][from][to]: each trial as time per transfer
  std::vector<double> tail_p99_seconds;  // [size][from][to], as the curves'; empty: not measured
  double flag_below = 0.8;
  std::vector<FlaggedLink> flagged;
  int ranks() const { return static_cast<int>(rank_host.size()); }
};

// --load as the victims' record keeps it (docs/hdf5-schema.md, /runs/N/load).
struct LoadData {
  std::string pattern, module;
  std::vector<int> ranks;    // the load ranks, of the whole run
  std::vector<int> victims;  // the whole run's rank of each victim, by the victims' own rank
  std::vector<std::string> hosts;  // every rank's host, by rank of the whole run; empty in older records
  std::vector<std::string> gpus;   // each load rank's GPU (PCI bus id; "none"), as `ranks`; empty: none or not known
  double bytes = 0;                // each load message
  double moved_bytes = 0, moved_seconds = 0;  // the loaded run's: what the load moved meanwhile
  std::vector<std::string> machines{};  // every rank's machine (boot id), as `hosts`; empty in older records
  std::string oversubscribed{};         // "8 ranks on 2 cores of one machine"; "" where none were
};

struct RunData {
  std::string file;   // the record it came from
  std::string group;  // "/runs/0001"
  std::string module, pattern, headline, status_reason, command_line, started_utc;
  std::string npgpu_version, cpu_model;  // who made the record, and rank 0's CPU
  int method_version = 1;  // the way of measuring (kMethodVersion when it was made)
  RunStatus status = RunStatus::complete;
  std::string concurrency;
  std::string load;   // --load: "isolated" (the victims alone) or "loaded" (under the load); "" otherwise
  std::optional<LoadData> load_facts;
  std::string pairs;  // as the record says it: "0:1", "halves", "all, sampled 3 of 7 partners (seed 42)"; "" per rank
  PairingMode pairing = PairingMode::one_pair;  // of a pair module
  bool sampled = false;                         // all: each rank saw a drawn few of its partners
  std::vector<std::string> rank_host;
  std::vector<std::string> mpi_parameters;  // the MCA parameters it was launched with: "btl_tcp_sndbuf=4096"
  PlacementFacts facts;  // rank 0's placement facts: direction, host_memory, gpu_path ...
  std::vector<PlacementFacts> rank_facts;  // every rank's, by rank (GPU, bus id, NUMA node ...)
  std::vector<CurveData> curves;
  std::optional<AggregateData> aggregate;
  std::optional<MatrixData> matrix;
  std::vector<ExpectationOutcome> expectations;
};

// The curves of a run just measured, as the record will hold them.
std::vector<CurveData> curves_of(const RunRecord& record);
CurveData curve_data(const Curve& curve, Headline headline);

// Trials measured again (their sizes' bytes and raw seconds, in the order measured) by size, as
// time per transfer, index for index with `bytes`; `divisors[i]` is size i's repetitions x
// transfers per repetition. A size the curve does not have is left out.
std::vector<std::vector<double>> rechecked_by_size(std::span<const double> bytes, std::span<const double> divisors,
                                                   std::span<const double> recheck_bytes,
                                                   std::span<const double> recheck_seconds);

}  // namespace npgpu
