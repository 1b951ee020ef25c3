#include "tcp/socket.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <utility>

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
  char text[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(address);
    inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text);
    return {text, ntohs(v4.sin_port)};
  }
  const auto& v6 = reinterpret_cast<const sockaddr_in6&>(address);
  inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text);
  return {text, ntohs(v6.sin6_port)};
}

// An IPv4 interface address and the prefix length of its network.
struct Network {
  std::string text;  // the address alone
  std::uint32_t address = 0;
  int prefix = 0;
  bool contains(std::uint32_t other) const {
    const std::uint32_t mask = prefix == 0 ? 0 : ~std::uint32_t{0} << (32 - prefix);
    return (address & mask) == (other & mask);
  }
};

// "10.0.0.2/24 192.168.1.5/16" as local_networks() writes it; malformed words are skipped.
std::vector<Network> parse_networks(const std::string& words) {
  std::vector<Network> networks;
  std::istringstream in(words);
  for (std::string word; in >> word;) {
    const std::size_t slash = word.find('/');
    in_addr address{};
    if (slash == std::string::npos || inet_pton(AF_INET, word.substr(0, slash).c_str(), &address) != 1) continue;
    const int prefix = std::atoi(word.c_str() + slash + 1);
    if (prefix < 0 || prefix > 32) continue;
    networks.push_back({word.substr(0, slash), ntohl(address.s_addr), prefix});
  }
  return networks;
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

std::string local_networks() {
  ifaddrs* interfaces = nullptr;
  if (getifaddrs(&interfaces) != 0) fail("getifaddrs");
  std::string networks;
  for (const ifaddrs* i = interfaces; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_netmask == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
    if ((i->ifa_flags & IFF_UP) == 0 || (i->ifa_flags & IFF_LOOPBACK) != 0) continue;
    char text[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr, text, sizeof text);
    const std::uint32_t mask = ntohl(reinterpret_cast<const sockaddr_in*>(i->ifa_netmask)->sin_addr.s_addr);
    networks += (networks.empty() ? "" : " ") + std::string(text) + "/" + std::to_string(std::popcount(mask));
  }
  freeifaddrs(interfaces);
  return networks;
}

Route route_to(const Place& mine, const Place& peer) {
  if (mine.host == peer.host) return {"127.0.0.1", "yes (loopback)"};
  for (const Network& theirs : parse_networks(peer.networks))
    for (const Network& ours : parse_networks(mine.networks))
      if (ours.contains(theirs.address))
        return {theirs.text, "no (peer's address on a network both hosts are on)"};
  return {peer.host, "no (peer found by host name)"};
}

std::vector<std::string> addresses_toward(const Place& mine, const Place& peer) {
  std::vector<std::string> addresses;
  for (const Network& ours : parse_networks(mine.networks))
    for (const Network& theirs : parse_networks(peer.networks))
      if (ours.contains(theirs.address)) {
        addresses.push_back(ours.text);
        break;
      }
  return addresses;
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

std::string interface_of(const std::string& address) {
  ifaddrs* interfaces = nullptr;
  if (getifaddrs(&interfaces) != 0) return "unknown";
  std::string name = "unknown";
  for (const ifaddrs* i = interfaces; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || (i->ifa_addr->sa_family != AF_INET && i->ifa_addr->sa_family != AF_INET6)) continue;
    sockaddr_storage copy{};
    std::memcpy(&copy, i->ifa_addr, i->ifa_addr->sa_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6));
    if (endpoint_of(copy).address == address) {
      name = i->ifa_name;
      break;
    }
  }
  freeifaddrs(interfaces);
  return name;
}

GrantedBuffers granted_buffers(const Socket& socket) {
  return {static_cast<std::uint64_t>(int_option(socket.fd(), SOL_SOCKET, SO_SNDBUF, "getsockopt(SO_SNDBUF)")),
          static_cast<std::uint64_t>(int_option(socket.fd(), SOL_SOCKET, SO_RCVBUF, "getsockopt(SO_RCVBUF)"))};
}

void send_all(int fd, const std::byte* data, std::uint64_t bytes) {
  for (std::uint64_t done = 0; done < bytes;) done += send_some(fd, data + done, bytes - done);
}

void receive_all(int fd, std::byte* data, std::uint64_t bytes) {
  for (std::uint64_t done = 0; done < bytes;) done += receive_some(fd, data + done, bytes - done);
}

void send_and_receive(const std::vector<Piece>& out, const std::vector<Piece>& in) {
  Cursor sending(out), receiving(in);
  while (!sending.done() || !receiving.done()) {
    if (!receiving.done()) receiving.advance(receive_some(receiving.fd(), receiving.at(), receiving.left()));
    if (!sending.done()) sending.advance(send_some(sending.fd(), sending.at(), sending.left()));
  }
}

}  // namespace npgpu::tcp
