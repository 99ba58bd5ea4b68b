// The serving shim: containerd's ttrpc connections on the listening socket `start` made, each request framed
// and decoded (ttrpc/frame.hpp) and handed to the Task service, every answer written back on its stream.
#pragma once

#include <string>

#include "husk/unique_fd.hpp"
#include "shim/args.hpp"

namespace husk::shim {

// Runs until Shutdown leaves no task; the socket file at `socket_path` is removed then. The exit status.
int serve(UniqueFd listener, const ShimArgs& args, const std::string& socket_path);

// The binary's entry when it is called as containerd-shim-husk-v2 (cli/main.cpp).
int shim_main(int argc, char** argv);

}  // namespace husk::shim
