// tcp: raw TCP sockets between ranks, addresses exchanged through MPI (NetPIPE's TCP module): what
// the network stack gives before an MPI library adds anything. One connection per pair of ranks
// that ever exchange messages, made in setup, so no connection is made while measuring.
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <optional>

#include "npgpu/link_peaks.hpp"
#include "net_common/ip_networks.hpp"
#include "npgpu/module.hpp"
#include "npgpu/errors.hpp"
#include "npgpu/network_peaks.hpp"
#include "pair/message_memory.hpp"
#include "pair/pair_comm.hpp"
#include "pair/pair_facts.hpp"
#include "pair/pair_patterns.hpp"
#include "pair/pattern_module.hpp"
#include "tcp/socket.hpp"
#include "tcp/tcp_options.hpp"

namespace npgpu {
namespace {

class TcpTransport final : public Transport {
 public:
  TcpTransport(const std::map<int, tcp::Socket>& sockets, tcp::Waiting waiting) : sockets_(sockets), waiting_(waiting) {}
  void send(const Message& message) override { out_.push_back(piece(message)); }
  void receive(const Message& message) override { in_.push_back(piece(message)); }

  // One send() per message, as an application writes them; both ways at once through turns; from
  // several senders at once (an incast) whichever is ready.
  void complete() override {
    const auto one_socket = [](const std::vector<tcp::Piece>& pieces) {
      return std::all_of(pieces.begin(), pieces.end(), [&](const tcp::Piece& p) { return p.fd == pieces.front().fd; });
    };
    if (in_.empty()) {
      for (const tcp::Piece& piece : out_) tcp::send_all(piece.fd, piece.data, piece.bytes, waiting_);
    } else if (out_.empty() && one_socket(in_)) {
      for (const tcp::Piece& piece : in_) tcp::receive_all(piece.fd, piece.data, piece.bytes, waiting_);
    } else if (out_.empty()) {
      tcp::receive_from_each(in_, waiting_);
    } else {
      tcp::send_and_receive(out_, in_, waiting_);
    }
    out_.clear();
    in_.clear();
  }

 private:
  tcp::Piece piece(const Message& message) const { return {sockets_.at(message.peer).fd(), message.data, message.bytes}; }

  const std::map<int, tcp::Socket>& sockets_;
  const tcp::Waiting waiting_;
  std::vector<tcp::Piece> out_, in_;
};

class TcpModule final : public PatternModule<PairPatterns> {
 public:
  void setup(const ModuleSetup& setup) override {
    const RunView& options = setup.run;
    socket_options_ = options_of<TcpOptions>(options.module_options).socket;
    if (socket_options_.buffer_bytes > static_cast<std::uint64_t>(INT_MAX))
      throw UsageError("--socket-buffer " + std::to_string(socket_options_.buffer_bytes) +
                       ": the kernel takes at most 2147483647 bytes (an int)");
    comm_ = PairComm(setup.team);
    pattern_ = options.pattern;
    connect_partners(partners(setup.pairing, comm_.rank()));
    memory_ = make_host_message_memory(host_pool_bytes(options, setup.max_bytes), options.cache == CacheState::cold);
    transport_.emplace(sockets_, options.waits_asleep ? tcp::Waiting::asleep : tcp::Waiting::spin);
    patterns_.emplace("tcp", options, *memory_, false, *transport_);
  }

  std::uint64_t host_bytes_needed(const RunView& options, std::uint64_t max_bytes) const override {
    return 2 * host_pool_bytes(options, max_bytes);
  }

  // The step's link: none on one host; else the interface its connection leaves by, full duplex.
  LinkPeak link_peak() const override {
    const auto socket = sockets_.find(patterns_->peers().to);
    if (socket == sockets_.end()) return {};
    const LinkPeak one_way = hosts_[static_cast<std::size_t>(comm_.rank())] == hosts_[static_cast<std::size_t>(socket->first)]
                                 ? same_host_peak("the kernel's loopback")
                                 : interface_peak(network_interfaces(), interface_of(tcp::local_endpoint(socket->second).address));
    return pattern_ == Pattern::bidir ? both_directions(one_way) : one_way;
  }

