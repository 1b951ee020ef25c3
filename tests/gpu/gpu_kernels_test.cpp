// The SM copy kernel and the gated timer on a real GPU.
#include <gtest/gtest.h>

#include <vector>

#include "cuda_common/cuda_check.hpp"
#include "cuda_common/gated_timer.hpp"
#include "cuda_common/kernels.hpp"
#include "cuda_common/memory.hpp"
#include "gpu_support.hpp"

namespace npgpu::test {
namespace {

constexpr std::byte kUntouched{0xEE};
constexpr std::uint64_t kGuard = 64;

TEST(SmCopyKernel, MovesExactlyTheBytesAskedTailsIncluded) {
  if (const std::string why = missing_gpus(1); !why.empty()) GTEST_SKIP() << why;
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
  int multiprocessors = 0;
  check_cuda(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, 0), "SM count");
  const std::uint64_t largest = 3 * 1024 * 1024 + 5;
  std::vector<std::byte> source(largest);
  for (std::uint64_t i = 0; i < largest; ++i) source[i] = static_cast<std::byte>(i * 7 + 3);
  DeviceBuffer from(largest), to(largest + kGuard);
  check_cuda(cudaMemcpy(from.data(), source.data(), largest, cudaMemcpyHostToDevice), "cudaMemcpy");
  // Offsets keep the 16-byte alignment the kernel needs; sizes leave every possible tail.
  const std::uint64_t sizes[] = {1, 7, 15, 16, 17, 31, 4099, 65536 + 13, largest};
  for (std::uint64_t bytes : sizes) {
    std::vector<std::byte> arrived(bytes + kGuard);
    check_cuda(cudaMemset(to.data(), static_cast<int>(kUntouched), largest + kGuard), "cudaMemset");
    launch_sm_copy(to.data(), from.data(), bytes, multiprocessors, nullptr);
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    check_cuda(cudaMemcpy(arrived.data(), to.data(), bytes + kGuard, cudaMemcpyDeviceToHost), "cudaMemcpy");
    for (std::uint64_t i = 0; i < bytes; ++i) ASSERT_EQ(arrived[i], source[i]) << "byte " << i << " of " << bytes;
    for (std::uint64_t i = bytes; i < bytes + kGuard; ++i)
      ASSERT_EQ(arrived[i], kUntouched) << "byte " << i << " past a " << bytes << "-byte copy was written";
  }
}

TEST(GatedTimer, TimesEveryItemInOrderAcrossBatches) {
  if (const std::string why = missing_gpus(1); !why.empty()) GTEST_SKIP() << why;
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
  const Stream stream(0);
  GatedTimer timer({{0, stream.get()}});
  DeviceBuffer from(1 << 20), to(1 << 20);
  std::vector<std::uint64_t> seen;
  const std::uint64_t items = 3 * GatedTimer::kMaxQueuedOperations + 5;  // four batches
  const double seconds = timer.time(items, 1, [&](std::uint64_t item) {
    seen.push_back(item);
    check_cuda(cudaMemcpyAsync(to.data(), from.data(), 1 << 20, cudaMemcpyDeviceToDevice, stream.get()), "copy");
  });
  ASSERT_EQ(seen.size(), items);
  for (std::uint64_t i = 0; i < items; ++i) ASSERT_EQ(seen[i], i);
  EXPECT_GT(seconds, 0);
  EXPECT_LT(seconds, 1) << "about 400 copies of 1 MiB inside one GPU";
}

}  // namespace
}  // namespace npgpu::test
