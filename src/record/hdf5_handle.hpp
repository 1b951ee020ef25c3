#pragma once
// What the record's writer and reader share of the HDF5 C library: identifiers closed (and text
// HDF5 allocated freed) when they go out of scope, how files are opened (HDF5's own file locking
// only where flock works), and the string type the record's text is stored in.
#include <hdf5.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "npgpu/errors.hpp"
#include "record/record_lock.hpp"

// H5Pset_file_locking came with 1.10.7 and 1.12.1.
#define NPGPU_HDF5_SETS_FILE_LOCKING ((H5_VERSION_GE(1, 10, 7) && !H5_VERSION_GE(1, 11, 0)) || H5_VERSION_GE(1, 12, 1))

namespace npgpu {

// An HDF5 identifier closed when it goes out of scope.
class Handle {
 public:
  // Takes `id` whether HDF5 made it or failed (negative): valid() tells, for a caller to whom a
  // failure is an answer rather than an error.
  Handle(hid_t id, herr_t (*close)(hid_t)) noexcept : id_(id), close_(close) {}
  Handle(hid_t id, herr_t (*close)(hid_t), const std::string& what) : Handle(id, close) {
    if (id_ < 0) throw RunError("HDF5: could not " + what);
  }
  Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, -1)), close_(other.close_) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  operator hid_t() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

// A variable-length string HDF5 allocated in a read, freed by HDF5 whatever happens next.
struct FreeHdf5Memory {
  void operator()(char* text) const { H5free_memory(text); }
};
using Hdf5Text = std::unique_ptr<char, FreeHdf5Memory>;

inline void check(herr_t status, const std::string& what) {
  if (status < 0) throw RunError("HDF5: could not " + what);
}

// Variable-length UTF-8 text, as every text attribute and dataset of the record.
inline Handle utf8_string_type() {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose, "make a string type");
  check(H5Tset_size(type, H5T_VARIABLE), "size a string type");
  check(H5Tset_cset(type, H5T_CSET_UTF8), "set UTF-8");
  return type;
}

// How HDF5 opens a file at `path`: with its own file locking where flock works in that folder,
// without it where flock fails (HDF5 skips only ENOSYS by itself, and only from 1.10.7 on).
inline Handle file_access(const std::string& path) {
  Handle list(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "make a file access list");
  const bool locking = flock_failure(directory_of(path)).empty();
#if NPGPU_HDF5_SETS_FILE_LOCKING
  check(H5Pset_file_locking(list, locking, true), "set HDF5's file locking");
#else
  // Before 1.10.7 only the environment turns it off, and HDF5 reads it at every open.
  if (!locking) setenv("HDF5_USE_FILE_LOCKING", "FALSE", 1);
#endif
  return list;
}

// A scalar attribute: text (UTF-8), or a number (a double, or a 64-bit integer).
inline void attribute(hid_t object, const char* name, const std::string& value) {
  Handle type = utf8_string_type();
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "make a scalar space");
  Handle attr(H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
              std::string("create attribute ") + name);
  const char* text = value.c_str();
  check(H5Awrite(attr, type, &text), std::string("write attribute ") + name);
}

template <typename Number>
void attribute(hid_t object, const char* name, Number value) {
  const hid_t type = std::is_floating_point_v<Number> ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64;
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "make a scalar space");
  Handle attr(H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
              std::string("create attribute ") + name);
  if constexpr (std::is_floating_point_v<Number>) {
    const double stored = value;
    check(H5Awrite(attr, type, &stored), std::string("write attribute ") + name);
  } else {
    const std::int64_t stored = static_cast<std::int64_t>(value);
    check(H5Awrite(attr, type, &stored), std::string("write attribute ") + name);
  }
}

inline constexpr const char* kRecordSchema = "npgpu-run-1";

inline bool is_hdf5(const std::string& path) {
#if H5_VERSION_GE(1, 12, 0)
  return H5Fis_accessible(path.c_str(), H5P_DEFAULT) > 0;
#else
  return H5Fis_hdf5(path.c_str()) > 0;
#endif
}

// Whether the root of an HDF5 file says npgpu wrote it (schema npgpu-run-1).
bool written_by_npgpu(const std::string& path);

}  // namespace npgpu
