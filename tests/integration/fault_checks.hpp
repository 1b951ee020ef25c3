#pragma once
// What a run under the test-only fault switch (--test-flip-byte OFFSET@64K) must show, on any
// path: exit 1, the failure naming the module, the byte, the message size and what caught it, the
// run in the record marked failed with the same words, every intact size before the fault kept and
// no corrupt one averaged in.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/command.hpp"
#include "support/h5_file.hpp"

namespace npgpu::test {

inline const std::string kFaultFrom = "64K";  // the fault's first size; smaller messages arrive intact
inline const char* const kFoundByTag = "its tag, in repetition ";
inline const char* const kFoundByCheck = "--check, which reads every byte";

// The sweep a fault test runs: powers of two up to four times the fault's first size.
inline std::vector<std::string> fault_sweep(const std::string& flip_offset) {
  std::vector<std::string> options = quick_sweep("256K");
  options.insert(options.end(), {"--fac2", "--test-flip-byte", flip_offset + "@" + kFaultFrom});
  return options;
}

inline void expect_caught_fault(const CommandResult& result, const std::string& record, const std::string& module,
                                const std::string& found_by) {
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  for (const std::string& words : std::vector<std::string>{module, ": byte ", " of a 65536-byte ", found_by, "size 64 KiB"})
    EXPECT_NE(result.err.find(words), std::string::npos) << "the failure names '" << words << "': " << result.err;

  H5File file(record);
  EXPECT_EQ(file.text_attribute("/runs/0001", "status"), "failed");
  const std::string reason = file.text_attribute("/runs/0001", "status_reason");
  EXPECT_NE(reason.find(found_by), std::string::npos) << reason;
  EXPECT_NE(reason.find(" of a 65536-byte "), std::string::npos) << reason;
  const std::vector<std::string> curves = file.members("/runs/0001/curves");
  ASSERT_FALSE(curves.empty());
  for (const std::string& curve : curves) {
    const std::vector<double> bytes = file.doubles("/runs/0001/curves/" + curve + "/bytes");
    ASSERT_FALSE(bytes.empty()) << curve << ": the sizes before the fault are kept";
    EXPECT_EQ(bytes.back(), 32768) << curve << ": every intact size kept, no corrupt one averaged in";
  }
}

}  // namespace npgpu::test
