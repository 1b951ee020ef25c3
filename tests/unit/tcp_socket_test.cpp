// tcp's socket layer over real loopback connections inside one process.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "net_common/ip_networks.hpp"
#include "npgpu/buffers.hpp"
#include "npgpu/errors.hpp"
#include "npgpu/sizes.hpp"
#include "tcp/socket.hpp"

namespace npgpu::tcp {
namespace {

TEST(TcpRoute, LoopbackOnOneHostElseThePeersAddressOnASharedNetworkElseItsName) {
  EXPECT_EQ(listen_address({"node1", "node1", "node1"}), "127.0.0.1");
  EXPECT_EQ(listen_address({"node1", "node1", "node2"}), "0.0.0.0") << "one rank elsewhere: every interface";
  EXPECT_EQ(route_to({"node1", "10.0.0.1/24"}, {"node1", "10.0.0.1/24"}).address, "127.0.0.1");
  // The peer's name may resolve to another network, or to nothing: its address on ours is taken.
  const Route shared = route_to({"node1", "192.168.1.1/24 10.77.0.1/24"}, {"node2", "172.16.0.9/16 10.77.0.2/24"});
  EXPECT_EQ(shared.address, "10.77.0.2");
  EXPECT_EQ(shared.how, "no (peer's address on a network both hosts are on)");
  EXPECT_EQ(route_to({"node1", "10.0.0.1/8"}, {"node2", "10.200.3.4/24"}).address, "10.200.3.4") << "our prefix decides";
  const Route routed = route_to({"node1", "10.0.0.1/24"}, {"node2", "10.0.1.1/24"});
  EXPECT_EQ(routed.address, "node2") << "no network in common: through a router, by name";
  EXPECT_EQ(routed.how, "no (peer found by host name)");
  EXPECT_EQ(route_to({"node1", ""}, {"node2", "bad 10.0.0.2/40 10.0.0.2"}).address, "node2");
}

struct Connection {
  Socket near, far;
};

Connection connect_pair(const SocketOptions& options) {
  const Socket listener = listen_on("127.0.0.1", options);
  Connection c;
  c.near = connect_to("127.0.0.1", local_endpoint(listener).port, options);
  c.far = accept_connection(listener, options);
  return c;
}

TEST(TcpSocket, BothWaysAtOnceDoNotDeadlockWhenBuffersFill) {
  // Far more than small socket buffers hold: two ranks that each sent everything before
  // receiving would both block forever.
  const std::uint64_t bytes = 8 * MiB;
  const Connection c = connect_pair({64 * 1024, true});
  HostBuffer a_out(bytes), a_in(bytes), b_out(bytes), b_in(bytes);
  fill_pattern(a_out.data(), bytes, 1);
  fill_pattern(b_out.data(), bytes, 2);
  const int far = c.far.fd(), near = c.near.fd();
  std::thread other([&] { send_and_receive({{far, b_out.data(), bytes}}, {{far, b_in.data(), bytes}}); });
  send_and_receive({{near, a_out.data(), bytes / 2}, {near, a_out.data() + bytes / 2, bytes / 2}},
                   {{near, a_in.data(), bytes}});
  other.join();
  EXPECT_EQ(first_mismatch(a_in.data(), bytes, 2), bytes);
  EXPECT_EQ(first_mismatch(b_in.data(), bytes, 1), bytes);
}

TEST(TcpSocket, AnIncastsReceiverTakesFromWhicheverSenderIsReady) {
  // Sender A sends only once sender B's 8 MiB are all taken, far more than B's small socket buffers
  // hold: a receiver that waited on A first would leave B stalled forever.
  const std::uint64_t bytes = 8 * MiB;
  const Connection a = connect_pair({64 * 1024, true}), b = connect_pair({64 * 1024, true});
  HostBuffer a_out(bytes), b_out(bytes), a_in(bytes), b_in(bytes);
  fill_pattern(a_out.data(), bytes, 3);
  fill_pattern(b_out.data(), bytes, 4);
  std::thread senders([&] {
    send_all(b.near.fd(), b_out.data(), bytes);
    send_all(a.near.fd(), a_out.data(), bytes);
  });
  receive_from_each({{a.far.fd(), a_in.data(), bytes / 2}, {b.far.fd(), b_in.data(), bytes}, {a.far.fd(), a_in.data() + bytes / 2, bytes / 2}},
                    Waiting::asleep);
  senders.join();
  EXPECT_EQ(first_mismatch(a_in.data(), bytes, 3), bytes) << "each socket's pieces in order";
  EXPECT_EQ(first_mismatch(b_in.data(), bytes, 4), bytes);
}

TEST(TcpSocket, WholeMessagesThroughPartialSendsAndReceives) {
  const std::uint64_t bytes = 4 * MiB + 3;
  const Connection c = connect_pair({});
  HostBuffer out(bytes), in(bytes);
  fill_pattern(out.data(), bytes, 7);
  std::thread sender([&] { send_all(c.near.fd(), out.data(), bytes); });
  receive_all(c.far.fd(), in.data(), bytes);
  sender.join();
  EXPECT_EQ(first_mismatch(in.data(), bytes, 7), bytes);
}

// This thread's time on a core, and waiting in the run queue for one, in seconds: a thread that
// spins wants the core all the while, but beside other busy processes gets a share of it (a CI run:
// 0.099 s used of 300 ms spun).
struct CoreTime {
  double used = 0, wanted = 0;
};
CoreTime core_time() {
  std::ifstream schedstat("/proc/thread-self/schedstat");
  double on_core_ns = 0, queued_ns = 0;
  schedstat >> on_core_ns >> queued_ns;
  return {1e-9 * on_core_ns, 1e-9 * (on_core_ns + queued_ns)};
}

// The core time this thread took while `wait` waited for a peer that answers after 300 ms.
template <typename Wait>
CoreTime core_time_waiting(Wait wait) {
  const CoreTime start = core_time();
  wait();
  const CoreTime end = core_time();
  return {end.used - start.used, end.wanted - start.wanted};
}

// A load rank sleeps while its socket is not ready, leaving the core to the victims beside it; a
// measurement spins, as MPI does. Each way of transferring is tried both ways.
TEST(TcpSocket, AsleepItWaitsWithoutTheCoreAndSpinningItDoesNot) {
  const std::uint64_t bytes = 4 * MiB;  // more than the socket buffers hold, so the sender waits too
  const Connection c = connect_pair({64 * 1024, true});
  HostBuffer out(bytes), in(bytes), back(bytes);
  const int near = c.near.fd(), far = c.far.fd();
  for (const Waiting waiting : {Waiting::asleep, Waiting::spin}) {
    const auto late_peer = [&](auto act) {
      return std::thread([&, act] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        act();
      });
    };
    std::thread peer = late_peer([&] { send_all(far, out.data(), bytes); });
    const CoreTime receiving = core_time_waiting([&] { receive_all(near, in.data(), bytes, waiting); });
    peer.join();
    peer = late_peer([&] { receive_all(far, in.data(), bytes); });
    const CoreTime sending = core_time_waiting([&] { send_all(near, out.data(), bytes, waiting); });
    peer.join();
    peer = late_peer([&] { send_and_receive({{far, out.data(), bytes}}, {{far, back.data(), bytes}}); });
    const CoreTime both = core_time_waiting([&] { send_and_receive({{near, out.data(), bytes}}, {{near, in.data(), bytes}}, waiting); });
    peer.join();
    for (const CoreTime& time : {receiving, sending, both}) {
      if (waiting == Waiting::asleep) EXPECT_LT(time.used, 0.03) << "asleep, 300 ms of waiting used " << time.used << " s of a core";
      else EXPECT_GT(time.wanted, 0.25) << "spinning, 300 ms of waiting wanted a core only " << time.wanted << " s";
    }
  }
}

TEST(TcpSocket, SaysWhereItIsAndWhatTheKernelGranted) {
  const Connection c = connect_pair({128 * 1024, false});
  EXPECT_EQ(local_endpoint(c.near).port, peer_endpoint(c.far).port);
  EXPECT_EQ(local_endpoint(c.near).address, "127.0.0.1");
  EXPECT_EQ(interface_of("127.0.0.1"), "lo");
  EXPECT_EQ(interface_of("192.0.2.1"), "unknown") << "a documentation address no interface has";
  const GrantedBuffers granted = granted_buffers(c.near);
  EXPECT_GE(granted.send_bytes, 128u * 1024);
  EXPECT_GE(granted.receive_bytes, 128u * 1024);
}

TEST(TcpSocket, APeerThatClosesIsAnErrorNotAHang) {
  Connection c = connect_pair({});
  c.far = Socket();
  std::byte byte{};
  EXPECT_THROW(receive_all(c.near.fd(), &byte, 1), RunError);
}

TEST(TcpSocket, RefusesWhatItCannotUse) {
  EXPECT_THROW(listen_on("localhost", {}), RunError) << "numeric addresses only";
  EXPECT_THROW(connect_to("no-such-host.invalid", 9, {}), RunError);
}

}  // namespace
}  // namespace npgpu::tcp
