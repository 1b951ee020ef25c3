#pragma once
// tcp's own options: the sockets' buffers and Nagle's algorithm.
#include <memory>
#include <string>

#include "npgpu/module_options.hpp"
#include "tcp/socket.hpp"

namespace npgpu {

struct TcpOptions : ModuleOptions {
  void finish() override;

  std::string socket_buffer_text;  // --socket-buffer as given
  std::string nodelay = "on";      // --nodelay on|off
  tcp::SocketOptions socket;       // what finish() makes of them
};

// tcp's option group (the catalog's DeclareOptions).
std::shared_ptr<ModuleOptions> declare_tcp_options(CLI::App& group);

}  // namespace npgpu
