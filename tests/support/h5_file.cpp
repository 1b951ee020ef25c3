#include "support/h5_file.hpp"

#include <algorithm>
#include <stdexcept>

namespace npgpu::test {
namespace {

hid_t must(hid_t id, const std::string& what) {
  if (id < 0) throw std::runtime_error("HDF5 test reader: cannot " + what);
  return id;
}

herr_t collect_name(hid_t, const char* name, const H5L_info_t*, void* names) {
  static_cast<std::vector<std::string>*>(names)->push_back(name);
  return 0;
}

herr_t collect_attribute(hid_t object, const char* name, const H5A_info_t*, void* values) {
  const hid_t attr = must(H5Aopen(object, name, H5P_DEFAULT), std::string("open attribute ") + name);
  const hid_t type = H5Aget_type(attr);
  const hid_t space = H5Aget_space(attr);
  std::string value;
  if (H5Tis_variable_str(type) > 0) {
    char* text = nullptr;
    H5Aread(attr, type, &text);
    value = text ? text : "";
    H5free_memory(text);
  } else {
    value.resize(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)) * H5Tget_size(type));
    H5Aread(attr, type, value.data());
  }
  static_cast<std::map<std::string, std::string>*>(values)->emplace(name, value);
  H5Sclose(space);
  H5Tclose(type);
  H5Aclose(attr);
  return 0;
}

H5O_type_t object_type(hid_t file, const std::string& path) {
  H5O_info_t info{};
#if H5_VERSION_GE(1, 12, 0)
  H5Oget_info_by_name3(file, path.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT);
#else
  H5Oget_info_by_name2(file, path.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT);
#endif
  return info.type;
}

std::map<std::string, std::string> attributes_of(hid_t file, const std::string& object) {
  std::map<std::string, std::string> values;
  hsize_t index = 0;
  H5Aiterate_by_name(file, object.c_str(), H5_INDEX_NAME, H5_ITER_INC, &index, collect_attribute, &values, H5P_DEFAULT);
  return values;
}

}  // namespace

H5File::H5File(const std::string& path) : file_(must(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "open " + path)) {}

H5File::~H5File() { H5Fclose(file_); }

bool H5File::exists(const std::string& path) const {
  std::string prefix;
  std::size_t start = 1;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find('/', start), path.size());
    prefix += "/" + path.substr(start, end - start);
    if (H5Lexists(file_, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
    start = end + 1;
  }
  return true;
}

std::vector<std::string> H5File::members(const std::string& group) const {
  std::vector<std::string> names;
  H5Literate_by_name(file_, group.c_str(), H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_name, &names, H5P_DEFAULT);
  std::sort(names.begin(), names.end());
  return names;
}

std::string H5File::text_attribute(const std::string& object, const std::string& name) const {
  const hid_t attr = must(H5Aopen_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT),
                          "open attribute " + object + "@" + name);
  const hid_t type = H5Aget_type(attr);
  char* text = nullptr;
  H5Aread(attr, type, &text);
  std::string value = text ? text : "";
  H5free_memory(text);
  H5Tclose(type);
  H5Aclose(attr);
  return value;
}

double H5File::number_attribute(const std::string& object, const std::string& name) const {
  const hid_t attr = must(H5Aopen_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT),
                          "open attribute " + object + "@" + name);
  double value = 0;
  H5Aread(attr, H5T_NATIVE_DOUBLE, &value);
  H5Aclose(attr);
  return value;
}

std::vector<hsize_t> H5File::shape(const std::string& dataset) const {
  const hid_t set = must(H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT), "open " + dataset);
  const hid_t space = H5Dget_space(set);
  std::vector<hsize_t> dims(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)));
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  H5Sclose(space);
  H5Dclose(set);
  return dims;
}

std::vector<double> H5File::doubles(const std::string& dataset) const {
  std::size_t count = 1;
  for (hsize_t d : shape(dataset)) count *= d;
  std::vector<double> values(count);
  const hid_t set = must(H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT), "open " + dataset);
  if (count > 0) H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  H5Dclose(set);
  return values;
}

std::vector<std::string> H5File::texts(const std::string& dataset) const {
  const std::size_t count = shape(dataset).at(0);
  std::vector<char*> raw_texts(count, nullptr);
  const hid_t set = must(H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT), "open " + dataset);
  const hid_t type = H5Dget_type(set);
  if (count > 0) H5Dread(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw_texts.data());
  std::vector<std::string> values;
  for (char* text : raw_texts) {
    values.emplace_back(text ? text : "");
    H5free_memory(text);
  }
  H5Tclose(type);
  H5Dclose(set);
  return values;
}

std::vector<unsigned char> H5File::raw(const std::string& dataset) const {
  const hid_t set = must(H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT), "open " + dataset);
  const hid_t type = H5Dget_type(set);
  std::size_t count = 1;
  for (hsize_t d : shape(dataset)) count *= d;
  std::vector<unsigned char> bytes(count * H5Tget_size(type));
  if (H5Tis_variable_str(type) > 0) {
    // Variable-length strings: compare their text, not the pointers the library hands back.
    bytes.clear();
    for (const std::string& text : texts(dataset)) {
      bytes.insert(bytes.end(), text.begin(), text.end());
      bytes.push_back(0);
    }
  } else if (!bytes.empty()) {
    H5Dread(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data());
  }
  H5Tclose(type);
  H5Dclose(set);
  return bytes;
}

std::vector<std::string> H5File::datasets_under(const std::string& group) const {
  std::vector<std::string> found;
  for (const std::string& name : members(group)) {
    const std::string path = group + "/" + name;
    const H5O_type_t type = object_type(file_, path);
    if (type == H5O_TYPE_GROUP) {
      for (const std::string& inner : datasets_under(path)) found.push_back(inner);
    } else if (type == H5O_TYPE_DATASET) {
      found.push_back(path);
    }
  }
  return found;
}

std::map<std::string, std::string> H5File::contents(const std::string& group) const {
  std::map<std::string, std::string> found;
  std::vector<std::string> objects{group};
  for (const std::string& name : members(group)) {
    const std::string path = group + "/" + name;
    const H5O_type_t type = object_type(file_, path);
    if (type == H5O_TYPE_GROUP) {
      found.merge(contents(path));
    } else {
      const std::vector<unsigned char> bytes = raw(path);
      found.emplace(path, std::string(bytes.begin(), bytes.end()));
      objects.push_back(path);
    }
  }
  for (const std::string& object : objects)
    for (const auto& [name, value] : attributes_of(file_, object)) found.emplace(object + "@" + name, value);
  return found;
}

}  // namespace npgpu::test
