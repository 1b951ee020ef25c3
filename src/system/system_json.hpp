#pragma once
// System facts as JSON (nlohmann/json): what npgpu info --json prints (docs/info-json.md), what the
// record keeps in system/@info_json, and how ranks send their facts to rank 0.
#include <nlohmann/json.hpp>

#include <optional>

#include "system/sysinfo.hpp"

namespace npgpu {

inline constexpr const char* kInfoSchema = "npgpu-info-1";

// The whole document, on rank 0.
nlohmann::json system_json(const SystemInfo& info);

// What one rank sends to rank 0: its placement, and its host's facts from the host's first rank.
nlohmann::json rank_report(const RankPlacement& placement, const HostFacts* host);
void read_rank_report(const nlohmann::json& report, RankPlacement& placement, std::optional<HostFacts>& host);

}  // namespace npgpu
