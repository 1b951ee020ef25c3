#pragma once
// Every module npgpu knows, whether this build has it, and whether this machine can run it.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "npgpu/module.hpp"
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
  std::vector<std::string> options = {};        // the module options (kModuleOptions) it accepts
  void (*resolve_options)(RunOptions&) = nullptr;  // settles options that depend on each other
};

struct CatalogEntry {
  ModuleInfo info;
  std::unique_ptr<Module> (*make)();     // null when this build lacks what the module needs
  std::string (*unavailable_here)();     // null, or why this machine cannot run it ("" if it can)
};

const std::vector<CatalogEntry>& module_catalog();

// The entry for `name`; UsageError naming the known modules when there is none.
const CatalogEntry& find_module(std::string_view name);

// The words of `module`'s path for a run with these facts; neutral words for a module this build
// does not know (a record of a later npgpu).
PathWords path_words(const std::string& module, const PlacementFacts& facts);

// One line per module for --list-modules.
std::string describe_modules(int ranks);

}  // namespace npgpu
