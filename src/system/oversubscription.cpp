#include "system/oversubscription.hpp"

#include <sched.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <utility>

namespace npgpu {

std::string machine_and_cores() {
  std::string text;
  std::getline(std::ifstream("/proc/sys/kernel/random/boot_id"), text);
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &allowed)) text += " " + std::to_string(cpu);
  return text;
}

std::string machine_of(const std::string& machine_and_cores) {
  return machine_and_cores.substr(0, machine_and_cores.find(' '));
}

std::string oversubscription(const std::vector<std::string>& machines_and_cores) {
  std::map<std::string, std::pair<int, std::set<std::string>>> machines;
  for (const std::string& text : machines_and_cores) {
    std::istringstream words(text);
    std::string machine, cpu;
    words >> machine;
    auto& [ranks, cores] = machines[machine];
    ++ranks;
    while (words >> cpu) cores.insert(cpu);
  }
  for (const auto& [machine, counts] : machines)
    if (!counts.second.empty() && counts.first > static_cast<int>(counts.second.size()))
      return std::to_string(counts.first) + " ranks on " + std::to_string(counts.second.size()) + " cores of one machine";
  return {};
}

}  // namespace npgpu
