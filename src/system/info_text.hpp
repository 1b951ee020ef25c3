#pragma once
// npgpu info's readable table: the facts of collect_system_info, host by host, then the ranks.
#include <string>

#include "system/sysinfo.hpp"

namespace npgpu {

std::string info_text(const SystemInfo& info);

}  // namespace npgpu
