#pragma once
// What a feature of a curve can mean on the path that made it, in that path's own words. Each
// module says it beside its catalog entry (ModuleInfo::words), and the report explains what it
// finds with these words and no others. A finding of a new kind (a flagged link, a shared cap, a
// cause) adds its field here, and every module says what it means on its path.
#include <map>
#include <string>
#include <vector>

namespace npgpu {

// A size at which the path is set to change how it moves a message, as the run recorded its
// settings (an MPI's eager limit, read from the MPI itself): the report checks the curve there
// whether or not a break shows, and names it as what a break beside it probably is.
struct SetSwitch {
  enum class Reach { any, one_host, between_hosts };  // the curves it applies to
  double bytes = 0;
  std::string setting;  // "btl_vader_eager_limit = 16384"
  std::string change;   // a clause: "eager sends end: ..."
  Reach reach = Reach::any;
};

// The first three are clauses ("on this path that can mean: ..."), shortfall a noun phrase ("on this
// path the cause can be ..."), below_layer a clause ("... far below the layer under it: ...").
struct PathWords {
  std::string jump;       // the time per transfer jumps above what the smaller sizes predict
  std::string drop;       // it falls below that: a faster way takes over from this size
  std::string slope;      // it grows at another rate from this size: the bandwidth changes
  std::string shortfall;  // what holds the peak well under the theoretical peak of the link crossed
  std::vector<SetSwitch> set_switches = {};  // none where the path's settings name no size
  // What holds this path far below the module under it between the same ends (report/layers.hpp),
  // from the run's facts where they tell, and the remedy; "" for a path with nothing under it.
  std::string below_layer = "";
};

// A run's placement facts as its record keeps them for rank 0: direction, host_memory, messages,
// gpu_path, copy, tcp_nodelay ... (docs/hdf5-schema.md).
using PlacementFacts = std::map<std::string, std::string>;

// A fact's value, or "" where the record has none.
std::string fact_of(const PlacementFacts& facts, const std::string& name);

// The words for a run of `module` with these facts (the catalog's: path_words in catalog.hpp).
using PathWordsOf = PathWords (*)(const std::string& module, const PlacementFacts& facts);

}  // namespace npgpu
