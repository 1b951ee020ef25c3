#pragma once
// Ranks that outnumber the cores they may run on: a pingpong whose two ranks share a core times the
// scheduler, not the link. A system fact, for the driver to measure such ranks apart.
#include <string>
#include <vector>

namespace npgpu {

// "BOOT_ID CPU CPU ...": the machine this rank runs on (its kernel's boot id: network namespaces
// give hosts names of their own on one machine) and the cores it may run on.
std::string machine_and_cores();

// The machine of a machine_and_cores() text: its boot id.
std::string machine_of(const std::string& machine_and_cores);

// "8 ranks on 2 cores of one machine", where the ranks of a machine outnumber the cores they may
// run on; "" where none do. From every rank's machine_and_cores().
std::string oversubscription(const std::vector<std::string>& machines_and_cores);

}  // namespace npgpu
