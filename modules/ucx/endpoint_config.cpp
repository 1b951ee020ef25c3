#include "ucx/endpoint_config.hpp"

#include <algorithm>
#include <map>
#include <regex>
#include <sstream>

#include "npgpu/network_peaks.hpp"
#include "npgpu/words.hpp"

namespace npgpu::ucx {
namespace {

// "#                 lane[0]:  1:posix/memory.0 md[1]          -> md[1]/posix/sysdev[255] am am_bw#0"
// (a connection manager's lane is printed otherwise, and is no data lane).
const std::regex kLane(R"(lane\[(\d+)\]:\s+\d+:([^/\s]+)/(\S+)\.\d+\s+md\[\d+\]\s+->\s+\S+\s*(.*\S)?\s*$)");
// "#                tag_send: 0..<egr/short>..92..<egr/bcopy>..8192..<rndv>..(inf)"
const std::regex kTagSend(R"(^#\s+tag_send:\s+(\S+))");
// "#               put[1]: 0..<short>..2048..<bcopy>..(inf)"
const std::regex kPut(R"(^#\s+put\[(\d+)\]:\s+(\S+))");

}  // namespace

EndpointConfig parse_endpoint_config(const std::string& text) {
  EndpointConfig config;
  std::map<int, Lane> lanes;
  std::vector<std::pair<int, std::string>> puts;
  std::istringstream in(text);
  std::smatch found;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, found, kLane)) {
      lanes[std::stoi(found[1].str())] = {found[2].str(), found[3].str(), found[4].str()};
    } else if (std::regex_search(line, found, kTagSend)) {
      config.tag_protocols = found[1].str();
    } else if (std::regex_search(line, found, kPut)) {
      puts.emplace_back(std::stoi(found[1].str()), found[2].str());
    }
  }
  for (const auto& [index, lane] : lanes) config.lanes.push_back(lane);
  for (const auto& [index, protocols] : puts) {
    const auto lane = lanes.find(index);
    const std::string where = lane == lanes.end() ? "lane " + std::to_string(index) : lane->second.transport + "/" + lane->second.device;
    config.put_protocols.push_back(where + " " + protocols);
  }
  return config;
}

std::string describe_lanes(const std::vector<Lane>& lanes) {
  std::vector<std::string> words;
  for (const Lane& lane : lanes)
    words.push_back(lane.transport + "/" + lane.device + (lane.roles.empty() ? "" : " (" + lane.roles + ")"));
  return words.empty() ? "unknown" : joined(words, ", ");
}

std::string describe_put_protocols(const EndpointConfig& config) {
  return config.put_protocols.empty() ? "unknown" : joined(config.put_protocols, ", ");
}

LinkPeak endpoint_link_peak(const EndpointConfig& config, bool same_host, const std::vector<NetworkInterface>& interfaces) {
  const std::string lanes = describe_lanes(config.lanes);
  if (same_host) return same_host_peak("UCX (" + lanes + ")");
  std::vector<std::string> devices, transports;
  const auto add = [](std::vector<std::string>& words, const std::string& word) {
    if (std::find(words.begin(), words.end(), word) == words.end()) words.push_back(word);
  };
  for (const Lane& lane : config.lanes) {
    if (lane.device.rfind("memory", 0) == 0) continue;  // shared memory, no network
    add(devices, lane.device);
    add(transports, lane.transport);
  }
  if (devices.empty()) return {0, "unknown: UCX named no network device for this endpoint (" + lanes + ")"};
  if (devices.size() > 1) return {0, "unknown: UCX may spread messages over " + joined(devices, ", ") + " (" + lanes + ")"};
  LinkPeak peak = interface_peak(interfaces, devices.front());
  if (peak.bytes_per_second > 0) peak.how = "UCX over " + joined(transports, ", ") + ", " + peak.how;
  return peak;
}

}  // namespace npgpu::ucx
