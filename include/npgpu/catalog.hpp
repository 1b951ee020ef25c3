#pragma once
// Every module npgpu knows, whether this build has it, and whether this machine can run it. Each
// module folder defines its entries with NPGPU_MODULE; modules/CMakeLists.txt lists the folders.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "npgpu/module.hpp"
#include "npgpu/module_options.hpp"
#include "npgpu/path_words.hpp"

namespace npgpu {

struct ModuleInfo {
  std::string name;
  std::string measures;           // one line: what the numbers mean
  Layout layout;
  std::vector<Pattern> patterns;  // the first is the default
  std::uint64_t default_upper;
  std::string build_needs;        // "" or what the build lacked ("CUDA", "NCCL")
  PathWords (*words)(const PlacementFacts&) = nullptr;  // what a break or a shortfall can mean on its path
  DeclareOptions declare_options = nullptr;             // the module's option group; null: it has none
  // Pair modules: several ranks may stream to one rank at once while it receives from all of them
  // (two-sided messages, matched by sender), which --load incast needs; not where a sender writes
  // into its receiver's memory, where two senders would meet.
  bool shares_a_receiver = false;
};

using MakeModule = std::unique_ptr<Module> (*)();
using UnavailableHere = std::string (*)();

struct CatalogEntry {
  ModuleInfo info;
  MakeModule make;                   // null when this build lacks what the module needs
  UnavailableHere unavailable_here;  // null, or why this machine cannot run it ("" if it can)
};

// A module folder's catalog entries, written once in the folder, inside namespace npgpu:
//     NPGPU_MODULE(memcpy) { return {{{"memcpy", ...}, make_memcpy_module, nullptr}}; }
// The folder's name is the one its line in modules/CMakeLists.txt gives (npgpu_module(memcpy)).
#define NPGPU_MODULE(folder) std::vector<CatalogEntry> catalog_entries_##folder()

// Every module of modules/CMakeLists.txt, in the order of its lines there.
const std::vector<CatalogEntry>& module_catalog();

// The entry for `name`; UsageError naming the known modules when there is none.
const CatalogEntry& find_module(std::string_view name);

// The words of `module`'s path for a run with these facts; neutral words for a module this build
// does not know (a record of a later npgpu).
PathWords path_words(const std::string& module, const PlacementFacts& facts);

// One line per module for --list-modules.
std::string describe_modules(int ranks);

}  // namespace npgpu
