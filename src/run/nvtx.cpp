#include "run/nvtx.hpp"

#ifdef NPGPU_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

namespace npgpu {

#ifdef NPGPU_HAVE_NVTX
bool nvtx_available() { return true; }

NvtxRange::NvtxRange(bool enabled, const std::string& name) : enabled_(enabled) {
  if (enabled_) nvtxRangePushA(name.c_str());
}

NvtxRange::~NvtxRange() {
  if (enabled_) nvtxRangePop();
}
#else
bool nvtx_available() { return false; }
NvtxRange::NvtxRange(bool, const std::string&) : enabled_(false) {}
NvtxRange::~NvtxRange() = default;
#endif

}  // namespace npgpu
