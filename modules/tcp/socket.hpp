#pragma once
// TCP sockets between ranks: listening, connecting, whole buffers through partial sends and
// receives, and both directions at once. Every call is checked; a failure is a RunError naming it.
// Transfers busy-poll non-blocking sockets, as MPI's progress engines do (socket.cpp says why), or,
// for a load, sleep in poll() until the socket is ready.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace npgpu::tcp {

class Socket {
 public:
  Socket() = default;
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket();
  Socket(Socket&& other) noexcept;
  Socket& operator=(Socket&& other) noexcept;
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
};

struct SocketOptions {
  std::uint64_t buffer_bytes = 0;  // SO_SNDBUF and SO_RCVBUF; 0: the system's (autotuned)
  bool nodelay = true;             // TCP_NODELAY
};

// Where a rank listens, from every rank's host name: loopback when all share one host, else every
// interface.
std::string listen_address(const std::vector<std::string>& hosts);

// Listens on a numeric address at a port the kernel picks. Buffer sizes are set before listen,
// so the connection inherits them and negotiates its window scale to fit.
Socket listen_on(const std::string& address, const SocketOptions& options);
Socket accept_connection(const Socket& listener, const SocketOptions& options);
// Tries each address getaddrinfo gives for host.
Socket connect_to(const std::string& host, int port, const SocketOptions& options);

struct Endpoint {
  std::string address;
  int port = 0;
};
Endpoint local_endpoint(const Socket& socket);
Endpoint peer_endpoint(const Socket& socket);

// What the kernel granted: Linux doubles what it is asked, up to net.core.wmem_max / rmem_max.
struct GrantedBuffers {
  std::uint64_t send_bytes;
  std::uint64_t receive_bytes;
};
GrantedBuffers granted_buffers(const Socket& socket);

// How a transfer waits for a socket that is not ready: `spin` retries at once (a measurement);
// `asleep` sleeps in poll(), leaving the core to others (a load, RunView::waits_asleep).
enum class Waiting { spin, asleep };

void send_all(int fd, const std::byte* data, std::uint64_t bytes, Waiting waiting = Waiting::spin);
void receive_all(int fd, std::byte* data, std::uint64_t bytes, Waiting waiting = Waiting::spin);

struct Piece {
  int fd;
  std::byte* data;
  std::uint64_t bytes;
};
// Sends every piece of `out` while receiving every piece of `in`, in order, taking turns without
// blocking, so two ranks doing this at once never both wait on full socket buffers.
void send_and_receive(const std::vector<Piece>& out, const std::vector<Piece>& in, Waiting waiting = Waiting::spin);
// Receives every piece of `in` from several sockets at once, each socket's pieces in order, reading
// whichever sender's bytes are ready: an incast's receiver, which must not leave one sender stalled
// on a full socket buffer while it waits for another.
void receive_from_each(const std::vector<Piece>& in, Waiting waiting = Waiting::spin);

}  // namespace npgpu::tcp
