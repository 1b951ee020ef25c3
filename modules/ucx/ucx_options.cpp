#include "ucx/ucx_options.hpp"

#include <CLI/CLI.hpp>

namespace npgpu {

std::shared_ptr<ModuleOptions> declare_ucx_options(CLI::App& group) {
  auto options = std::make_shared<UcxOptions>();
  group
      .add_option("--operation", options->operation,
                  "UCP operation: tag (ucp_tag_send_nbx/ucp_tag_recv_nbx; default) or put (ucp_put_nbx into the peer's "
                  "memory, then ucp_ep_flush_nbx and a 0-byte tag message as the notice)")
      ->check(CLI::IsMember({"tag", "put"}));
  return options;
}

}  // namespace npgpu
