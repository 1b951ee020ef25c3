#include "mpi/mpi_transport.hpp"

namespace npgpu {

void MpiTransport::complete() {
  // A message alone takes the blocking calls, osu_latency's path: the shortest MPI has.
  if (queue_.size() == 1) {
    const Queued& only = queue_.front();
    const int count = static_cast<int>(only.message.bytes);
    if (only.send)
      MPI_Send(only.message.data, count, MPI_BYTE, only.message.peer, kMpiDataTag, comm_);
    else
      MPI_Recv(only.message.data, count, MPI_BYTE, only.message.peer, kMpiDataTag, comm_, MPI_STATUS_IGNORE);
    queue_.clear();
    return;
  }
  requests_.resize(queue_.size());
  for (std::size_t i = 0; i < queue_.size(); ++i) {
    const Message& m = queue_[i].message;
    const int count = static_cast<int>(m.bytes);
    if (queue_[i].send)
      MPI_Isend(m.data, count, MPI_BYTE, m.peer, kMpiDataTag, comm_, &requests_[i]);
    else
      MPI_Irecv(m.data, count, MPI_BYTE, m.peer, kMpiDataTag, comm_, &requests_[i]);
  }
  MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  queue_.clear();
}

}  // namespace npgpu
