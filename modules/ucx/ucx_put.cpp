#include "ucx/ucx_put.hpp"

#include <cstring>
#include <string>

#include "pair/pair_facts.hpp"

namespace npgpu::ucx {

ExposedPools::ExposedPools(Worker& worker, MPI_Comm comm, std::byte* pool, std::uint64_t bytes,
                           const std::vector<int>& partners)
    : worker_(worker) {
  ucp_mem_map_params_t params{};
  params.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
  params.address = pool;
  params.length = bytes;
  check(ucp_mem_map(worker_.context(), &params, &mapped_), "ucp_mem_map (the receive pool)");
  void* packed = nullptr;
  std::size_t length = 0;
  check(ucp_rkey_pack(worker_.context(), mapped_, &packed, &length), "ucp_rkey_pack");
  // What a partner needs: the pool's address, then its packed key.
  const auto address = reinterpret_cast<std::uint64_t>(pool);
  std::string mine(reinterpret_cast<const char*>(&address), sizeof address);
  mine.append(static_cast<const char*>(packed), length);
  ucp_rkey_buffer_release(packed);
  const RankFacts offers = gather_all(comm, mine);
  for (int peer : partners) {
    const std::string& offer = offers.at(static_cast<std::size_t>(peer));
    Remote remote{};
    std::memcpy(&remote.address, offer.data(), sizeof remote.address);
    if (const ucs_status_t status = ucp_ep_rkey_unpack(worker_.endpoint(peer), offer.data() + sizeof remote.address, &remote.key);
        status != UCS_OK)
      fail(status, "ucp_ep_rkey_unpack (rank " + std::to_string(peer) + "'s pool)");
    remotes_[peer] = remote;
  }
}

ExposedPools::~ExposedPools() {
  for (const auto& [peer, remote] : remotes_) ucp_rkey_destroy(remote.key);
  ucp_mem_unmap(worker_.context(), mapped_);
}

void PutTransport::complete() {
  const ucp_request_param_t param{};  // contiguous bytes, completion polled
  ucs_status_ptr_t notice = nullptr;
  if (receiving_from_ >= 0)
    notice = ucp_tag_recv_nbx(worker_.get(), nullptr, 0, tag_of(receiving_from_), kEveryTagBit, &param);
  if (!sends_.empty()) {
    const int peer = sends_.front().peer;
    const ExposedPools::Remote& remote = pools_.of(peer);
    for (const Message& m : sends_)
      putting_.push_back(ucp_put_nbx(worker_.endpoint(peer), m.data, m.bytes, remote.address + memory_.pool_offset(m.data),
                                     remote.key, &param));
    worker_.wait(ucp_ep_flush_nbx(worker_.endpoint(peer), &param), "ucp_ep_flush_nbx", peer);
    for (ucs_status_ptr_t put : putting_) worker_.wait(put, "ucp_put_nbx", peer);
    worker_.wait(ucp_tag_send_nbx(worker_.endpoint(peer), nullptr, 0, my_tag_, &param), "ucp_tag_send_nbx (the notice)", peer);
  }
  if (receiving_from_ >= 0) worker_.wait(notice, "ucp_tag_recv_nbx (the notice)", receiving_from_);
  sends_.clear();
  putting_.clear();
  receiving_from_ = -1;
}

}  // namespace npgpu::ucx
