#include "tcp/tcp_options.hpp"

#include <CLI/CLI.hpp>

#include "npgpu/sizes.hpp"

namespace npgpu {

std::shared_ptr<ModuleOptions> declare_tcp_options(CLI::App& group) {
  auto options = std::make_shared<TcpOptions>();
  group.add_option("--socket-buffer", options->socket_buffer_text, "Socket send and receive buffer size (default: the "
                   "system's)");
  group.add_option("--nodelay", options->nodelay, "TCP_NODELAY on or off (default on)")->check(CLI::IsMember({"on", "off"}));
  return options;
}

void TcpOptions::finish() {
  if (!socket_buffer_text.empty()) socket.buffer_bytes = parse_size(socket_buffer_text, "--socket-buffer");
  socket.nodelay = nodelay == "on";
}

}  // namespace npgpu
