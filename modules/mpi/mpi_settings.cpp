#include "mpi/mpi_settings.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <sstream>
#include <string_view>

namespace npgpu {
namespace {

struct SizeSetting {
  const char* suffix;  // after the transport's prefix
  const char* change;
};

constexpr SizeSetting kSharedMemory[] = {
    {"max_inline_send", "inline sends end: a larger message is no longer copied in with its header at once"},
    {"fbox_size", "fast boxes end: a larger message goes through the shared queue, not the buffer the peer polls"},
    {"eager_limit", "eager sends end: a larger message waits for a handshake, then moves by one copy (CMA, XPMEM or "
                    "KNEM) instead of a copy into a shared buffer and out of it"},
};
constexpr SizeSetting kTcp[] = {
    {"eager_limit", "eager sends end: a larger message waits for a handshake (a round trip) before the rest of it"},
    {"rndv_eager_limit", "a larger rendezvous sends the bytes beyond its first fragment after the handshake"},
    {"max_send_size", "a larger message leaves in more than one fragment"},
};

struct Transport {
  std::string_view prefix;
  bool shared_memory;
  std::span<const SizeSetting> settings;
};
// vader became sm in Open MPI 5.
constexpr Transport kTransports[] = {
    {"btl_vader_", true, kSharedMemory}, {"btl_sm_", true, kSharedMemory}, {"btl_tcp_", false, kTcp}};

struct Known {
  const SizeSetting* setting = nullptr;
  bool shared_memory = false;
};

Known setting_named(std::string_view name) {
  for (const Transport& transport : kTransports)
    if (name.substr(0, transport.prefix.size()) == transport.prefix)
      for (const SizeSetting& setting : transport.settings)
        if (name.substr(transport.prefix.size()) == setting.suffix) return {&setting, transport.shared_memory};
  return {};
}

// The value of an integer control variable bound to no object; false for any other.
bool read_integer(int index, MPI_Datatype type, int binding, std::int64_t& value) {
  if (binding != MPI_T_BIND_NO_OBJECT) return false;
  const bool narrow = type == MPI_INT || type == MPI_UNSIGNED;
  const bool wide = type == MPI_UNSIGNED_LONG || type == MPI_UNSIGNED_LONG_LONG || type == MPI_COUNT;
  if (!narrow && !wide) return false;
  MPI_T_cvar_handle handle;
  int count = 0;
  if (MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) != MPI_SUCCESS) return false;
  bool read = false;
  if (count == 1 && narrow) {
    int narrow_value = 0;
    read = MPI_T_cvar_read(handle, &narrow_value) == MPI_SUCCESS;
    value = narrow_value;
  } else if (count == 1) {
    unsigned long long wide_value = 0;  // MPI_COUNT and the unsigned longs are 8 bytes here
    read = MPI_T_cvar_read(handle, &wide_value) == MPI_SUCCESS;
    value = static_cast<std::int64_t>(wide_value);
  }
  MPI_T_cvar_handle_free(&handle);
  return read;
}

void add(std::vector<SetSwitch>& switches, double bytes, const std::string& setting, const std::string& change,
         SetSwitch::Reach reach) {
  const auto same = std::find_if(switches.begin(), switches.end(),
                                 [&](const SetSwitch& s) { return s.bytes == bytes && s.reach == reach; });
  if (same == switches.end()) {
    switches.push_back({bytes, setting, change, reach});
    return;
  }
  same->setting += ", " + setting;
  same->change += "; " + change;
}

}  // namespace

std::string mpi_size_settings() {
  int provided = 0, count = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return "";
  std::string settings;
  if (MPI_T_cvar_get_num(&count) == MPI_SUCCESS)
    for (int index = 0; index < count; ++index) {
      char name[256], description[8];
      int name_length = sizeof name, description_length = sizeof description, verbosity = 0, binding = 0, scope = 0;
      MPI_Datatype type = MPI_DATATYPE_NULL;
      MPI_T_enum enumeration = MPI_T_ENUM_NULL;
      if (MPI_T_cvar_get_info(index, name, &name_length, &verbosity, &type, &enumeration, description,
                              &description_length, &binding, &scope) != MPI_SUCCESS ||
          setting_named(name).setting == nullptr)
        continue;
      std::int64_t value = 0;
      if (read_integer(index, type, binding, value) && value > 0)
        settings += (settings.empty() ? "" : " ") + std::string(name) + "=" + std::to_string(value);
    }
  MPI_T_finalize();
  return settings;
}

std::vector<SetSwitch> mpi_set_switches(const std::string& settings) {
  struct Read {
    Known known;
    std::string name;
    double bytes;
  };
  std::vector<Read> read;
  std::istringstream words(settings);
  for (std::string word; words >> word;) {
    const std::size_t equals = word.find('=');
    if (equals == std::string::npos) continue;
    const std::string name = word.substr(0, equals);
    if (const Known known = setting_named(name); known.setting != nullptr)
      read.push_back({known, name, std::strtod(word.c_str() + equals + 1, nullptr)});
  }
  const bool shared_memory = std::any_of(read.begin(), read.end(), [](const Read& r) { return r.known.shared_memory; });
  std::vector<SetSwitch> switches;
  for (const Read& r : read) {
    const std::string setting = r.name + " = " + std::to_string(static_cast<std::int64_t>(r.bytes));
    const std::string change = r.known.setting->change;
    if (r.known.shared_memory) {
      add(switches, r.bytes, setting, change, SetSwitch::Reach::one_host);
      continue;
    }
    add(switches, r.bytes, setting, change, SetSwitch::Reach::between_hosts);
    if (!shared_memory) add(switches, r.bytes, setting, change, SetSwitch::Reach::one_host);
  }
  std::sort(switches.begin(), switches.end(), [](const SetSwitch& a, const SetSwitch& b) { return a.bytes < b.bytes; });
  return switches;
}

}  // namespace npgpu
