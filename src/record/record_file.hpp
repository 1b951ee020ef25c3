#pragma once
// One npgpu HDF5 file open for reading, read by path; what it lacks reads as empty, so records
// written before a field existed still report. For the record's reader and the fleet reference's.
#include <algorithm>
#include <string>
#include <vector>

#include "record/hdf5_handle.hpp"

namespace npgpu {
namespace record_file_detail {

inline herr_t collect_name(hid_t, const char* name, const H5L_info_t*, void* names) {
  static_cast<std::vector<std::string>*>(names)->push_back(name);
  return 0;
}

inline herr_t collect_attribute_name(hid_t, const char* name, const H5A_info_t*, void* names) {
  static_cast<std::vector<std::string>*>(names)->push_back(name);
  return 0;
}

}  // namespace record_file_detail

// One open record, read by path; what a run lacks reads as empty, so records written before a
// field existed still report.
class RecordFile {
 public:
  explicit RecordFile(const std::string& path)
      : file_(H5Fopen(path.c_str(), H5F_ACC_RDONLY, file_access(path)), H5Fclose, "open " + path) {}

  bool has(const std::string& path) const {
    std::size_t start = 1;
    while (start <= path.size()) {
      const std::size_t end = std::min(path.find('/', start), path.size());
      if (H5Lexists(file_, path.substr(0, end).c_str(), H5P_DEFAULT) <= 0) return false;
      start = end + 1;
    }
    return true;
  }

  std::vector<std::string> members(const std::string& group) const {
    std::vector<std::string> names;
    if (has(group))
      H5Literate_by_name(file_, group.c_str(), H5_INDEX_NAME, H5_ITER_INC, nullptr, record_file_detail::collect_name, &names, H5P_DEFAULT);
    std::sort(names.begin(), names.end());
    return names;
  }

  std::vector<std::string> attribute_names(const std::string& object) const {
    std::vector<std::string> names;
    if (has(object))
      H5Aiterate_by_name(file_, object.c_str(), H5_INDEX_NAME, H5_ITER_INC, nullptr, record_file_detail::collect_attribute_name, &names,
                         H5P_DEFAULT);
    return names;
  }

  std::string text(const std::string& object, const std::string& name) const {
    if (!has(object) || H5Aexists_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT) <= 0) return {};
    Handle attr(H5Aopen_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                "open " + object + "@" + name);
    Handle type(H5Aget_type(attr), H5Tclose, "type of " + object + "@" + name);
    if (H5Tget_class(type) != H5T_STRING) return {};
    Handle memory = utf8_string_type();
    char* value = nullptr;
    check(H5Aread(attr, memory, &value), "read " + object + "@" + name);
    const Hdf5Text text(value);
    return text ? text.get() : "";
  }

  double number(const std::string& object, const std::string& name, double otherwise = 0) const {
    if (!has(object) || H5Aexists_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT) <= 0) return otherwise;
    Handle attr(H5Aopen_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                "open " + object + "@" + name);
    double value = otherwise;
    check(H5Aread(attr, H5T_NATIVE_DOUBLE, &value), "read " + object + "@" + name);
    return value;
  }

  std::vector<double> numbers(const std::string& path) const {
    if (!has(path)) return {};
    Handle set(H5Dopen2(file_, path.c_str(), H5P_DEFAULT), H5Dclose, "open " + path);
    std::vector<double> values(elements(set));
    if (!values.empty()) check(H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), "read " + path);
    return values;
  }

  std::vector<std::string> texts(const std::string& path) const {
    if (!has(path)) return {};
    Handle set(H5Dopen2(file_, path.c_str(), H5P_DEFAULT), H5Dclose, "open " + path);
    std::vector<char*> raw(elements(set), nullptr);
    std::vector<Hdf5Text> owned;
    owned.reserve(raw.size());  // before the read, so that taking its strings over cannot throw
    Handle memory = utf8_string_type();
    if (!raw.empty()) check(H5Dread(set, memory, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()), "read " + path);
    for (char* value : raw) owned.emplace_back(value);
    std::vector<std::string> values;
    for (const Hdf5Text& value : owned) values.emplace_back(value ? value.get() : "");
    return values;
  }

 private:
  static std::size_t elements(hid_t set) {
    Handle space(H5Dget_space(set), H5Sclose, "read a dataspace");
    const hssize_t count = H5Sget_simple_extent_npoints(space);
    return count > 0 ? static_cast<std::size_t>(count) : 0;
  }

  Handle file_;
};

}  // namespace npgpu
