#pragma once
// ucx's own options: which UCP operation moves the messages. No UCX here: the group is declared in
// every build, so that --help and the refusals know it where UCX is missing.
#include <memory>
#include <string>

#include "npgpu/module_options.hpp"

namespace npgpu {

struct UcxOptions : ModuleOptions {
  std::string operation = "tag";  // --operation: tag (ucp_tag_send_nbx/ucp_tag_recv_nbx) or put
};

// ucx's option group (the catalog's DeclareOptions).
std::shared_ptr<ModuleOptions> declare_ucx_options(CLI::App& group);

}  // namespace npgpu
