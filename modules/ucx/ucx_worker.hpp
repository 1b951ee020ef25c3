#pragma once
// One rank's UCP: a context with the features an operation needs, one worker that this thread
// alone progresses, and an endpoint to every partner, made from worker addresses exchanged over
// the module's communicator. Every failed call is a RunError naming it and UCX's status.
#include <mpi.h>
#include <ucp/api/ucp.h>

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace npgpu::ucx {

// A message's tag is its sender's rank, received with every bit matched: a rank with two peers at
// once takes each one's messages from that peer only, as MPI matches by source; and UCX keeps the
// order of messages between two endpoints, as MPI does.
inline ucp_tag_t tag_of(int sender) { return static_cast<ucp_tag_t>(sender); }
constexpr ucp_tag_t kEveryTagBit = ~ucp_tag_t{0};

// RunError "ucx: WHAT: UCX's words for status".
[[noreturn]] void fail(ucs_status_t status, const std::string& what);
inline void check(ucs_status_t status, const char* what) {
  if (status != UCS_OK) fail(status, what);
}

class Worker {
 public:
  // Collective over `comm`: every rank gives its worker's address; this rank connects to `partners`.
  Worker(MPI_Comm comm, std::uint64_t features, const std::vector<int>& partners);
  // Closes the endpoints (every rank at once, each serving the others' closing), unless an
  // exception is on its way out: then other ranks may wait anywhere, and the job is being aborted.
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  ucp_context_h context() const { return context_.get(); }
  ucp_worker_h get() const { return worker_.get(); }
  ucp_ep_h endpoint(int peer) const { return endpoints_[static_cast<std::size_t>(peer)]; }

  // What a non-blocking call to or from `peer` returned: done (NULL), failed, or a request to
  // progress the worker until it completes, then free. RunError naming `call` and `peer` when it
  // failed (the words are made then only: this is on the timed path, and a small message's send
  // is done at once, so that case costs one comparison here).
  void wait(ucs_status_ptr_t request, const char* call, int peer) {
    if (request != nullptr) wait_for(request, call, peer);
  }

  // ucp_ep_print_info's text for the endpoint to `peer`.
  std::string endpoint_info(int peer) const;

 private:
  struct Cleanup {
    void operator()(ucp_context_h context) const { ucp_cleanup(context); }
  };
  struct Destroy {
    void operator()(ucp_worker_h worker) const { ucp_worker_destroy(worker); }
  };

  void wait_for(ucs_status_ptr_t request, const char* call, int peer);
  void connect(const std::vector<int>& partners);
  void close_endpoints();
  // Collective over the communicator, progressing the worker while it waits, so a peer that still
  // needs this rank's progress (a rendezvous's acknowledgement, an endpoint's flush) gets it.
  void progressing_barrier();

  MPI_Comm comm_;
  std::unique_ptr<std::remove_pointer_t<ucp_context_h>, Cleanup> context_;
  std::unique_ptr<std::remove_pointer_t<ucp_worker_h>, Destroy> worker_;
  std::vector<ucp_ep_h> endpoints_;  // by rank, nullptr where it is no partner: found in O(1) on the timed path
};

}  // namespace npgpu::ucx
