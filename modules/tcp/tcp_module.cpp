// tcp: raw TCP sockets between two ranks, addresses exchanged through MPI (NetPIPE's TCP module):
// what the network stack gives before an MPI library adds anything.
#include <mpi.h>

#include <climits>
#include <optional>

#include "factories.hpp"
#include "npgpu/errors.hpp"
#include "npgpu/sysinfo.hpp"
#include "pair/message_memory.hpp"
#include "pair/pair_comm.hpp"
#include "pair/pair_facts.hpp"
#include "pair/pair_patterns.hpp"
#include "tcp/socket.hpp"

namespace npgpu {
namespace {

class TcpTransport final : public Transport {
 public:
  explicit TcpTransport(int fd) : fd_(fd) {}
  void send(const Message& message) override { out_.push_back({message.data, message.bytes}); }
  void receive(const Message& message) override { in_.push_back({message.data, message.bytes}); }

  // One send() per message, as an application writes them; both ways at once through poll().
  void complete() override {
    if (in_.empty()) {
      for (const tcp::Piece& piece : out_) tcp::send_all(fd_, piece.data, piece.bytes);
    } else if (out_.empty()) {
      for (const tcp::Piece& piece : in_) tcp::receive_all(fd_, piece.data, piece.bytes);
    } else {
      tcp::send_and_receive(fd_, out_, in_);
    }
    out_.clear();
    in_.clear();
  }

 private:
  int fd_;
  std::vector<tcp::Piece> out_, in_;
};

class TcpModule final : public Module {
 public:
  void setup(const ModuleSetup& setup) override {
    const RunOptions& options = setup.options;
    if (options.socket_buffer > static_cast<std::uint64_t>(INT_MAX))
      throw UsageError("--socket-buffer " + std::to_string(options.socket_buffer) +
                       ": the kernel takes at most 2147483647 bytes (an int)");
    comm_ = PairComm(setup.team);
    const int rank = comm_.rank();
    const PairFacts hosts = gather_pair(comm_.get(), processor_name());
    route_ = tcp::route_between(hosts[0], hosts[1]);
    socket_options_ = {options.socket_buffer, options.nodelay};
    // Rank 1 listens before it says where; rank 0 connects once told. A failure on either side
    // is a RunError, which stops both ranks (MPI_Abort) rather than leaving one in accept().
    int port = 0;
    if (rank == 1) {
      const tcp::Socket listener = tcp::listen_on(route_.listen_address, socket_options_);
      port = tcp::local_endpoint(listener).port;
      MPI_Send(&port, 1, MPI_INT, 0, 0, comm_.get());
      socket_ = tcp::accept_connection(listener, socket_options_);
    } else {
      MPI_Recv(&port, 1, MPI_INT, 1, 0, comm_.get(), MPI_STATUS_IGNORE);
      socket_ = tcp::connect_to(route_.connect_host, port, socket_options_);
    }
    const std::uint64_t pool = rotation_pool_bytes(setup.max_bytes, last_level_cache_bytes(), options.cache == CacheState::cold);
    memory_ = make_host_message_memory(pool, options.cache == CacheState::cold);
    transport_.emplace(socket_.fd());
    patterns_.emplace("tcp", rank, options.window, *memory_, false, *transport_);
  }

  TrialTiming run(const TrialSpec& trial) override { return patterns_->run(trial); }

  void check(std::uint64_t bytes, std::uint64_t seed) override { patterns_->check(bytes, seed); }

  std::uint64_t host_bytes_needed(const RunOptions& options, std::uint64_t max_bytes) const override {
    return 2 * rotation_pool_bytes(max_bytes, last_level_cache_bytes(), options.cache == CacheState::cold);
  }

  std::vector<std::pair<std::string, std::string>> placement() const override {
    const tcp::Endpoint local = tcp::local_endpoint(socket_);
    const tcp::Endpoint peer = tcp::peer_endpoint(socket_);
    const tcp::GrantedBuffers granted = tcp::granted_buffers(socket_);
    const std::uint64_t asked = socket_options_.buffer_bytes;
    return {{"tcp_local", local.address + ":" + std::to_string(local.port)},
            {"tcp_interface", tcp::interface_of(local.address)},
            {"tcp_peer", peer.address + ":" + std::to_string(peer.port)},
            {"tcp_same_host", route_.same_host ? "yes (loopback)" : "no (rank 1 found by host name)"},
            {"tcp_nodelay", socket_options_.nodelay ? "on" : "off"},
            {"tcp_socket_buffer_asked_bytes", asked == 0 ? "system default" : std::to_string(asked)},
            {"tcp_send_buffer_granted_bytes", std::to_string(granted.send_bytes)},
            {"tcp_receive_buffer_granted_bytes", std::to_string(granted.receive_bytes)}};
  }

 private:
  // In the order they are built; destroyed the other way round.
  PairComm comm_;
  tcp::Route route_;
  tcp::SocketOptions socket_options_;
  tcp::Socket socket_;
  std::unique_ptr<MessageMemory> memory_;
  std::optional<TcpTransport> transport_;
  std::optional<PairPatterns> patterns_;
};

}  // namespace

std::unique_ptr<Module> make_tcp_module() { return std::make_unique<TcpModule>(); }

}  // namespace npgpu
