// The catalog of modules, as the module folders define it; it names no module itself.
#include "npgpu/catalog.hpp"

#include <algorithm>
#include <cstdio>

#include "npgpu/errors.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {

// module_list.cpp, generated from modules/CMakeLists.txt: every NPGPU_MODULE in the order listed there.
std::vector<CatalogEntry> listed_modules();

const std::vector<CatalogEntry>& module_catalog() {
  static const std::vector<CatalogEntry> catalog = listed_modules();
  return catalog;
}

const CatalogEntry& find_module(std::string_view name) {
  const auto& catalog = module_catalog();
  const auto found = std::find_if(catalog.begin(), catalog.end(),
                                  [&](const CatalogEntry& entry) { return entry.info.name == name; });
  if (found != catalog.end()) return *found;
  std::string known;
  for (const CatalogEntry& entry : catalog) known += (known.empty() ? "" : ", ") + entry.info.name;
  throw UsageError("--module '" + std::string(name) + "': unknown module; known modules: " + known);
}

std::string fact_of(const PlacementFacts& facts, const std::string& name) {
  const auto found = facts.find(name);
  return found == facts.end() ? std::string() : found->second;
}

PathWords path_words(const std::string& module, const PlacementFacts& facts) {
  for (const CatalogEntry& entry : module_catalog())
    if (entry.info.name == module) return entry.info.words(facts);
  const std::string unknown = " (this npgpu does not know the module '" + module + "')";
  return {"the path changes how it moves the bytes from this size" + unknown,
          "a faster way takes over from this size" + unknown, "the path's bandwidth changes from this size" + unknown,
          "something on this path" + unknown};
}

std::string describe_modules(int ranks) {
  std::string text = "module        ranks     patterns                  default upper  status\n";
  for (const CatalogEntry& entry : module_catalog()) {
    const ModuleInfo& info = entry.info;
    std::string patterns;
    for (Pattern p : info.patterns) patterns += (patterns.empty() ? "" : ",") + std::string(pattern_name(p));
    std::string status = "available";
    if (entry.make == nullptr) {
      status = "not built (this build has no " + info.build_needs + ")";
    } else if (entry.unavailable_here != nullptr) {
      const std::string why = entry.unavailable_here();
      if (!why.empty()) status = "built, cannot run here: " + why;
    }
    const char* layout = info.layout == Layout::pair ? "2 or more" : "1 or more";
    char line[256];
    std::snprintf(line, sizeof line, "%-13s %-9s %-25s %-14s %s\n", info.name.c_str(), layout,
                  patterns.c_str(), format_bytes(info.default_upper).c_str(), status.c_str());
    text += line;
    text += "              " + info.measures + "\n";
  }
  text += "(this listing ran with " + std::to_string(ranks) + (ranks == 1 ? " rank)\n" : " ranks)\n");
  return text;
}

}  // namespace npgpu
