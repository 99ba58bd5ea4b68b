#include "cli/create_options.hpp"

#include <limits>
#include <string>

#include "spec/settings.hpp"

namespace husk::cli {

po::options_description setting_options_description(const std::string& caption) {
    po::options_description options(caption);
    for (const spec::Setting& setting : spec::husk_settings()) {
        if (setting.flag == spec::FlagKind::none) continue;
        // Boost copies the name and the text.
        const std::string name(setting.name);
        const std::string help = std::string(setting.help) + " (" + setting.annotation() + ")";
        switch (setting.flag) {
            case spec::FlagKind::value:
                options.add_options()(name.c_str(), po::value<std::string>(), help.c_str());
                break;
            case spec::FlagKind::repeated:
                options.add_options()(name.c_str(), po::value<std::vector<std::string>>(), help.c_str());
                break;
            case spec::FlagKind::presence:
                options.add_options()(name.c_str(), help.c_str());
                break;
            case spec::FlagKind::none: break;
        }
    }
    return options;
}

Result<spec::HuskSettings> read_setting_flags(const po::variables_map& vm) {
    spec::HuskSettings settings;
    for (const spec::Setting& setting : spec::husk_settings()) {
        const std::string name(setting.name);
        if (setting.flag == spec::FlagKind::none || !vm.count(name)) continue;
        std::string value = "true";
        if (setting.flag == spec::FlagKind::value) value = vm[name].as<std::string>();
        if (setting.flag == spec::FlagKind::repeated) {
            // The entries join into the annotation's comma-separated list.
            value.clear();
            for (const std::string& entry : vm[name].as<std::vector<std::string>>())
                value += (value.empty() ? "" : ",") + entry;
        }
        TRY(spec::parse_setting_flag(setting, value, settings));
    }
    return settings;
}

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
    options.add(setting_options_description(
        "\nhusk's settings (each is its run.husk.* annotation spelled as a flag, and wins over the same annotation in "
        "config.json)"));
    return options;
}

Result<CreateOptions> read_create_options(const po::variables_map& vm) {
    CreateOptions create;
    create.bundle = vm["bundle"].as<std::string>();
    create.config = vm["config"].as<std::string>();
    create.pid_file = vm["pid-file"].as<std::string>();
    create.console_socket = vm["console-socket"].as<std::string>();
    create.no_pivot = vm.count("no-pivot") > 0;
    create.no_new_keyring = vm.count("no-new-keyring") > 0;
    create.preserve_fds = vm["preserve-fds"].as<int>();
    // runc's flag is unsigned, so "-1" is a usage error there; here it used to wrap below fd 3. The top
    // keeps 3 + N within an int.
    if (create.preserve_fds < 0 || create.preserve_fds > std::numeric_limits<int>::max() - 3)
        return fail_msg("--preserve-fds: " + std::to_string(create.preserve_fds) +
                        " is not a number of fds (0 or more)");
    create.overrides = TRY(read_setting_flags(vm));
    return create;
}

}  // namespace husk::cli