  // The first partner's connection; with --pairs all, how many more there are.
  std::vector<std::pair<std::string, std::string>> placement() const override {
    if (sockets_.empty()) return {{"tcp_connections", "none (idle rank)"}};
    const auto& [peer, socket] = *sockets_.begin();
    const tcp::Endpoint local = tcp::local_endpoint(socket);
    const tcp::Endpoint remote = tcp::peer_endpoint(socket);
    const tcp::GrantedBuffers granted = tcp::granted_buffers(socket);
    const std::uint64_t asked = socket_options_.buffer_bytes;
    std::vector<std::pair<std::string, std::string>> facts{
        {"tcp_local", local.address + ":" + std::to_string(local.port)},
        {"tcp_interface", interface_of(local.address)},
        {"tcp_peer", remote.address + ":" + std::to_string(remote.port)},
        {"tcp_peer_rank", std::to_string(peer)},
        {"tcp_same_host", route_how_.at(peer)},
        {"tcp_nodelay", socket_options_.nodelay ? "on" : "off"},
        {"tcp_socket_buffer_asked_bytes", asked == 0 ? "system default" : std::to_string(asked)},
        {"tcp_send_buffer_granted_bytes", std::to_string(granted.send_bytes)},
        {"tcp_receive_buffer_granted_bytes", std::to_string(granted.receive_bytes)}};
    if (sockets_.size() > 1) facts.emplace_back("tcp_connections", std::to_string(sockets_.size()) + " (one per partner)");
    return facts;
  }

 private:
  // Every rank listens; of each pair the lower rank connects and says who it is, the higher one
  // accepts. All connects come first: the kernel completes them from the listen backlog, so no
  // rank waits in connect() for a peer that waits in accept(). A failure is a RunError, which
  // stops every rank (MPI_Abort) rather than leaving one in accept().
  void connect_partners(const std::vector<int>& partners) {
    const MPI_Comm comm = comm_.get();
    const int rank = comm_.rank();
    hosts_ = gather_all(comm, processor_name());
    const RankFacts networks = gather_all(comm, local_networks());
    const tcp::Socket listener = tcp::listen_on(tcp::listen_address(hosts_), socket_options_);
    const RankFacts ports = gather_all(comm, std::to_string(tcp::local_endpoint(listener).port));
    const auto place = [&](int r) { return Place{hosts_[static_cast<std::size_t>(r)], networks[static_cast<std::size_t>(r)]}; };
    int accepts = 0;
    for (int peer : partners) {
      const Route route = route_to(place(rank), place(peer));
      route_how_[peer] = route.how;
      if (peer < rank) {
        ++accepts;
        continue;
      }
      tcp::Socket socket = tcp::connect_to(route.address, std::stoi(ports[static_cast<std::size_t>(peer)]), socket_options_);
      const std::int32_t me = rank;
      tcp::send_all(socket.fd(), reinterpret_cast<const std::byte*>(&me), sizeof me);
      sockets_[peer] = std::move(socket);
    }
    for (int i = 0; i < accepts; ++i) {
      tcp::Socket socket = tcp::accept_connection(listener, socket_options_);
      std::int32_t who = -1;
      tcp::receive_all(socket.fd(), reinterpret_cast<std::byte*>(&who), sizeof who);
      if (route_how_.count(who) == 0 || who >= rank) throw RunError("tcp: an unexpected connection (rank " + std::to_string(who) + ")");
      sockets_[who] = std::move(socket);
    }
  }

  // In the order they are built; destroyed the other way round.
  PairComm comm_;
  tcp::SocketOptions socket_options_;
  Pattern pattern_ = Pattern::pingpong;
  RankFacts hosts_;  // by rank
  std::map<int, tcp::Socket> sockets_;  // by partner rank
  std::map<int, std::string> route_how_;  // by partner rank: how it was found
  std::unique_ptr<MessageMemory> memory_;
  std::optional<TcpTransport> transport_;
};

}  // namespace

std::unique_ptr<Module> make_tcp_module() { return std::make_unique<TcpModule>(); }

}  // namespace npgpu
