// mpi: MPI point-to-point between two ranks (NetPIPE's and OSU's method), with each rank's messages
// in host or GPU memory (--buffers). GPU memory goes to MPI directly when MPI is CUDA-aware, else
// through the staging pipeline (mpi/gpu_path.hpp says which and why).
#include <mpi.h>

#include <climits>
#include <optional>

#include "npgpu/module.hpp"
#include "mpi/gpu_path.hpp"
#include "mpi/mpi_settings.hpp"
#include "mpi/mpi_transport.hpp"
#include "mpi/staging.hpp"
#include "mpi_common/device_buffers.hpp"
#include "mpi_common/mpi_places.hpp"
#include "npgpu/errors.hpp"
#include "npgpu/gpu_binding.hpp"
#include "pair/message_memory.hpp"
#include "pair/pair_comm.hpp"
#include "pair/pair_facts.hpp"
#include "pair/pair_patterns.hpp"
#include "pair/pattern_module.hpp"

namespace npgpu {
namespace {

class MpiModule final : public PatternModule<PairPatterns> {
 public:
  void setup(const ModuleSetup& setup) override {
    const RunView& options = setup.run;
    const MpiOptions& own = options_of<MpiOptions>(options.module_options);
    if (setup.max_bytes > static_cast<std::uint64_t>(INT_MAX))
      throw UsageError("--upper " + std::to_string(setup.max_bytes) +
                       ": module mpi sends at most 2147483647 bytes per message (MPI counts are int)");
    const bool first_on_device = side_uses_device(own.buffers, 0);
    const bool second_on_device = side_uses_device(own.buffers, 1);
    comm_ = PairComm(setup.team);
    pattern_ = options.pattern;
    places_ = MpiPlaces(comm_.get());
    size_settings_ = mpi_size_settings();
    const PairSide side = side_of(setup.pairing, comm_.rank());
    if (side == PairSide::both && first_on_device != second_on_device)
      throw UsageError("--buffers " + own.buffers + ": with --pairs all every rank both starts and answers "
                       "exchanges, so both sides need the same memory: H,H or D,D");
    const bool on_device = side == PairSide::second ? second_on_device : side != PairSide::idle && first_on_device;
    const bool peer_on_device = side == PairSide::first ? second_on_device : first_on_device;
    path_ = {GpuPath::host, "host: both ranks' messages are host memory"};
    if (first_on_device || second_on_device) path_ = choose_gpu_path(own.gpu_path, mpi_cuda_awareness());

    if (on_device) {
      DeviceBuffers device =
          open_device_buffers(setup.team, options, own.buffers, own.device, setup.max_bytes);
      memory_ = std::move(device.memory);
      gpu_facts_ = std::move(device.facts);
    } else {
      // Other ranks' GPU choice may split the communicator to learn node-local ranks: take part.
      if (first_on_device || second_on_device) node_local_rank(setup.team);
      memory_ = make_host_message_memory(host_pool_bytes(options, setup.max_bytes), options.cache == CacheState::cold);
    }
    if (path_.path == GpuPath::staged)
      transport_ = make_staged_transport(comm_.get(), own, setup.max_bytes, on_device);
    else
      transport_ = std::make_unique<MpiTransport>(comm_.get());
    staging_ = path_.path == GpuPath::staged ? staging_description(own, setup.max_bytes) : "";
    patterns_.emplace("mpi", options, *memory_, peer_on_device, *transport_);
  }

  std::uint64_t host_bytes_needed(const RunView& options, std::uint64_t max_bytes) const override {
    return 2 * host_pool_bytes(options, max_bytes);  // a host side's pools; a GPU side's staging needs less
  }

  // The network between the step's pair: none on one host; between hosts, the one IP interface
  // that reaches the peer when MPI has no other way there; unknown, with why, otherwise.
  LinkPeak link_peak() const override {
    const int peer = patterns_->peers().to;
    if (peer < 0) return {};
    if (path_.path != GpuPath::host && !places_.same_host(comm_.rank(), peer))
      return {0, "unknown: messages in GPU memory cross PCIe as well as the network, and npgpu does not tell which limits them"};
    return places_.host_link_peak(comm_.rank(), peer, pattern_);
  }

  std::vector<std::pair<std::string, std::string>> placement() const override {
    std::vector<std::pair<std::string, std::string>> facts{
        {"messages", memory_->on_device() ? "GPU memory" : "host memory"},
        {"gpu_path", path_.why}};
    if (path_.path != GpuPath::host) facts.emplace_back("mpi_cuda_aware", describe(mpi_cuda_awareness()));
    if (!staging_.empty()) facts.emplace_back("staging", staging_);
    if (!size_settings_.empty()) facts.emplace_back("mpi_size_settings", size_settings_);
    facts.insert(facts.end(), gpu_facts_.begin(), gpu_facts_.end());
    return facts;
  }

 private:
  // In the order they are built; destroyed the other way round.
  PairComm comm_;
  Pattern pattern_ = Pattern::pingpong;
  MpiPlaces places_;
  GpuPathChoice path_;
  std::string staging_, size_settings_;
  std::unique_ptr<MessageMemory> memory_;
  std::vector<std::pair<std::string, std::string>> gpu_facts_;
  std::unique_ptr<Transport> transport_;
};

}  // namespace

std::unique_ptr<Module> make_mpi_module() { return std::make_unique<MpiModule>(); }

}  // namespace npgpu
