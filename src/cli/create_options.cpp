#include "cli/create_options.hpp"

namespace husk::cli {

po::options_description create_options_description() {
    po::options_description options;
    options.add_options()
        ("bundle,b", po::value<std::string>()->default_value(""), "bundle directory (default: the current directory)")
        ("config,f", po::value<std::string>()->default_value(""), "config file, relative to the bundle (default: config.json)")
        ("pid-file", po::value<std::string>()->default_value(""), "write init's host pid to this file")
        ("console-socket", po::value<std::string>()->default_value(""), "unix socket that receives the pty master (process.terminal)")
        ("no-pivot", "use MS_MOVE + chroot instead of pivot_root (for a rootfs on ramfs)")
        ("no-new-keyring", "do not create a session keyring (husk never does)")
        ("preserve-fds", po::value<int>()->default_value(0), "pass fds 3..3+N-1 to the container");
    return options;
}

CreateOptions read_create_options(const po::variables_map& vm) {
    CreateOptions create;
    if (vm.count("id")) create.id = vm["id"].as<std::string>();
    create.bundle = vm["bundle"].as<std::string>();
    create.config = vm["config"].as<std::string>();
    create.pid_file = vm["pid-file"].as<std::string>();
    create.console_socket = vm["console-socket"].as<std::string>();
    create.no_pivot = vm.count("no-pivot") > 0;
    create.no_new_keyring = vm.count("no-new-keyring") > 0;
    create.preserve_fds = vm["preserve-fds"].as<int>();
    return create;
}

}  // namespace husk::cli
