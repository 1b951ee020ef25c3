// What UCX chose for an endpoint, read from ucp_ep_print_info's text as UCX 1.13.1 printed it on
// this machine (two ranks, shared memory; UCX_TLS=tcp; the RMA feature), and the link an endpoint
// crosses, from made-up interfaces. Built and run where UCX is not: the reading is pure.
#include <gtest/gtest.h>

#include "ucx/endpoint_config.hpp"

namespace npgpu::ucx {
namespace {

const char* const kSharedMemory = R"(#
# UCP endpoint 
#
#               peer: <no debug data>
#                 lane[0]:  3:sysv/memory.0 md[2]           -> md[2]/sysv/sysdev[255] am am_bw#0
#                 lane[1]:  5:cma/memory.0 md[4]            -> md[4]/cma/sysdev[255] rma_bw#0
#
#                tag_send: 0..<egr/short>..93..<egr/bcopy>..8256..<rndv>..(inf)
#            tag_send_nbr: 0..<egr/short>..93..<egr/bcopy>..262144..<rndv>..(inf)
#           tag_send_sync: 0..<egr/short>..93..<egr/bcopy>..8256..<rndv>..(inf)
#
#                  rma_bw: mds rndv_rkey_size 9
#
)";

const char* const kTcp = R"(#
# UCP endpoint 
#
#               peer: <no debug data>
#                 lane[0]:  1:tcp/lo.0 md[0]                -> md[0]/tcp/sysdev[255] rma_bw#0 am am_bw#0
#                 lane[1]:  0:tcp/eth0.0 md[0]              -> md[0]/tcp/sysdev[255] rma_bw#1 wireup
#
#                tag_send: 0..<egr/short>..8185..<egr/zcopy>..8192..<rndv>..(inf)
#            tag_send_nbr: 0..<egr/short>..8185..<egr/bcopy>..262144..<rndv>..(inf)
#           tag_send_sync: 0..<egr/short>..8185..<egr/zcopy>..8192..<rndv>..(inf)
#
#                  rma_bw: mds [0] rndv_rkey_size 10
#
)";

const char* const kRma = R"(#
# UCP endpoint 
#
#               peer: <no debug data>
#                 lane[0]:  3:sysv/memory.0 md[2]           -> md[2]/sysv/sysdev[255] am am_bw#0
#                 lane[1]:  4:posix/memory.0 md[3]          -> md[3]/posix/sysdev[255]
#
#                  put[0]: 0..<short>..4294967296..<bcopy>..(inf)
#                  get[0]: 0..<bcopy>..(inf)
#                  put[1]: 0..<short>..4294967296..<bcopy>..(inf)
#                  get[1]: 0..<bcopy>..(inf)
#
#                  rma_bw: mds #
)";

// The same layout on a host with an InfiniBand port, as UCX prints RC and UD lanes.
const char* const kInfiniBand = R"(#
#                 lane[0]:  2:rc_mlx5/mlx5_0:1.0 md[1]      -> md[1]/ib/sysdev[255] rma_bw#0 am am_bw#0
#                 lane[1]:  4:ud_mlx5/mlx5_0:1.0 md[1]      -> md[1]/ib/sysdev[255] wireup
#
#                tag_send: 0..<egr/short>..172..<egr/bcopy>..8192..<egr/zcopy>..16384..<rndv>..(inf)
)";

const std::vector<NetworkInterface> kHost{
    {"lo", "loopback", "unknown", 0, 65536, "", -1},
    {"eth0", "ethernet", "up", 25, 1500, "0000:17:00.0", 0},
    {"mlx5_0:1", "infiniband", "ACTIVE", 200, 0, "0000:3b:00.0", 0},
};

TEST(UcxEndpointConfig, ReadsTheLanesAndWhereEachTagProtocolStarts) {
  const EndpointConfig config = parse_endpoint_config(kSharedMemory);
  ASSERT_EQ(config.lanes.size(), 2u);
  EXPECT_EQ(config.lanes[0].transport, "sysv");
  EXPECT_EQ(config.lanes[0].device, "memory");
  EXPECT_EQ(config.lanes[0].roles, "am am_bw#0");
  EXPECT_EQ(config.lanes[1].transport, "cma");
  EXPECT_EQ(config.tag_protocols, "0..<egr/short>..93..<egr/bcopy>..8256..<rndv>..(inf)") << "tag_send, not tag_send_nbr";
  EXPECT_TRUE(config.put_protocols.empty());
  EXPECT_EQ(describe_lanes(config.lanes), "sysv/memory (am am_bw#0), cma/memory (rma_bw#0)");
}

TEST(UcxEndpointConfig, ReadsPutProtocolsByLaneAndLanesWithoutRoles) {
  const EndpointConfig config = parse_endpoint_config(kRma);
  EXPECT_EQ(describe_lanes(config.lanes), "sysv/memory (am am_bw#0), posix/memory");
  EXPECT_EQ(config.tag_protocols, "");
  EXPECT_EQ(config.put_protocols, (std::vector<std::string>{"sysv/memory 0..<short>..4294967296..<bcopy>..(inf)",
                                                            "posix/memory 0..<short>..4294967296..<bcopy>..(inf)"}));
}

TEST(UcxEndpointConfig, NothingToReadIsUnknown) {
  const EndpointConfig config = parse_endpoint_config("");
  EXPECT_TRUE(config.lanes.empty());
  EXPECT_EQ(describe_lanes(config.lanes), "unknown");
}

TEST(UcxLinkPeak, NoneOnOneHost) {
  const LinkPeak peak = endpoint_link_peak(parse_endpoint_config(kSharedMemory), true, kHost);
  EXPECT_EQ(peak.bytes_per_second, 0);
  EXPECT_EQ(peak.how.rfind("none: both ranks are on one host, where UCX (sysv/memory (am am_bw#0), cma/memory", 0), 0u)
      << peak.how;
}

TEST(UcxLinkPeak, TheOneNetworkDeviceItsLanesUse) {
  const LinkPeak peak = endpoint_link_peak(parse_endpoint_config(kInfiniBand), false, kHost);
  EXPECT_DOUBLE_EQ(peak.bytes_per_second, 25e9) << "200 Gb/s / 8";
  EXPECT_EQ(peak.how.rfind("UCX over rc_mlx5, ud_mlx5, mlx5_0:1: 200000 Mb/s", 0), 0u) << peak.how;
}

TEST(UcxLinkPeak, UnknownWithWhyOverSeveralDevicesOrNone) {
  const LinkPeak several = endpoint_link_peak(parse_endpoint_config(kTcp), false, kHost);
  EXPECT_EQ(several.bytes_per_second, 0);
  EXPECT_EQ(several.how.rfind("unknown: UCX may spread messages over lo, eth0", 0), 0u) << several.how;
  const LinkPeak none = endpoint_link_peak(parse_endpoint_config(kSharedMemory), false, kHost);
  EXPECT_EQ(none.how.rfind("unknown: UCX named no network device", 0), 0u) << none.how;
}

}  // namespace
}  // namespace npgpu::ucx
