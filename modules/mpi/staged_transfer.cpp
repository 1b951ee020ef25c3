#include "mpi/staged_transfer.hpp"

#include "cuda_common/cuda_check.hpp"
#include "mpi/mpi_transport.hpp"

namespace npgpu {

StagedTransport::StagedTransport(MPI_Comm comm, StagingShape shape, bool on_device)
    : outgoing_(Way::out, comm, shape, on_device), incoming_(Way::in, comm, shape, on_device) {}

void StagedTransport::complete() {
  // Both directions progress together, so bidir never waits on one while the other stalls.
  bool out_done = false, in_done = false;
  while (!out_done || !in_done) {
    out_done = outgoing_.advance();
    in_done = incoming_.advance();
  }
}

StagedTransport::Direction::Direction(Way way, MPI_Comm comm, StagingShape shape, bool on_device)
    : way_(way), comm_(comm), shape_(shape), pipeline_(shape.slots),
      requests_(shape.slots, MPI_REQUEST_NULL) {
  if (!on_device) return;
  bounce_ = HostMemory(shape.slots * shape.chunk_bytes, HostMemoryKind::pinned);
  stream_ = CudaStream("cudaStreamCreateWithFlags (staging)");
  copied_.resize(shape.slots);
  for (cudaEvent_t& event : copied_)
    check_cuda(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreateWithFlags (staging)");
}

StagedTransport::Direction::~Direction() {
  for (cudaEvent_t event : copied_) cudaEventDestroy(event);
}

void StagedTransport::Direction::add(const Message& message) {
  const ChunkPlan plan = plan_chunks(message.bytes, shape_.chunk_bytes);
  for (std::uint64_t i = 0; i < plan.count; ++i)
    chunks_.push_back({message.data + i * shape_.chunk_bytes, i + 1 == plan.count ? plan.last_bytes : shape_.chunk_bytes,
                       message.on_device, message.peer});
  pipeline_.add(plan.count);
}

bool StagedTransport::Direction::advance() {
  // Sending: A is the copy off the GPU, B the send. Receiving: A is the receive, B the copy on.
  const bool copy_first = way_ == Way::out;
  if (const auto k = pipeline_.ready_for_a()) {
    copy_first ? start_copy(*k) : start_mpi(*k);
    pipeline_.started_a();
  }
  if (const auto k = pipeline_.in_a(); k && (copy_first ? copy_done(*k) : mpi_done(*k))) {
    pipeline_.finished_a();
    copy_first ? start_mpi(*k) : start_copy(*k);
  }
  if (const auto k = pipeline_.in_b(); k && (copy_first ? mpi_done(*k) : copy_done(*k))) pipeline_.finished_b();
  if (!pipeline_.done()) return false;
  pipeline_.clear();
  chunks_.clear();
  return true;
}

void StagedTransport::Direction::start_copy(std::uint64_t k) {
  const Chunk& chunk = chunks_[k];
  if (!chunk.on_device) return;
  if (way_ == Way::out)
    check_cuda(cudaMemcpyAsync(bounce(k), chunk.data, chunk.bytes, cudaMemcpyDeviceToHost, stream_.get()),
               "cudaMemcpyAsync (staging a chunk off the GPU)");
  else
    check_cuda(cudaMemcpyAsync(chunk.data, bounce(k), chunk.bytes, cudaMemcpyHostToDevice, stream_.get()),
               "cudaMemcpyAsync (staging a chunk onto the GPU)");
  check_cuda(cudaEventRecord(copied_[pipeline_.slot(k)], stream_.get()), "cudaEventRecord (staging)");
}

bool StagedTransport::Direction::copy_done(std::uint64_t k) {
  if (!chunks_[k].on_device) return true;
  const cudaError_t status = cudaEventQuery(copied_[pipeline_.slot(k)]);
  if (status == cudaErrorNotReady) return false;
  check_cuda(status, "cudaEventQuery (staging)");
  return true;
}

void StagedTransport::Direction::start_mpi(std::uint64_t k) {
  const Chunk& chunk = chunks_[k];
  std::byte* buffer = chunk.on_device ? bounce(k) : chunk.data;
  MPI_Request* request = &requests_[pipeline_.slot(k)];
  const int count = static_cast<int>(chunk.bytes);
  if (way_ == Way::out)
    MPI_Isend(buffer, count, MPI_BYTE, chunk.peer, kMpiDataTag, comm_, request);
  else
    MPI_Irecv(buffer, count, MPI_BYTE, chunk.peer, kMpiDataTag, comm_, request);
}

bool StagedTransport::Direction::mpi_done(std::uint64_t k) {
  int done = 0;
  MPI_Test(&requests_[pipeline_.slot(k)], &done, MPI_STATUS_IGNORE);
  return done != 0;
}

}  // namespace npgpu
