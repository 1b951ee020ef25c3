#include "tcp/socket.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <map>
#include <span>
#include <utility>

#include "net_common/ip_networks.hpp"
#include "npgpu/errors.hpp"

namespace npgpu::tcp {
namespace {

[[noreturn]] void fail(const std::string& what) {
  throw RunError("tcp: " + what + ": " + std::strerror(errno));
}

int checked(int result, const char* what) {
  if (result < 0) fail(what);
  return result;
}

void set_int_option(int fd, int level, int name, int value, const char* what) {
  checked(setsockopt(fd, level, name, &value, sizeof value), what);
}

int int_option(int fd, int level, int name, const char* what) {
  int value = 0;
  socklen_t length = sizeof value;
  checked(getsockopt(fd, level, name, &value, &length), what);
  return value;
}

void set_buffers(int fd, const SocketOptions& options) {
  if (options.buffer_bytes == 0) return;
  const int bytes = static_cast<int>(options.buffer_bytes);
  set_int_option(fd, SOL_SOCKET, SO_SNDBUF, bytes, "setsockopt(SO_SNDBUF)");
  set_int_option(fd, SOL_SOCKET, SO_RCVBUF, bytes, "setsockopt(SO_RCVBUF)");
}

void set_nodelay(int fd, const SocketOptions& options) {
  set_int_option(fd, IPPROTO_TCP, TCP_NODELAY, options.nodelay ? 1 : 0, "setsockopt(TCP_NODELAY)");
}

Endpoint endpoint_of(const sockaddr_storage& address) {
  const in_port_t port = address.ss_family == AF_INET ? reinterpret_cast<const sockaddr_in&>(address).sin_port
                                                      : reinterpret_cast<const sockaddr_in6&>(address).sin6_port;
  return {numeric_address(reinterpret_cast<const sockaddr&>(address)), ntohs(port)};
}

// Whole pieces, one after another: how far the current piece has got.
class Cursor {
 public:
  explicit Cursor(const std::vector<Piece>& pieces) : pieces_(pieces) {}
  bool done() const { return index_ == pieces_.size(); }
  int fd() const { return pieces_[index_].fd; }
  std::byte* at() const { return pieces_[index_].data + offset_; }
  std::uint64_t left() const { return pieces_[index_].bytes - offset_; }
  void advance(std::uint64_t bytes) {
    offset_ += bytes;
    if (offset_ == pieces_[index_].bytes) {
      ++index_;
      offset_ = 0;
    }
  }

 private:
  const std::vector<Piece>& pieces_;
  std::size_t index_ = 0;
  std::uint64_t offset_ = 0;
};

// One send or receive of what the socket takes now, 0 when it would block. Never blocking, and
// retried at once (busy polling, as MPI progress engines do): a blocking receive sleeps and pays
// the scheduler's wake-up, tens of microseconds on a virtual machine, which is no part of TCP's
// latency.
std::uint64_t send_some(int fd, const std::byte* data, std::uint64_t bytes) {
  const ssize_t sent = send(fd, data, bytes, MSG_DONTWAIT | MSG_NOSIGNAL);
  if (sent >= 0) return static_cast<std::uint64_t>(sent);
  if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) return 0;
  fail("send");
}

std::uint64_t receive_some(int fd, std::byte* data, std::uint64_t bytes) {
  const ssize_t received = recv(fd, data, bytes, MSG_DONTWAIT);
  if (received > 0) return static_cast<std::uint64_t>(received);
  if (received == 0) throw RunError("tcp: the peer closed the connection in the middle of a message");
  if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) return 0;
  fail("recv");
}

// Asleep until one of `sockets` is ready for what it waits for (or has failed: the next send or
// receive says how); at once when spinning.
void await(Waiting waiting, std::vector<pollfd> sockets) {
  if (waiting == Waiting::spin || sockets.empty()) return;
  if (poll(sockets.data(), sockets.size(), -1) < 0 && errno != EINTR) fail("poll");
}

// A cursor over pieces that move one way: sent, or received.
struct Way {
  Cursor cursor;
  bool sending;
};

// Moves every way's pieces, taking turns without blocking; where none moved, waits for any of them.
// A span: a bidir trial calls it once a repetition, and allocates nothing for its two ways.
void move_all(std::span<Way> ways, Waiting waiting) {
  for (bool left = true; left;) {
    std::vector<pollfd> stuck;
    bool moved = false;
    left = false;
    for (Way& way : ways) {
      Cursor& cursor = way.cursor;
      if (cursor.done()) continue;
      const std::uint64_t bytes = way.sending ? send_some(cursor.fd(), cursor.at(), cursor.left())
                                              : receive_some(cursor.fd(), cursor.at(), cursor.left());
      if (bytes == 0) stuck.push_back({cursor.fd(), static_cast<short>(way.sending ? POLLOUT : POLLIN), 0});
      moved = moved || bytes > 0;
      cursor.advance(bytes);
      left = left || !cursor.done();
    }
    if (left && !moved) await(waiting, stuck);  // a way that moves keeps the loop going
  }
}

}  // namespace

