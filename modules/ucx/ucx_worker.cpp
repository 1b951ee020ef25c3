#include "ucx/ucx_worker.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "npgpu/errors.hpp"
#include "pair/pair_facts.hpp"

namespace npgpu::ucx {

void fail(ucs_status_t status, const std::string& what) {
  throw RunError("ucx: " + what + ": " + ucs_status_string(status));
}

Worker::Worker(MPI_Comm comm, std::uint64_t features, const std::vector<int>& partners) : comm_(comm) {
  ucp_config_t* config = nullptr;
  check(ucp_config_read(nullptr, nullptr, &config), "ucp_config_read");  // UCX_* from the environment
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES;
  params.features = features;
  ucp_context_h context = nullptr;
  const ucs_status_t status = ucp_init(&params, config, &context);
  ucp_config_release(config);
  check(status, "ucp_init");
  context_.reset(context);

  ucp_worker_params_t worker_params{};
  worker_params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  worker_params.thread_mode = UCS_THREAD_MODE_SINGLE;  // only this thread calls UCX
  ucp_worker_h worker = nullptr;
  check(ucp_worker_create(context_.get(), &worker_params, &worker), "ucp_worker_create");
  worker_.reset(worker);
  connect(partners);
}

Worker::~Worker() {
  if (std::uncaught_exceptions() > 0) return;
  close_endpoints();
  progressing_barrier();  // no worker goes while a peer's closing may still need it
}

void Worker::connect(const std::vector<int>& partners) {
  ucp_address_t* address = nullptr;
  std::size_t length = 0;
  check(ucp_worker_get_address(worker_.get(), &address, &length), "ucp_worker_get_address");
  const std::string mine(reinterpret_cast<const char*>(address), length);
  ucp_worker_release_address(worker_.get(), address);
  const RankFacts addresses = gather_all(comm_, mine);
  endpoints_.assign(addresses.size(), nullptr);
  for (int peer : partners) {
    ucp_ep_params_t params{};
    params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
    params.address = reinterpret_cast<const ucp_address_t*>(addresses.at(static_cast<std::size_t>(peer)).data());
    ucp_ep_h endpoint = nullptr;
    if (const ucs_status_t status = ucp_ep_create(worker_.get(), &params, &endpoint); status != UCS_OK)
      fail(status, "ucp_ep_create (to rank " + std::to_string(peer) + ")");
    endpoints_[static_cast<std::size_t>(peer)] = endpoint;
  }
}

void Worker::wait_for(ucs_status_ptr_t request, const char* call, int peer) {
  ucs_status_t status = UCS_PTR_STATUS(request);
  if (UCS_PTR_IS_PTR(request)) {
    while ((status = ucp_request_check_status(request)) == UCS_INPROGRESS) ucp_worker_progress(worker_.get());
    ucp_request_free(request);
  }
  if (status != UCS_OK) fail(status, std::string(call) + " with rank " + std::to_string(peer));
}

std::string Worker::endpoint_info(int peer) const {
  char* text = nullptr;
  std::size_t length = 0;
  FILE* stream = open_memstream(&text, &length);
  if (stream == nullptr) return {};
  ucp_ep_print_info(endpoint(peer), stream);
  std::fclose(stream);
  std::string info(text, length);
  std::free(text);
  return info;
}

void Worker::progressing_barrier() {
  MPI_Request barrier = MPI_REQUEST_NULL;
  MPI_Ibarrier(comm_, &barrier);
  for (int done = 0; done == 0; MPI_Test(&barrier, &done, MPI_STATUS_IGNORE)) ucp_worker_progress(worker_.get());
}

// Flush mode: each endpoint's operations complete before it goes (there are none left), and no
// transport sees a connection dropped under it, as UCX's forced close may cause.
void Worker::close_endpoints() {
  std::vector<ucs_status_ptr_t> closing;
  ucp_request_param_t flush{};
  for (ucp_ep_h endpoint : endpoints_)
    if (endpoint != nullptr) closing.push_back(ucp_ep_close_nbx(endpoint, &flush));
  endpoints_.clear();
  for (ucs_status_ptr_t request : closing) {
    if (!UCS_PTR_IS_PTR(request)) continue;  // closed at once, or failed: nothing left to wait for
    while (ucp_request_check_status(request) == UCS_INPROGRESS) ucp_worker_progress(worker_.get());
    ucp_request_free(request);
  }
}

}  // namespace npgpu::ucx
