#pragma once
// A fleet reference on disk: an HDF5 file of its own schema (docs/hdf5-schema.md, "Fleet
// references").
#include <string>

#include "results/fleet_reference.hpp"

namespace npgpu {

inline constexpr const char* kFleetSchema = "npgpu-fleet-1";

// Writes the reference to a temporary beside `path` and renames it over: never half a file at
// `path`. UsageError where `path` exists (a reference is never overwritten) or cannot be written.
void write_fleet_reference(const std::string& path, const FleetReference& fleet);

// Whether the file's root says it is a fleet reference.
bool is_fleet_reference(const std::string& path);

// UsageError, one line, for a file that is not a readable fleet reference.
FleetReference read_fleet_reference(const std::string& path);

}  // namespace npgpu
