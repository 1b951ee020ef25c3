#include "run/load_runner.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

namespace npgpu {
namespace {

enum Tag : int { kStart = 7101, kWarmedUp, kStop, kMoved };

// The load's warm-up: long enough for a transport to reach its steady rate (TCP's window opens in
// tens of round trips), short beside a sweep.
constexpr double kWarmUpSeconds = 0.2;
// Each load message's window: enough messages in flight to fill a link, as a stream's window does.
constexpr std::uint64_t kWindowBytes = 16ull << 20;

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

LoadSignals::LoadSignals(MPI_Comm world, int load_root, int victim_root)
    : world_(world), load_root_(load_root), victim_root_(victim_root) {}

void LoadSignals::start() const {
  int word = 1;
  MPI_Send(&word, 1, MPI_INT, load_root_, kStart, world_);
  MPI_Recv(&word, 1, MPI_INT, load_root_, kWarmedUp, world_, MPI_STATUS_IGNORE);
}

LoadResult LoadSignals::stop() const {
  int word = 1;
  MPI_Send(&word, 1, MPI_INT, load_root_, kStop, world_);
  double moved[2] = {0, 0};
  MPI_Recv(moved, 2, MPI_DOUBLE, load_root_, kMoved, world_, MPI_STATUS_IGNORE);
  return {moved[0], moved[1]};
}

void LoadSignals::wait_for_start() const {
  int word = 0;
  MPI_Request request;
  MPI_Irecv(&word, 1, MPI_INT, victim_root_, kStart, world_, &request);
  wait_asleep(request);
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
  const double moved[2] = {result.bytes, result.seconds};
  MPI_Send(moved, 2, MPI_DOUBLE, victim_root_, kMoved, world_);
}

void make_load(Module& module, const Team& team, const LoadPlan& load, const Clock& clock, LoadSignals& signals) {
  const Pattern pattern = load.pattern == LoadPattern::bidir ? Pattern::bidir : Pattern::stream;
  const std::uint64_t window = std::max<std::uint64_t>(1, kWindowBytes / load.bytes);
  const TransferShape shape = module.shape(pattern, load.bytes, window);
  if (team.is_root()) signals.wait_for_start();
  MPI_Request started;
  MPI_Ibarrier(team.comm(), &started);
  wait_asleep(started);
  const double began = clock.now();
  bool warm = false, stop = false;
  double windows = 0, counted_from = began;
  // Every load rank takes the same number of windows: a pair that stopped one window early would
  // leave its partner waiting, so the first rank's decision is shared after each window.
  while (!stop) {
    module.run({pattern, load.bytes, 1, window, clock});
    const double now = clock.now();
    if (!warm && now - began >= kWarmUpSeconds) {
      warm = true;
      counted_from = now;
      if (team.is_root()) signals.warmed_up();
    } else if (warm) {
      ++windows;
    }
    stop = team.any(team.is_root() && warm && signals.stop_asked());
  }
  const double pairs = static_cast<double>(load.ranks.size() / 2);
  const LoadResult result{windows * shape.transfers_per_rep * shape.bytes_per_transfer * pairs, clock.now() - counted_from};
  if (team.is_root()) signals.moved(result);
}

}  // namespace npgpu
