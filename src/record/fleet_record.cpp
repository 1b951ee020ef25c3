#include "record/fleet_record.hpp"

#include <cstdio>
#include <filesystem>
#include <unistd.h>

#include "record/record_file.hpp"
#include "npgpu/words.hpp"

namespace npgpu {
namespace fs = std::filesystem;
namespace {

Handle group(hid_t parent, const std::string& name) {
  return Handle(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                "create group " + name);
}

void column(hid_t group, const char* name, const std::vector<double>& values, const char* units,
            const char* description) {
  const hsize_t dims[1] = {values.size()};
  Handle space(H5Screate_simple(1, dims, nullptr), H5Sclose, "make a dataspace");
  Handle set(H5Dcreate2(group, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose,
             std::string("create dataset ") + name);
  if (!values.empty())
    check(H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), std::string("write ") + name);
  attribute(set, "units", std::string(units));
  attribute(set, "description", std::string(description));
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

void write_paths(hid_t file, const FleetReference& fleet) {
  Handle paths = group(file, "paths");
  for (std::size_t k = 0; k < fleet.paths.size(); ++k) {
    const FleetPath& p = fleet.paths[k];
    char name[32];
    std::snprintf(name, sizeof name, "%04zu", k + 1);
    Handle g = group(paths, name);
    attribute(g, "label", p.label);
    attribute(g, "cpu_model", p.cpu_model);
    attribute(g, "gpu_model", p.gpu_model);
    attribute(g, "link", p.link);
    column(g, "bytes", p.bytes, "B", "message size");
    column(g, "rate", p.rate, "B/s", "the median over the records of each one's fastest trial at this size");
    column(g, "spread", p.spread, "1", "natural log of the rate: 1.48 x the median absolute deviation across the records");
    column(g, "records", p.records, "1", "records (nodes) that stand behind the figure");
  }
}

}  // namespace

void write_fleet_reference(const std::string& path, const FleetReference& fleet) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  std::error_code error;
  if (fs::exists(path, error)) throw UsageError("-o " + path + ": exists; a reference is never overwritten, choose a new name");
  const std::string temporary = path + ".npgpu-" + std::to_string(getpid());
  try {
    {
      Handle file(H5Fcreate(temporary.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, file_access(temporary)), H5Fclose,
                  "create " + path);
      attribute(file, "schema", std::string(kFleetSchema));
      attribute(file, "created_by", fleet.made_by);
      attribute(file, "method_version", static_cast<std::int64_t>(fleet.method_version));
      attribute(file, "records", joined(fleet.records, "\n"));
      write_paths(file, fleet);
    }
    // link() fails where a file appeared at `path` meanwhile, where rename would replace it.
    if (link(temporary.c_str(), path.c_str()) != 0) throw UsageError("-o " + path + ": exists or cannot be written");
    fs::remove(temporary);
  } catch (const RunError& failure) {
    fs::remove(temporary, error);
    throw UsageError("-o " + path + ": cannot write there (" + failure.what() + ")");
  } catch (...) {
    fs::remove(temporary, error);
    throw;
  }
}

bool is_fleet_reference(const std::string& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  if (!is_hdf5(path)) return false;
  if (!Handle(H5Fopen(path.c_str(), H5F_ACC_RDONLY, file_access(path)), H5Fclose).valid())
    throw UsageError(path + ": a damaged HDF5 file (HDF5 cannot open it)");
  const RecordFile file(path);
  return file.text("/", "schema") == kFleetSchema;
}

FleetReference read_fleet_reference(const std::string& path) {
  const RecordFile file(path);
  FleetReference fleet;
  fleet.made_by = file.text("/", "created_by");
  fleet.method_version = static_cast<int>(file.number("/", "method_version", 1));
  fleet.records = split_lines(file.text("/", "records"));
  for (const std::string& name : file.members("/paths")) {
    const std::string g = "/paths/" + name;
    FleetPath& p = fleet.paths.emplace_back();
    p.label = file.text(g, "label");
    p.cpu_model = file.text(g, "cpu_model");
    p.gpu_model = file.text(g, "gpu_model");
    p.link = file.text(g, "link");
    p.bytes = file.numbers(g + "/bytes");
    p.rate = file.numbers(g + "/rate");
    p.spread = file.numbers(g + "/spread");
    p.records = file.numbers(g + "/records");
    if (p.rate.size() != p.bytes.size() || p.spread.size() != p.bytes.size() || p.records.size() != p.bytes.size())
      throw UsageError(path + ": a damaged fleet reference (" + g + " has columns of different lengths)");
  }
  if (fleet.paths.empty()) throw UsageError(path + ": a fleet reference with no paths in it");
  return fleet;
}

}  // namespace npgpu
