#pragma once
// Everything the user chose on the command line, parsed and checked for form.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "npgpu/calibration.hpp"
#include "npgpu/expectations.hpp"
#include "npgpu/fault.hpp"
#include "npgpu/schedule.hpp"
#include "npgpu/sizes.hpp"
#include "npgpu/statistics.hpp"

namespace npgpu {

enum class Pattern { pingpong, stream, bidir };
const char* pattern_name(Pattern pattern);

enum class CacheState { cold, warm };

// For modules where every rank measures its own path: all ranks at once (shared links show up)
// or one rank after another (each link alone).
enum class Concurrency { together, alone };

struct RunOptions {
  std::string module;
  Pattern pattern = Pattern::pingpong;
  bool pattern_given = false;  // otherwise the module's first pattern applies
  ScheduleOptions schedule;
  bool upper_given = false;  // otherwise the module's default upper size applies
  Calibration calibration;
  std::uint64_t min_trials = 3;
  std::uint64_t max_trials = 20;
  double precision = 0.01;
  std::uint64_t window = 64;  // stream and bidir: messages per window, at most (auto) or always (--window)
  bool window_given = false;
  std::string timer = "wall";
  Headline headline = Headline::median;
  CacheState cache = CacheState::cold;
  Concurrency concurrency = Concurrency::together;
  bool check_data = false;
  Units units = Units::decimal;
  bool nvtx = false;   // NVTX ranges around each size and trial, for Nsight Systems
  std::optional<double> timeout;  // seconds any one wait may last; otherwise it grows with the size
  std::optional<ByteFlip> flip;   // tests only: corrupt arriving messages (--test-flip-byte)
  std::string output;  // empty: a new file with a default name
  std::string np_out;  // also write the curves in NetPIPE's np.out columns here (--np-out)
  std::vector<Expectation> expectations;  // --expect-bw, --expect-latency: exit 5 when one is not met
  std::string command_line;

  // Module options: a module accepts only those its catalog entry names (ModuleInfo::options);
  // the names given on the command line are kept to refuse the others.
  std::vector<std::string> module_options_given;
  std::string direction = "h2d";         // cudaMemcpy, cuMemcpy: h2d, d2h, d2d, h2d2h, bidir
  std::string host_memory = "pinned";    // pageable, pinned, write-combined, registered
  std::string copy = "ce";               // ce (copy engine) or sm (a copy kernel)
  std::string api = "async";             // async (cudaEvents behind a spin kernel) or sync (host clock)
  std::optional<int> device;             // GPU index, instead of the node-local rank's
  std::string pairs;                     // p2p: GPU pairs, "all" or "0:1" (source:destination);
                                         // pair modules: rank pairs, "A:B", "halves" or "all"; default 0:1
  std::vector<std::uint64_t> sizes;      // --pairs all: the sizes of the matrices (default 8 B and 1 MiB)
  double flag_below = 0.8;               // --pairs all: flag cells under this fraction of their class's median
  std::uint64_t sample = 0;              // --pairs all: partners per rank, 0 = every other rank
  std::optional<std::uint64_t> seed;     // --sample: the draw's seed; otherwise one is drawn and recorded
  std::string p2p_access = "write";      // p2p: write (source pushes) or read (destination pulls)
  std::string buffers = "H,H";           // mpi: H(ost) or D(evice) memory on rank 0, rank 1
  std::string gpu_path = "auto";         // mpi with D buffers: auto, direct (CUDA-aware MPI), staged
  std::uint64_t chunk = 1024 * 1024;     // staged: bytes per pipelined chunk
  std::string staging = "pipelined";     // staged: pipelined or naive
  std::uint64_t socket_buffer = 0;       // tcp: SO_SNDBUF and SO_RCVBUF bytes, 0 = the system's
  bool nodelay = true;                   // tcp: TCP_NODELAY
};

// What the command line asks for: a run, or one of the answers that need no run.
enum class Action { run, help, version, list_modules, info };

struct ParsedCommand {
  Action action = Action::run;
  RunOptions options;
  std::string text;        // --help / --version text
  bool info_json = false;  // npgpu info --json
};

// The options that belong to particular modules (RunOptions' second part).
extern const std::vector<const char*> kModuleOptions;

// Throws UsageError with one line naming what is wrong and what is allowed. "npgpu info ..." is
// the info command; every other command line is a run (or --help, --version, --list-modules).
ParsedCommand parse_command_line(const std::vector<std::string>& args);

}  // namespace npgpu
