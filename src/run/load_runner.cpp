#include "run/load_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

namespace npgpu {
namespace {

enum Tag : int { kStart = 7101, kWarmedUp, kStop, kMoved, kMovedGpus };

// The load's warm-up: long enough for a transport to reach its steady rate (TCP's window opens in
// tens of round trips), short beside a sweep.
constexpr double kWarmUpSeconds = 0.2;
// Each load message's window at first: enough messages in flight to fill a link, as a stream's
// window does ...
constexpr std::uint64_t kWindowBytes = 16ull << 20;
// ... and from the second cycle on at least enough to last kWindowSeconds, up to kMostMessages: a
// bulk copy keeps its path's queue full, while windows of one large message, each closed by its
// ack, let the victims' messages through between copies (2 x H200, cudaIpc victims under a cudaIpc
// stream of 256 MiB messages: 8 B at 388 to 402 us behind windows of one, 525 us behind windows of
// 64 made by a separate job, which gave 350 us with windows of one).
constexpr double kWindowSeconds = 0.05;
constexpr std::uint64_t kMostMessages = 64;

// The window for the cycles after the first, whose windows of `window` messages took `seconds`
// each on the first load rank.
std::uint64_t lasting_window(std::uint64_t window, double seconds) {
  if (!(seconds > 0)) return window;
  const double per_message = seconds / static_cast<double>(window);
  const auto lasting = static_cast<std::uint64_t>(std::ceil(kWindowSeconds / per_message));
  return std::max(window, std::min(kMostMessages, lasting));
}

// The GPU a load rank's module moves its load with (its PCI bus id), as its placement says, or the
// GPUs of a module that copies between several (p2p), separated by spaces; "" for none.
std::string gpu_of(const Module& module) {
  for (const auto& [name, value] : module.placement())
    if (name == "gpu_pci_bus_id" || name == "gpu_pci_bus_ids") return value;
  return "";
}

// Waits for `request` asleep between polls: a blocking MPI call spins on a core, and the load
// ranks wait through the victims' whole isolated sweep, which must not share its cores with them.
void wait_asleep(MPI_Request& request) {
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done != 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace

LoadSignals::LoadSignals(MPI_Comm world, int load_root, int victim_root, RunGuard& guard, double bound)
    : world_(world), load_root_(load_root), victim_root_(victim_root), guard_(guard), bound_(bound) {}

std::string LoadSignals::load_root_text() const {
  return "the load ranks (their first, rank " + std::to_string(load_root_) + ")";
}

void LoadSignals::start() const {
  int word = 1;
  guard_.expect(bound_, load_root_text() + " starting the load and warming it up");
  MPI_Send(&word, 1, MPI_INT, load_root_, kStart, world_);
  MPI_Recv(&word, 1, MPI_INT, load_root_, kWarmedUp, world_, MPI_STATUS_IGNORE);
  guard_.idle();
}

LoadResult LoadSignals::stop() const {
  int word = 1;
  guard_.expect(bound_, load_root_text() + " stopping the load and saying what it moved");
  MPI_Send(&word, 1, MPI_INT, load_root_, kStop, world_);
  double moved[3] = {0, 0, 0};
  MPI_Recv(moved, 3, MPI_DOUBLE, load_root_, kMoved, world_, MPI_STATUS_IGNORE);
  MPI_Status status;
  MPI_Probe(load_root_, kMovedGpus, world_, &status);
  int length = 0;
  MPI_Get_count(&status, MPI_CHAR, &length);
  std::string gpus(static_cast<std::size_t>(length), '\0');
  MPI_Recv(gpus.data(), length, MPI_CHAR, load_root_, kMovedGpus, world_, MPI_STATUS_IGNORE);
  guard_.idle();
  LoadResult result{moved[0], moved[1], {}, moved[2]};
  for (std::size_t at = 0; at < gpus.size();) {  // one per load rank, each ended by '\n'
    const std::size_t end = gpus.find('\n', at);
    result.gpus.push_back(gpus.substr(at, end - at));
    at = end + 1;
  }
  return result;
}

void LoadSignals::cancel() const {
  int word = 0;
  MPI_Send(&word, 1, MPI_INT, load_root_, kStart, world_);
}

bool LoadSignals::wait_for_start() const {
  int word = 0;
  MPI_Request request;
  MPI_Irecv(&word, 1, MPI_INT, victim_root_, kStart, world_, &request);
  wait_asleep(request);
  return word != 0;
}

void LoadSignals::warmed_up() const {
  int word = 1;
  MPI_Send(&word, 1, MPI_INT, victim_root_, kWarmedUp, world_);
}

bool LoadSignals::stop_asked() {
  if (stop_ == MPI_REQUEST_NULL) MPI_Irecv(&stop_word_, 1, MPI_INT, victim_root_, kStop, world_, &stop_);
  int done = 0;
  MPI_Test(&stop_, &done, MPI_STATUS_IGNORE);
  return done != 0;
}

void LoadSignals::moved(const LoadResult& result) const {
  const double moved[3] = {result.bytes, result.seconds, result.window};
  MPI_Send(moved, 3, MPI_DOUBLE, victim_root_, kMoved, world_);
  std::string gpus;
  for (const std::string& gpu : result.gpus) gpus += gpu + "\n";
  MPI_Send(gpus.data(), static_cast<int>(gpus.size()), MPI_CHAR, victim_root_, kMovedGpus, world_);
}

void make_load(Module& module, const Team& team, const LoadPlan& load, const Clock& clock, LoadSignals& signals) {
  const LoadCycle cycle = load_cycle(load);
  const std::vector<Peers>& first_round = cycle.rounds.front();
  std::uint64_t window = std::max<std::uint64_t>(1, kWindowBytes / load.bytes);
  RunGuard& guard = signals.guard();
  // The victims' isolated sweep comes first, as long as it takes: each of its waits is bounded by
  // the victims' own guard, and a victim that stops ends the job, which names this wait.
  guard.await_others("the victims (their first, rank " + std::to_string(victims_of(load).front()) +
                     ") to finish their isolated sweep and start the load");
  int go = team.is_root() && signals.wait_for_start() ? 1 : 0;
  MPI_Request started;
  MPI_Ibcast(&go, 1, MPI_INT, 0, team.comm(), &started);
  wait_asleep(started);
  if (go == 0) return;
  const std::string in_cycle = "the other load ranks in the load's windows (module " + load.module + ", " +
                               load_pattern_name(load.pattern) + ", " + std::to_string(load.bytes) + " B)";
  guard.expect(signals.bound(), in_cycle);
  if (cycle.alone) module.select_variant(0);  // its first path: p2p's first GPU pair (0:1 by default)
  else if (cycle.rounds.size() == 1) module.select_peers(first_round.at(static_cast<std::size_t>(team.rank())));
  // A window of `messages`: one repetition of that window for a pair module; as many repetitions
  // for a module of each rank's own path, whose repetition is one copy (it has no window).
  const auto window_of = [&](std::uint64_t messages) {
    return cycle.alone ? TrialSpec{cycle.pattern, load.bytes, messages, 1, clock}
                       : TrialSpec{cycle.pattern, load.bytes, 1, messages, clock};
  };
  const double began = clock.now();
  bool first = true, warm = false, stop = false;
  double cycles = 0, counted_from = began;
  // Every load rank takes the same number of cycles: a pair that stopped one window early would
  // leave its partner waiting, so the first rank's decision is shared after each cycle.
  while (!stop) {
    double window_seconds = 0;
    int windows = 0;
    for (std::size_t r = 0; r < cycle.rounds.size(); ++r) {
      if (r > 0 && cycle.barrier_between_rounds) team.barrier();
      const Peers& mine = cycle.rounds[r].at(static_cast<std::size_t>(team.rank()));
      if (mine.idle() && !cycle.alone) continue;
      // A new partner each round: both sides count its tags from zero (select_peers).
      if (cycle.rounds.size() > 1) module.select_peers(mine);
      const double started = clock.now();
      module.run(window_of(window));
      window_seconds += clock.now() - started;
      ++windows;
    }
    if (first) {  // the first rank's choice: both ends of a window must agree on it
      first = false;
      window = team.broadcast(lasting_window(window, windows > 0 ? window_seconds / windows : 0));
    }
    const double now = clock.now();
    if (!warm && now - began >= kWarmUpSeconds) {
      warm = true;
      counted_from = now;
      if (team.is_root()) signals.warmed_up();
    } else if (warm) {
      ++cycles;
    }
    stop = team.any(team.is_root() && warm && signals.stop_asked());
    guard.expect(signals.bound(), in_cycle);
  }
  const TrialSpec last = window_of(window);
  const TransferShape shape = module.shape(cycle.pattern, load.bytes, last.window);
  const double bytes = cycles * windows_per_cycle(cycle) * static_cast<double>(last.reps) * shape.transfers_per_rep *
                       shape.bytes_per_transfer;
  const LoadResult result{bytes, clock.now() - counted_from, team.gather(gpu_of(module)), static_cast<double>(window)};
  if (team.is_root()) signals.moved(result);
  guard.idle();
}

}  // namespace npgpu
