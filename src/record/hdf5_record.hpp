#pragma once
// The HDF5 record of truth: one file holds many runs under /runs; docs/hdf5-schema.md describes it.
#include <string>

#include "results/run_record.hpp"

namespace npgpu {

// Before any measurement: the directory must exist and be writable, and an existing file must be
// an HDF5 file npgpu wrote (its root says schema npgpu-run-1). Throws UsageError otherwise;
// touches nothing.
void check_output_path(const std::string& path);

// A name in the current directory that no file has yet: npgpu-<module>-<UTC time>[-k].h5.
std::string default_output_path(const std::string& module, const std::string& utc_stamp);

// Adds the run to `path` (creating the file if absent) and returns its group ("/runs/0003").
// The run is written into a copy that replaces the file only once complete, so an earlier run is
// never damaged and no half-written file is ever left at `path`; writers of one directory take
// turns (RecordLock), so concurrent runs appending to one file lose nothing.
std::string write_run(const std::string& path, const RunRecord& record);

// A file holding this run alone, as /runs/0001, written through a copy renamed over `path`: what
// a run has measured so far, readable whatever moment the writer dies at.
void write_lone_run(const std::string& path, const RunRecord& record);

// Adds the run of a lone-run file to `path` as write_run does, marked failed with `reason`;
// returns its group. RunError when the lone-run file cannot be read.
std::string adopt_run(const std::string& path, const std::string& lone_run, const std::string& reason);

}  // namespace npgpu
