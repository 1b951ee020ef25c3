// tcp between two ranks through real sockets on this machine, checked against mpi over TCP.
#include <gtest/gtest.h>

#include "checks.hpp"
#include "support/command.hpp"

namespace npgpu::test {
namespace {

ScheduleOptions fac2_upto(std::uint64_t upper) {
  ScheduleOptions schedule;
  schedule.upper = upper;
  schedule.fac2 = true;
  return schedule;
}

CommandResult run_tcp(const std::vector<std::string>& options) {
  std::vector<std::string> argv = mpirun_npgpu(2);
  argv.insert(argv.end(), {"--module", "tcp"});
  argv.insert(argv.end(), options.begin(), options.end());
  return run_command(argv);
}

std::vector<std::string> sweep_to(const std::string& upper, std::vector<std::string> more) {
  std::vector<std::string> options = quick_sweep(upper);
  options.push_back("--fac2");
  options.insert(options.end(), more.begin(), more.end());
  return options;
}

TEST(TcpModule, EveryPatternMovesIntactDataOverLoopback) {
  TempDir dir;
  const std::string record = dir.file("tcp.h5");
  for (const char* pattern : {"pingpong", "stream", "bidir"}) {
    const CommandResult result = run_tcp(sweep_to("256K", {"--pattern", pattern, "--window", "8", "--check", "-o", record}));
    ASSERT_EQ(result.exit_code, 0) << pattern << ": " << result.err;
    EXPECT_NE(result.out.find("module tcp, pattern " + std::string(pattern)), std::string::npos) << result.out;
  }
  H5File file(record);
  for (const char* run : {"/runs/0001", "/runs/0002", "/runs/0003"}) {
    expect_sound_curve(file, std::string(run) + "/curves/rank0", fac2_upto(256 * 1024));
    EXPECT_NE(file.text_attribute(run, "data_check").find("one message checked byte for byte"),
            std::string::npos);
  }
  EXPECT_EQ(file.doubles("/runs/0002/curves/rank0/transfers_per_rep")[0], 8) << "stream: the window";
  const std::vector<double> bytes = file.doubles("/runs/0003/curves/rank0/bytes");
  EXPECT_EQ(file.doubles("/runs/0003/curves/rank0/bytes_per_transfer").back(), 2 * bytes.back()) << "bidir: both ways";
}

TEST(TcpModule, RecordsTheConnectionAndWhatTheKernelGranted) {
  TempDir dir;
  const CommandResult result =
      run_tcp(sweep_to("4K", {"--socket-buffer", "256K", "--nodelay", "off", "-o", dir.file("tcp.h5")}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("tcp_interface: lo"), std::string::npos) << "the console header says where: " << result.out;
  H5File file(dir.file("tcp.h5"));
  const std::string rank0 = "/runs/0001/system/placement/rank0", rank1 = "/runs/0001/system/placement/rank1";
  EXPECT_EQ(file.text_attribute(rank0, "tcp_interface"), "lo");
  EXPECT_EQ(file.text_attribute(rank0, "tcp_same_host"), "yes (loopback)");
  EXPECT_EQ(file.text_attribute(rank0, "tcp_peer"), file.text_attribute(rank1, "tcp_local")) << "one connection";
  EXPECT_EQ(file.text_attribute(rank0, "tcp_peer").rfind("127.0.0.1:", 0), 0u);
  EXPECT_EQ(file.text_attribute(rank0, "tcp_nodelay"), "off");
  EXPECT_EQ(file.text_attribute(rank0, "tcp_socket_buffer_asked_bytes"), "262144");
  for (const char* granted : {"tcp_send_buffer_granted_bytes", "tcp_receive_buffer_granted_bytes"})
    EXPECT_GE(std::stod(file.text_attribute(rank1, granted)), 262144) << granted << ": Linux grants double";
}

// The same link through MPI's TCP transport: raw sockets must be of the same order, neither far
// behind (a broken transfer loop) nor far ahead (a measurement that skipped work). The factors
// are loose because two ranks on a 2-core virtual machine are noisy. Loopback's peak is bimodal
// here, a launch of either tool near 0.5 GB/s or near 2-3 GB/s (of 12 launches each, tcp's high
// in 3, mpi's in 1), and one tool high beside the other low read x4-5, in 1 launch of 6. So the
// pair is launched again, up to 3 times, for one within the factors; a broken loop has none.
TEST(TcpModule, OfTheSameOrderAsMpiOverTcp) {
  struct Round {
    double mpi_latency, tcp_latency, mpi_peak, tcp_peak;
    bool of_the_same_order() const {
      return tcp_latency < 5 * mpi_latency && tcp_latency > mpi_latency / 5 && tcp_peak > mpi_peak / 4 &&
             tcp_peak < mpi_peak * 4;
    }
  };
  TempDir dir;
  const std::string mpi_curve = "/runs/0001/curves/rank0", tcp_curve = "/runs/0002/curves/rank0";
  std::string record;
  Round round{};
  for (int launch = 1; launch == 1 || (launch <= 3 && !round.of_the_same_order()); ++launch) {
    record = dir.file("both" + std::to_string(launch) + ".h5");
    const std::vector<std::string> options = sweep_to("1M", {"-o", record});
    const CommandResult over_mpi =
        run_command(joined(joined(mpirun_npgpu(2, {"pml", "ob1", "btl", "tcp,self"}), {"--module", "mpi"}), options));
    ASSERT_EQ(over_mpi.exit_code, 0) << over_mpi.err;
    const CommandResult raw = run_tcp(options);
    ASSERT_EQ(raw.exit_code, 0) << raw.err;
    H5File file(record);
    round = {file.number_attribute(mpi_curve, "summary_latency_s"), file.number_attribute(tcp_curve, "summary_latency_s"),
             file.number_attribute(mpi_curve, "summary_peak_throughput_B_per_s"),
             file.number_attribute(tcp_curve, "summary_peak_throughput_B_per_s")};
  }
  EXPECT_TRUE(round.of_the_same_order()) << "apart in 3 launches; the last: tcp " << round.tcp_latency << " s, "
                                         << round.tcp_peak << " B/s; mpi over tcp " << round.mpi_latency << " s, "
                                         << round.mpi_peak << " B/s";
  H5File file(record);
  for (const std::string& curve : {mpi_curve, tcp_curve}) {
    EXPECT_EQ(file.number_attribute(curve, "link_peak_B_per_s"), 0) << curve << ": one host has no network link";
    EXPECT_EQ(file.text_attribute(curve, "link_peak_how").rfind("none: both ranks are on one host", 0), 0u)
        << curve << ": " << file.text_attribute(curve, "link_peak_how");
  }
}

}  // namespace
}  // namespace npgpu::test
