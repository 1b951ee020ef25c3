#pragma once
// Reads what npgpu wrote, through the HDF5 C library, for the tests' assertions.
#include <hdf5.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace npgpu::test {

class H5File {
 public:
  explicit H5File(const std::string& path);
  ~H5File();
  H5File(const H5File&) = delete;
  H5File& operator=(const H5File&) = delete;

  bool exists(const std::string& path) const;
  std::vector<std::string> members(const std::string& group) const;   // sorted names
  std::string text_attribute(const std::string& object, const std::string& name) const;
  double number_attribute(const std::string& object, const std::string& name) const;
  std::vector<double> doubles(const std::string& dataset) const;       // any numeric type
  std::vector<std::string> texts(const std::string& dataset) const;
  std::vector<hsize_t> shape(const std::string& dataset) const;
  std::vector<unsigned char> raw(const std::string& dataset) const;   // the stored bytes
  // Every dataset under `group`, recursively, as full paths.
  std::vector<std::string> datasets_under(const std::string& group) const;
  // Everything stored under `group`, to compare byte for byte: each dataset's raw() bytes under its
  // path, each attribute's value (text, or the stored bytes) under "object@name", the group's own
  // included.
  std::map<std::string, std::string> contents(const std::string& group) const;

 private:
  hid_t file_;
};

}  // namespace npgpu::test
