#include "net_common/ip_networks.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "npgpu/errors.hpp"

namespace npgpu {
namespace {

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

}  // namespace

std::string local_networks() {
  ifaddrs* interfaces = nullptr;
  if (getifaddrs(&interfaces) != 0) throw RunError(std::string("tcp: getifaddrs: ") + std::strerror(errno));
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

std::string numeric_address(const sockaddr& address) {
  char text[INET6_ADDRSTRLEN] = {};
  if (address.sa_family == AF_INET)
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in&>(address).sin_addr, text, sizeof text);
  else
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6&>(address).sin6_addr, text, sizeof text);
  return text;
}

std::string interface_of(const std::string& address) {
  ifaddrs* interfaces = nullptr;
  if (getifaddrs(&interfaces) != 0) return "unknown";
  std::string name = "unknown";
  for (const ifaddrs* i = interfaces; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || (i->ifa_addr->sa_family != AF_INET && i->ifa_addr->sa_family != AF_INET6)) continue;
    if (numeric_address(*i->ifa_addr) == address) {
      name = i->ifa_name;
      break;
    }
  }
  freeifaddrs(interfaces);
  return name;
}

}  // namespace npgpu
