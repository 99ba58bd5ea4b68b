#include "cli/create_options.hpp"

#include <limits>
#include <string>

#include "spec/settings.hpp"

namespace husk::cli {

void add_setting_options(OptionSet& options, std::string_view caption) {
    options.add_group(caption);
    for (const spec::Setting& setting : spec::husk_settings()) {
        Option flag{setting.name, 0, Takes::text, setting.help, nullptr, spec::husk_annotation_prefix};
        switch (setting.flag) {
            case spec::FlagKind::value: break;
            case spec::FlagKind::repeated: flag.takes = Takes::texts; break;
            case spec::FlagKind::presence: flag.takes = Takes::nothing; break;
            case spec::FlagKind::none: continue;
        }
        options.add_to_group(flag);
    }
}

Result<spec::HuskSettings> read_setting_flags(const OptionValues& values) {
    spec::HuskSettings settings;
    for (const spec::Setting& setting : spec::husk_settings()) {
        const std::string_view name = setting.name;
        if (setting.flag == spec::FlagKind::none || !values.has(name)) continue;
        std::string value = "true";
        if (setting.flag == spec::FlagKind::value) value = values.text(name);
        if (setting.flag == spec::FlagKind::repeated) {
            // The entries join into the annotation's comma-separated list.
            value.clear();
            for (const std::string& entry : values.texts(name))
                value += (value.empty() ? "" : ",") + entry;
        }
        TRY(spec::parse_setting_flag(setting, value, settings));
    }
    return settings;
}

OptionSet create_options() {
    static constexpr Option runc_flags[] = {
        {"bundle", 'b', Takes::text, "bundle directory (default: the current directory)", ""},
        {"config", 'f', Takes::text, "config file, relative to the bundle (default: config.json)", ""},
        {"pid-file", 0, Takes::text, "write init's host pid to this file", ""},
        {"console-socket", 0, Takes::text, "unix socket that receives the pty master (process.terminal)", ""},
        {"no-pivot", 0, Takes::nothing, "use MS_MOVE + chroot instead of pivot_root (for a rootfs on ramfs)"},
        {"no-new-keyring", 0, Takes::nothing, "do not create a session keyring (husk never does)"},
        {"preserve-fds", 0, Takes::int_number, "pass fds 3..3+N-1 to the container", "0"},
    };
    OptionSet options;
    options.add(runc_flags);
    add_setting_options(options, "\nhusk's settings (each is its run.husk.* annotation spelled as a flag, and wins "
                                 "over the same annotation in config.json)");
    return options;
}

Result<CreateOptions> read_create_options(const OptionValues& values) {
    CreateOptions create;
    create.bundle = values.text("bundle");
    create.config = values.text("config");
    create.pid_file = values.text("pid-file");
    create.console_socket = values.text("console-socket");
    create.no_pivot = values.has("no-pivot");
    create.no_new_keyring = values.has("no-new-keyring");
    create.preserve_fds = values.int_number("preserve-fds");
    // runc's flag is unsigned, so "-1" is a usage error there; here it used to wrap below fd 3. The top
    // keeps 3 + N within an int.
    if (create.preserve_fds < 0 || create.preserve_fds > std::numeric_limits<int>::max() - 3)
        return fail_msg("--preserve-fds: " + std::to_string(create.preserve_fds) +
                        " is not a number of fds (0 or more)");
    create.overrides = TRY(read_setting_flags(values));
    return create;
}

}  // namespace husk::cli
