#include "cli/features.hpp"

#include <sys/capability.h>

#include "base/fs.hpp"
#include "base/json_writer.hpp"

namespace husk::cli {
namespace {

std::vector<std::string> capability_names() {
    std::vector<std::string> names;
    int last = CAP_LAST_CAP;
    if (auto text = read_file("/proc/sys/kernel/cap_last_cap")) last = std::stoi(*text);
    for (int cap = 0; cap <= last; ++cap) {
        char* name = cap_to_name(static_cast<cap_value_t>(cap));
        if (name == nullptr) continue;
        std::string upper = name;
        cap_free(name);
        if (upper.rfind("cap_", 0) != 0) continue;  // libcap prints unknown numbers as digits
        for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        names.push_back(upper);
    }
    return names;
}

void strings(JsonWriter& w, const std::vector<std::string>& values) {
    w.begin_array();
    for (const auto& v : values) w.string(v);
    w.end_array();
}

}  // namespace

const std::vector<std::string>& feature_mount_options() {
    static const std::vector<std::string> options = {
        "async", "atime", "bind", "defaults", "dev", "diratime", "dirsync", "exec", "mand", "noatime",
        "nodev", "nodiratime", "noexec", "nomand", "norelatime", "nostrictatime", "nosuid", "private",
        "rbind", "relatime", "remount", "ro", "rprivate", "rshared", "rslave", "runbindable", "rw",
        "shared", "slave", "strictatime", "suid", "sync", "unbindable", "ratime", "rdiratime", "rexec",
        "rnoatime", "rnodev", "rnodiratime", "rnoexec", "rnosuid", "rrelatime", "rro", "rrw",
        "rstrictatime", "rdev", "rsuid", "rnorelatime", "rnostrictatime",
    };
    return options;
}

std::string features_json() {
    JsonWriter w(JsonWriter::Style::pretty);
    w.begin_object();
    w.key("ociVersionMin").string("1.0.0");
    w.key("ociVersionMax").string("1.3.0");
    w.key("hooks");
    strings(w, {"prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop"});
    w.key("mountOptions");
    strings(w, feature_mount_options());
    w.key("linux").begin_object();
    w.key("namespaces");
    strings(w, {"cgroup", "ipc", "mount", "network", "pid", "time", "user", "uts"});
    w.key("capabilities");
    strings(w, capability_names());
    w.key("cgroup").begin_object();
    w.key("v1").boolean(false).key("v2").boolean(true).key("systemd").boolean(false);
    w.key("systemdUser").boolean(false).key("rdma").boolean(false);
    w.end_object();
    w.key("seccomp").begin_object().key("enabled").boolean(false).end_object();
    w.key("apparmor").begin_object().key("enabled").boolean(false).end_object();
    w.key("selinux").begin_object().key("enabled").boolean(false).end_object();
    w.key("intelRdt").begin_object().key("enabled").boolean(false).end_object();
    w.key("mountExtensions").begin_object().key("idmap").begin_object().key("enabled").boolean(false).end_object().end_object();
    w.end_object();
    w.key("annotations").begin_object();
    w.key("run.husk.version").string("0.1.0");
    w.end_object();
    w.end_object();
    return w.str();
}

}  // namespace husk::cli
