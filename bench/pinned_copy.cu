// Host<->GPU copy speed through pinned memory, the reference for the staged mpi target of
// bench/gpu_pair.py: one GPU, one size, best of 20 copies timed by cudaEvents, the thread on the
// GPU's own cores (as npgpu's ranks are). Prints "h2d <GB/s>" and "d2h <GB/s>".
//
//     nvcc -O2 -o pinned_copy bench/pinned_copy.cu && ./pinned_copy DEVICE BYTES
#include <cuda_runtime.h>
#include <sched.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#define CHECK(call)                                                                  \
  do {                                                                               \
    cudaError_t status_ = (call);                                                    \
    if (status_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(status_));          \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

// Moves this thread onto the cores sysfs lists as the GPU's neighbours ("0-15,32-47").
static void bind_near(int device) {
  char bus[32] = {};
  CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, device));
  std::string id(bus);
  for (char& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (id.size() > 12) id = id.substr(id.size() - 12);  // "00000000:1b:00.0" -> "0000:1b:00.0"
  std::ifstream file("/sys/bus/pci/devices/" + id + "/local_cpulist");
  std::string list;
  if (!std::getline(file, list)) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (const char* p = list.c_str(); *p != '\0';) {
    char* end = nullptr;
    const long first = std::strtol(p, &end, 10);
    long last = first;
    if (*end == '-') last = std::strtol(end + 1, &end, 10);
    for (long cpu = first; cpu <= last && cpu < CPU_SETSIZE; ++cpu) CPU_SET(cpu, &set);
    p = *end == ',' ? end + 1 : end;
  }
  sched_setaffinity(0, sizeof set, &set);
}

static double best_gb_per_s(void* to, const void* from, size_t bytes, cudaMemcpyKind kind, cudaStream_t stream) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  float best_ms = 1e30f;
  for (int i = 0; i < 21; ++i) {  // the first one warms up
    CHECK(cudaEventRecord(start, stream));
    CHECK(cudaMemcpyAsync(to, from, bytes, kind, stream));
    CHECK(cudaEventRecord(stop, stream));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    if (i > 0 && ms < best_ms) best_ms = ms;
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return static_cast<double>(bytes) / (best_ms * 1e-3) / 1e9;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s DEVICE BYTES\n", argv[0]);
    return 2;
  }
  const int device = std::atoi(argv[1]);
  const size_t bytes = std::strtoull(argv[2], nullptr, 10);
  bind_near(device);
  CHECK(cudaSetDevice(device));
  void *host = nullptr, *gpu = nullptr;
  CHECK(cudaMallocHost(&host, bytes));
  CHECK(cudaMalloc(&gpu, bytes));
  CHECK(cudaMemset(gpu, 1, bytes));
  for (size_t i = 0; i < bytes; i += 4096) static_cast<char*>(host)[i] = 1;
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  std::printf("h2d %.3f\n", best_gb_per_s(gpu, host, bytes, cudaMemcpyHostToDevice, stream));
  std::printf("d2h %.3f\n", best_gb_per_s(host, gpu, bytes, cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(gpu));
  CHECK(cudaFreeHost(host));
  return 0;
}
