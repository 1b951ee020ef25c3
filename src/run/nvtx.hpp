#pragma once
// NVTX ranges (--nvtx), so an Nsight Systems timeline shows which size and trial npgpu was in.
// Builds without the CUDA toolkit have no NVTX headers; asking for --nvtx there is refused.
#include <string>

namespace npgpu {

bool nvtx_available();

class NvtxRange {
 public:
  NvtxRange(bool enabled, const std::string& name);
  ~NvtxRange();
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;

 private:
  bool enabled_;
};

}  // namespace npgpu
