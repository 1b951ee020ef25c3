#pragma once
// Messages handed to MPI as they are: host memory, or GPU memory when MPI is CUDA-aware (direct).
#include <mpi.h>

#include <vector>

#include "pair/transport.hpp"

namespace npgpu {

inline constexpr int kMpiDataTag = 1;

class MpiTransport final : public Transport {
 public:
  explicit MpiTransport(MPI_Comm comm) : comm_(comm) {}
  void send(const Message& message) override { queue_.push_back({message, true}); }
  void receive(const Message& message) override { queue_.push_back({message, false}); }
  void complete() override;

 private:
  struct Queued {
    Message message;
    bool send;
  };
  MPI_Comm comm_;
  std::vector<Queued> queue_;
  std::vector<MPI_Request> requests_;
};

}  // namespace npgpu
