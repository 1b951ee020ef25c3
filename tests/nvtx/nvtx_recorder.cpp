// An NVTX tool, as Nsight Systems is one: NVTX loads it from NVTX_INJECTION64_PATH and hands it
// the range calls. It writes "push NAME" and "pop" lines to the file named by
// NPGPU_NVTX_RECORD, so a test can see which ranges npgpu opened, and that each was closed.
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>

namespace {

std::FILE* record() {
  static std::FILE* file = std::fopen(std::getenv("NPGPU_NVTX_RECORD"), "w");
  return file;
}

int push(const char* message) {
  std::fprintf(record(), "push %s\n", message);
  return 0;
}

int pop() {
  std::fprintf(record(), "pop\n");
  std::fflush(record());
  return 0;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table) {
  if (std::getenv("NPGPU_NVTX_RECORD") == nullptr || record() == nullptr) return 0;
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get_table(NVTX_ETID_CALLBACKS));
  NvtxFunctionTable core = nullptr;
  unsigned int size = 0;
  if (callbacks == nullptr || callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &size) == 0 ||
      size <= NVTX_CBID_CORE_RangePop)
    return 0;
  *core[NVTX_CBID_CORE_RangePushA] = reinterpret_cast<NvtxFunctionPointer>(push);
  *core[NVTX_CBID_CORE_RangePop] = reinterpret_cast<NvtxFunctionPointer>(pop);
  return 1;
}
