#pragma once
// A module's own options. The module declares them as a CLI11 option group (shown under its name in
// --help) bound to the fields of a struct of its own that derives from ModuleOptions; the command
// line fills it, and the module reads it back with options_of<Its>(the run's module_options).
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "npgpu/pattern.hpp"

namespace CLI {
class App;
}

namespace npgpu {

struct RunView;

class ModuleOptions {
 public:
  virtual ~ModuleOptions() = default;

  // After the command line is parsed: converts what the group kept as text ("1M"). UsageError,
  // one line.
  virtual void finish() {}

  // Settles the module's options against each other and against the run's (--pattern), the same on
  // every rank, before anything is measured; returns the pattern they measure where they settle it
  // (cudaMemcpy's --direction). UsageError, one line.
  virtual std::optional<Pattern> resolve(const RunView&) { return std::nullopt; }

  // Whether the command line gave `option` ("--direction"), not only its default.
  bool given(std::string_view option) const;

  // The names of the group's options that the command line gave, in the group's order.
  std::vector<std::string> given_options;
};

// Declares a module's options in `group` and returns the object they are parsed into.
using DeclareOptions = std::shared_ptr<ModuleOptions> (*)(CLI::App& group);

// The options of the module this run measures, as its own struct.
template <typename Own>
const Own& options_of(const std::shared_ptr<ModuleOptions>& options) {
  const auto* own = dynamic_cast<const Own*>(options.get());
  if (own == nullptr) throw std::logic_error("a module was handed options that are not its own");
  return *own;
}

}  // namespace npgpu