Socket::~Socket() {
  if (fd_ >= 0) close(fd_);
}

Socket::Socket(Socket&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

Socket& Socket::operator=(Socket&& other) noexcept {
  std::swap(fd_, other.fd_);
  return *this;
}

std::string listen_address(const std::vector<std::string>& hosts) {
  const bool one_host = std::all_of(hosts.begin(), hosts.end(), [&](const std::string& h) { return h == hosts.front(); });
  return one_host ? "127.0.0.1" : "0.0.0.0";
}

Socket listen_on(const std::string& address, const SocketOptions& options) {
  sockaddr_in where{};
  where.sin_family = AF_INET;
  where.sin_port = 0;  // the kernel picks a free port
  if (inet_pton(AF_INET, address.c_str(), &where.sin_addr) != 1)
    throw RunError("tcp: '" + address + "' is not a numeric IPv4 address");
  Socket listener(checked(socket(AF_INET, SOCK_STREAM, 0), "socket"));
  set_buffers(listener.fd(), options);
  checked(bind(listener.fd(), reinterpret_cast<const sockaddr*>(&where), sizeof where), "bind");
  checked(listen(listener.fd(), SOMAXCONN), "listen");  // every partner may connect at once
  return listener;
}

Socket accept_connection(const Socket& listener, const SocketOptions& options) {
  int fd = -1;
  do {
    fd = accept(listener.fd(), nullptr, nullptr);
  } while (fd < 0 && errno == EINTR);
  Socket connection(checked(fd, "accept"));
  set_nodelay(connection.fd(), options);
  return connection;
}

Socket connect_to(const std::string& host, int port, const SocketOptions& options) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int status = getaddrinfo(host.c_str(), service.c_str(), &hints, &found); status != 0)
    throw RunError("tcp: cannot resolve host '" + host + "': " + gai_strerror(status));
  std::string tried;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    Socket candidate(socket(a->ai_family, a->ai_socktype, a->ai_protocol));
    if (candidate.fd() < 0) continue;
    set_buffers(candidate.fd(), options);
    if (connect(candidate.fd(), a->ai_addr, a->ai_addrlen) == 0) {
      freeaddrinfo(found);
      set_nodelay(candidate.fd(), options);
      return candidate;
    }
    tried += (tried.empty() ? "" : "; ") + std::string(std::strerror(errno));
  }
  freeaddrinfo(found);
  throw RunError("tcp: cannot connect to " + host + ":" + service + " (" + (tried.empty() ? "no address" : tried) + ")");
}

Endpoint local_endpoint(const Socket& socket) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  checked(getsockname(socket.fd(), reinterpret_cast<sockaddr*>(&address), &length), "getsockname");
  return endpoint_of(address);
}

Endpoint peer_endpoint(const Socket& socket) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  checked(getpeername(socket.fd(), reinterpret_cast<sockaddr*>(&address), &length), "getpeername");
  return endpoint_of(address);
}

GrantedBuffers granted_buffers(const Socket& socket) {
  return {static_cast<std::uint64_t>(int_option(socket.fd(), SOL_SOCKET, SO_SNDBUF, "getsockopt(SO_SNDBUF)")),
          static_cast<std::uint64_t>(int_option(socket.fd(), SOL_SOCKET, SO_RCVBUF, "getsockopt(SO_RCVBUF)"))};
}

void send_all(int fd, const std::byte* data, std::uint64_t bytes, Waiting waiting) {
  for (std::uint64_t done = 0; done < bytes;) {
    const std::uint64_t sent = send_some(fd, data + done, bytes - done);
    if (sent == 0) await(waiting, {{fd, POLLOUT, 0}});
    done += sent;
  }
}

void receive_all(int fd, std::byte* data, std::uint64_t bytes, Waiting waiting) {
  for (std::uint64_t done = 0; done < bytes;) {
    const std::uint64_t received = receive_some(fd, data + done, bytes - done);
    if (received == 0) await(waiting, {{fd, POLLIN, 0}});
    done += received;
  }
}

void send_and_receive(const std::vector<Piece>& out, const std::vector<Piece>& in, Waiting waiting) {
  std::array<Way, 2> ways{{{Cursor(in), false}, {Cursor(out), true}}};
  move_all(ways, waiting);
}

void receive_from_each(const std::vector<Piece>& in, Waiting waiting) {
  std::map<int, std::vector<Piece>> by_socket;
  for (const Piece& piece : in) by_socket[piece.fd].push_back(piece);
  std::vector<Way> ways;
  for (const auto& [fd, pieces] : by_socket) ways.push_back({Cursor(pieces), false});
  move_all(ways, waiting);
}

}  // namespace npgpu::tcp
