// ucx: UCX's UCP between ranks, the layer under Open MPI on InfiniBand and RoCE clusters (its pml
// ucx, and its osc ucx for one-sided), so that a user sees what MPI adds over it: tag send/receive,
// or put with a flush (--operation). Worker addresses go through MPI, and an endpoint to every
// partner is made in setup; UCX finishes connecting an endpoint (its wireup) on the first
// exchanges, which are timed on their own and recorded, never left to a curve.
#include <mpi.h>
#include <ucp/api/ucp.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "npgpu/link_peaks.hpp"
#include "npgpu/module.hpp"
#include "npgpu/network_peaks.hpp"
#include "pair/first_exchanges.hpp"
#include "pair/message_memory.hpp"
#include "pair/pair_comm.hpp"
#include "pair/pair_facts.hpp"
#include "pair/pair_patterns.hpp"
#include "pair/pattern_module.hpp"
#include "ucx/endpoint_config.hpp"
#include "ucx/ucx_options.hpp"
#include "ucx/ucx_put.hpp"
#include "ucx/ucx_worker.hpp"

namespace npgpu {
namespace {

using ucx::kEveryTagBit;
using ucx::tag_of;

// ucp_tag_send_nbx and ucp_tag_recv_nbx, progressed with ucp_worker_progress until all are done. A
// message longer than its receive fails (UCS_ERR_MESSAGE_TRUNCATED); one shorter fails its tag.
// Each call is made as its message is queued, and complete() waits for those not done at once:
// per round trip at 8 B, npgpu's own work on a rank stays near ucx_perftest's (docs/ARCHITECTURE.md,
// "ucx against ucx_perftest"). A message that comes before its receive is posted is held by UCX as
// unexpected and copied once more; bidir queues its receives first for that reason.
class UcxTagTransport final : public Transport {
 public:
  UcxTagTransport(ucx::Worker& worker, int rank) : worker_(worker), my_tag_(tag_of(rank)) {}
  void send(const Message& m) override {
    keep(ucp_tag_send_nbx(worker_.endpoint(m.peer), m.data, m.bytes, my_tag_, &param_), "ucp_tag_send_nbx", m.peer);
  }
  void receive(const Message& m) override {
    keep(ucp_tag_recv_nbx(worker_.get(), m.data, m.bytes, tag_of(m.peer), kEveryTagBit, &param_), "ucp_tag_recv_nbx",
         m.peer);
  }
  void complete() override {
    for (const Pending& p : pending_) worker_.wait(p.request, p.call, p.peer);
    pending_.clear();
  }

 private:
  struct Pending {
    ucs_status_ptr_t request;  // what the call returned
    const char* call;
    int peer;
  };
  void keep(ucs_status_ptr_t request, const char* call, int peer) {
    if (request != nullptr) pending_.push_back({request, call, peer});  // NULL: done at once
  }

  ucx::Worker& worker_;
  ucp_tag_t my_tag_;
  const ucp_request_param_t param_{};  // contiguous bytes, completion polled
  std::vector<Pending> pending_;
};

class UcxModule final : public PatternModule<PairPatterns> {
 public:
  void setup(const ModuleSetup& setup) override {
    const RunView& options = setup.run;
    comm_ = PairComm(setup.team);
    pattern_ = options.pattern;
    hosts_ = gather_all(comm_.get(), processor_name());
    const int rank = comm_.rank();
    put_ = options_of<UcxOptions>(options.module_options).operation == "put";
    // put: RMA for the data, tags for its notices.
    worker_.emplace(comm_.get(), put_ ? UCP_FEATURE_TAG | UCP_FEATURE_RMA : UCP_FEATURE_TAG, partners(setup.pairing, rank));
    const std::uint64_t pool_bytes = host_pool_bytes(options, setup.max_bytes);
    memory_ = make_host_message_memory(pool_bytes, options.cache == CacheState::cold);
    if (put_) {
      pools_.emplace(*worker_, comm_.get(), memory_->receive_pool(), pool_bytes, partners(setup.pairing, rank));
      transport_ = std::make_unique<ucx::PutTransport>(*worker_, *pools_, *memory_, rank);
    } else {
      transport_ = std::make_unique<UcxTagTransport>(*worker_, rank);
    }
    exchanges_ = time_first_exchanges(comm_.get(), setup.pairing, rank, *transport_, *memory_);
    // Read once connected: wireup may replace the lanes an endpoint started with.
    for (int peer : partners(setup.pairing, rank))
      endpoints_[peer] = ucx::parse_endpoint_config(worker_->endpoint_info(peer));
    patterns_.emplace("ucx", options, *memory_, false, *transport_);
  }

