#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "npgpu/errors.hpp"
#include "record/hdf5_handle.hpp"
#include "record/hdf5_record.hpp"
#include "record/record_reader.hpp"
#include "support/command.hpp"
#include "support/h5_file.hpp"
#include "support/sample_record.hpp"

namespace npgpu {
namespace {

using test::H5File;
using test::sample_record;
using test::TempDir;

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(Hdf5Record, WritesARunThatReadsBack) {
  TempDir dir;
  const std::string path = dir.file("run.h5");
  RunRecord record = sample_record(4);
  record.options.max_trials = 5;
  EXPECT_EQ(write_run(path, record), "/runs/0001");

  H5File file(path);
  EXPECT_EQ(file.text_attribute("/", "schema"), "npgpu-run-1");
  EXPECT_EQ(file.text_attribute("/runs/0001", "module"), "mpi");
  EXPECT_EQ(file.text_attribute("/runs/0001", "command_line"), "npgpu --module mpi");
  EXPECT_EQ(file.text_attribute("/runs/0001", "pattern"), "pingpong");
  EXPECT_DOUBLE_EQ(file.number_attribute("/runs/0001", "timer_resolution_s"), 1e-9);
  EXPECT_EQ(file.texts("/runs/0001/system/rank_host"), (std::vector<std::string>{"alpha", "beta"}));
  EXPECT_EQ(file.text_attribute("/runs/0001/system/placement/rank0", "gpu"), "0");
  EXPECT_EQ(file.text_attribute("/runs/0001/system/placement/rank0", "numa_node"), "1");
  EXPECT_EQ(file.text_attribute("/runs/0001/system/placement/rank1", "host"), "beta");
  // Rank 0's host in attributes of their own; every host and rank in info_json.
  EXPECT_EQ(file.text_attribute("/runs/0001/system", "cpu_model"), "Test CPU 9000");
  EXPECT_EQ(file.number_attribute("/runs/0001/system", "sockets"), 2);
  EXPECT_EQ(file.number_attribute("/runs/0001/system", "gpus"), 1);
  EXPECT_EQ(file.text_attribute("/runs/0001/system", "cuda_driver"), "13.0");
  EXPECT_EQ(file.doubles("/runs/0001/system/rank_node_local_rank"), (std::vector<double>{0, 0}));
  const auto info = nlohmann::json::parse(file.text_attribute("/runs/0001/system", "info_json"));
  EXPECT_EQ(info.at("schema"), "npgpu-info-1");
  EXPECT_EQ(info.at("hosts").size(), 2u);
  EXPECT_EQ(info.at("hosts")[1].at("name"), "beta");
  EXPECT_EQ(info.at("ranks")[0].at("gpu").at("pci_bus_id"), "0000:1b:00.0") << "rank 0 takes alpha's GPU 0";
  EXPECT_TRUE(info.at("ranks")[1].at("gpu").is_null()) << "beta has no GPU";
  EXPECT_EQ(info.at("ranks")[0].at("module_facts").at("numa_node"), "1");

  const std::string curve = "/runs/0001/curves/rank0";
  EXPECT_DOUBLE_EQ(file.number_attribute(curve, "link_peak_B_per_s"), 63e9);
  EXPECT_EQ(file.text_attribute(curve, "link_peak_how"), "PCIe Gen5 x16");
  EXPECT_EQ(file.doubles(curve + "/bytes"), (std::vector<double>{1, 2, 4, 8}));
  // Size 2 (i = 2): trials of 3, 6, 9 ms over 10 pingpongs of 2 transfers: median 6 ms / 20.
  EXPECT_DOUBLE_EQ(file.doubles(curve + "/time_median")[2], 6e-3 / 20);
  EXPECT_DOUBLE_EQ(file.doubles(curve + "/throughput_from_time_median")[2], 4 / (6e-3 / 20));
  EXPECT_EQ(file.shape(curve + "/trial_seconds"), (std::vector<hsize_t>{4, 5}));
  const std::vector<double> raw = file.doubles(curve + "/trial_seconds");
  EXPECT_DOUBLE_EQ(raw[2 * 5 + 1], 6e-3);
  EXPECT_TRUE(std::isnan(raw[2 * 5 + 3])) << "trials not run are NaN";
  EXPECT_FALSE(file.exists(curve + "/trial_alt_seconds")) << "no second timer, no dataset";
}

TEST(Hdf5Record, EveryDatasetCarriesUnitsAndADescription) {
  TempDir dir;
  const std::string path = dir.file("run.h5");
  write_run(path, sample_record());
  H5File file(path);
  const std::vector<std::string> datasets = file.datasets_under("/runs/0001");
  EXPECT_GT(datasets.size(), 15u);
  for (const std::string& dataset : datasets) {
    EXPECT_NO_THROW(file.text_attribute(dataset, "units")) << dataset;
    EXPECT_FALSE(file.text_attribute(dataset, "description").empty()) << dataset;
  }
}

TEST(Hdf5Record, AppendingKeepsEarlierRunsByteForByte) {
  TempDir dir;
  const std::string path = dir.file("runs.h5");
  write_run(path, sample_record(3));
  std::map<std::string, std::vector<unsigned char>> before;
  {
    H5File file(path);
    for (const std::string& dataset : file.datasets_under("/runs/0001")) before[dataset] = file.raw(dataset);
  }
  EXPECT_EQ(write_run(path, sample_record(6)), "/runs/0002");
  EXPECT_EQ(write_run(path, sample_record(2)), "/runs/0003");

  H5File file(path);
  EXPECT_EQ(file.members("/runs"), (std::vector<std::string>{"0001", "0002", "0003"}));
  EXPECT_EQ(file.datasets_under("/runs/0001").size(), before.size());
  for (const auto& [dataset, bytes] : before) EXPECT_EQ(file.raw(dataset), bytes) << dataset;
  EXPECT_EQ(file.doubles("/runs/0002/curves/rank0/bytes").size(), 6u);
  // Nothing but the record is left beside it.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);
}

TEST(Hdf5Record, MissingDirectoryIsRefused) {
  TempDir dir;
  try {
    check_output_path(dir.file("no/such/dir/run.h5"));
    FAIL() << "accepted a path in a missing directory";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("does not exist"), std::string::npos) << error.what();
  }
}

TEST(Hdf5Record, ExistingFileThatIsNotHdf5IsNeverTouched) {
  TempDir dir;
  const std::string path = dir.file("notes.txt");
  std::ofstream(path) << "my precious notes\n";
  try {
    check_output_path(path);
    FAIL() << "accepted a file that is not HDF5";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("not an HDF5 file"), std::string::npos) << error.what();
  }
  EXPECT_THROW(write_run(path, sample_record()), RunError);
  EXPECT_EQ(file_text(path), "my precious notes\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1) << "no temporary left";
}

// Every HDF5 identifier the record's writer and reader open is closed again, on the paths that
// answer "no" or throw too.
TEST(Hdf5Record, LeavesNoHdf5ObjectOpen) {
  TempDir dir;
  const auto open_objects = [] { return H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL); };
  const std::string record = dir.file("run.h5"), foreign = dir.file("foreign.h5");
  write_run(record, sample_record());
  EXPECT_EQ(read_runs(record).size(), 1u);
  {
    // A root whose schema is a number: the writer finds the attribute but cannot read it as text.
    const Handle file(H5Fcreate(foreign.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose, "create");
    const Handle space(H5Screate(H5S_SCALAR), H5Sclose, "make a space");
    const Handle schema(H5Acreate2(file, "schema", H5T_NATIVE_INT64, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                        "create schema");
  }
  EXPECT_FALSE(written_by_npgpu(foreign));
  EXPECT_THROW(write_run(foreign, sample_record()), RunError);
  EXPECT_THROW(read_runs(foreign), UsageError);
  EXPECT_THROW(read_runs(record + ":7"), UsageError);
  EXPECT_EQ(open_objects(), 0);
}

TEST(Hdf5Record, DefaultNameNeverReusesAFile) {
  TempDir dir;
  const std::filesystem::path previous = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  const std::string first = default_output_path("mpi", "20261122-000000");
  std::ofstream(first) << "taken";
  const std::string second = default_output_path("mpi", "20261122-000000");
  std::filesystem::current_path(previous);
  EXPECT_EQ(first, "npgpu-mpi-20261122-000000.h5");
  EXPECT_EQ(second, "npgpu-mpi-20261122-000000-2.h5");
}

}  // namespace
}  // namespace npgpu
