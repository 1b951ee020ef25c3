#pragma once
// What a one-sided module (MPI RMA) gives the one-sided patterns: every rank exposes a region of its
// memory to its peers (its receive pool, then a small notice area: one_sided_exposed_bytes; or, for
// GPU memory, the pool alone and a host notice area apart) and reads and writes theirs without
// their part, in two kinds of epoch:
// - passive target: put and get start transfers, flush(peer) completes them at both ends;
// - active target: fence(peer) closes an epoch with the peer and opens the next, both ranks calling
//   it, and completes every transfer of the epoch at both ends.
// The patterns see a peer's writes into their own exposed memory by polling bytes there, calling
// refresh() in every turn of the loop: that is where the transport makes them visible (a memory
// barrier, MPI_Win_sync) and moves what it moves in software (progress).
#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace npgpu {

// What a transfer does (put into the peer's exposed memory, get out of it), and which epoch completes
// it (flush: passive target; fence: active target).
enum class OneSidedOperation { put, get };
enum class OneSidedSync { flush, fence };

class OneSidedTransport {
 public:
  virtual ~OneSidedTransport() = default;

  // Starts writing `bytes` from `source` (this rank's memory) at `offset` of `peer`'s exposed
  // memory. `source` must not change until the transfer is complete.
  virtual void put(const std::byte* source, std::uint64_t bytes, int peer, std::uint64_t offset) = 0;

  // Starts reading `bytes` at `offset` of `peer`'s exposed memory into `target` (this rank's memory).
  virtual void get(std::byte* target, std::uint64_t bytes, int peer, std::uint64_t offset) = 0;

  // Passive target: a get and its completion, in one call. A get pingpong repeats nothing else, and
  // at its ~26 ns a call's own cost is a part of what it times.
  virtual void get_completed(std::byte* target, std::uint64_t bytes, int peer, std::uint64_t offset) {
    get(target, bytes, peer, offset);
    flush(peer);
  }

  // Passive target: returns once every put and get this rank started toward `peer` is complete at
  // both ends (the bytes are in the peer's memory, or in this rank's), notices included.
  virtual void flush(int peer) = 0;

  // This rank's notice area: host memory where peers' notices land, which this rank polls. After
  // the receive pool in the exposed memory when that is host memory; where messages live in GPU
  // memory, which no loop can poll, a host region exposed on its own.
  virtual std::byte* notices() = 0;

  // Starts writing a notice (the byte at `notice`) into `peer`'s notice area; flush(peer) completes it.
  virtual void put_notice(const std::byte* notice, int peer) = 0;

  // Active target: closes this rank's epoch with `peer` and opens the next; `peer` calls it too.
  // A transport without active-target epochs is never asked (the patterns run OneSidedSync::flush).
  virtual void fence(int /*peer*/) { throw std::logic_error("this one-sided transport has no active-target epochs"); }

  // Called in every turn of a loop polling this rank's exposed memory, and after this rank writes
  // there itself (the patterns arm the bytes they poll): makes the peers' writes visible to this
  // rank's loads, and its own stores visible to the peers' transfers.
  virtual void refresh() = 0;
};

}  // namespace npgpu