  std::uint64_t host_bytes_needed(const RunView& options, std::uint64_t max_bytes) const override {
    return 2 * host_pool_bytes(options, max_bytes);
  }

  // The step's link: none on one host; else the network device UCX's lanes to the peer use.
  LinkPeak link_peak() const override {
    const int peer = patterns_->peers().to;
    const auto endpoint = endpoints_.find(peer);
    if (endpoint == endpoints_.end()) return {};
    const bool same_host = hosts_[static_cast<std::size_t>(comm_.rank())] == hosts_[static_cast<std::size_t>(peer)];
    const LinkPeak one_way = ucx::endpoint_link_peak(endpoint->second, same_host, network_interfaces());
    return pattern_ == Pattern::bidir ? both_directions(one_way) : one_way;
  }

  // The first partner's endpoint as UCX configured it; with --pairs all, how many more there are.
  std::vector<std::pair<std::string, std::string>> placement() const override {
    std::vector<std::pair<std::string, std::string>> facts{
        {"ucx_version", ucp_get_version_string()},
        {"ucx_operation", put_ ? "put: ucp_put_nbx into the peer's mapped pool, ucp_ep_flush_nbx, then a 0-byte tag "
                                 "message as the notice"
                               : "tag: ucp_tag_send_nbx, ucp_tag_recv_nbx"},
        {"ucx_environment", environment_settings("UCX_")}};
    if (endpoints_.empty()) {
      facts.emplace_back("ucx_endpoints", "none (idle rank)");
      return facts;
    }
    const auto& [peer, endpoint] = *endpoints_.begin();
    facts.emplace_back("ucx_peer_rank", std::to_string(peer));
    facts.emplace_back("ucx_lanes", ucx::describe_lanes(endpoint.lanes));
    facts.emplace_back("ucx_tag_protocols", endpoint.tag_protocols.empty() ? "unknown" : endpoint.tag_protocols);
    if (put_) facts.emplace_back("ucx_put_protocols", ucx::describe_put_protocols(endpoint));
    facts.emplace_back("ucx_first_exchange_s", seconds_fact(exchanges_.first_seconds));
    facts.emplace_back("ucx_second_exchange_s", seconds_fact(exchanges_.second_seconds));
    if (endpoints_.size() > 1) facts.emplace_back("ucx_endpoints", std::to_string(endpoints_.size()) + " (one per partner)");
    return facts;
  }

 private:
  // In the order they are built; destroyed the other way round (the worker closes its endpoints
  // over the communicator, so it goes first).
  PairComm comm_;
  Pattern pattern_ = Pattern::pingpong;
  RankFacts hosts_;  // by rank
  std::optional<ucx::Worker> worker_;
  bool put_ = false;
  std::unique_ptr<MessageMemory> memory_;
  std::optional<ucx::ExposedPools> pools_;  // put only
  std::unique_ptr<Transport> transport_;
  FirstExchanges exchanges_;
  std::map<int, ucx::EndpointConfig> endpoints_;  // by partner rank
};

}  // namespace

std::unique_ptr<Module> make_ucx_module() { return std::make_unique<UcxModule>(); }

}  // namespace npgpu
