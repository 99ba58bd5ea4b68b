// `husk features` (runtime-spec features.md): only what this build of husk really implements. The
// seccomp, Landlock and mount option lists come from the modules that resolve those names.
#include <sys/capability.h>

#include "base/fs.hpp"
#include "base/json_writer.hpp"
#include "husk/container.hpp"
#include "landlock/landlock.hpp"
#include "mnt/mount_options.hpp"
#include "seccomp/names.hpp"
#include "spec/settings.hpp"

namespace husk {
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

template <typename Table>
void names(JsonWriter& w, const Table& table) {
    w.begin_array();
    for (const auto& entry : table) w.string(entry.name);
    w.end_array();
}

// features-linux.md "Seccomp": the names husk recognises (from the same tables prepare_seccomp resolves
// with), and the flags this kernel accepts as supportedFlags.
void seccomp_features(JsonWriter& w) {
    w.key("seccomp").begin_object().key("enabled").boolean(true);
    w.key("actions");
    names(w, seccomp::action_names());
    w.key("operators");
    names(w, seccomp::operator_names());
    w.key("archs");
    names(w, seccomp::arch_names());
    w.key("knownFlags");
    names(w, seccomp::flag_names());
    w.key("supportedFlags");
    strings(w, seccomp::supported_flag_names());
    w.end_object();
}

// Not in features-linux.md yet (the process.landlock proposal): what husk enforces on this kernel's ABI, by
// the names process.landlock takes. A kernel without Landlock says enabled false, abi 0.
void landlock_features(JsonWriter& w) {
    int abi = landlock::probe_abi().value_or(0);
    landlock::SupportedRights rights = landlock::supported_rights(abi);
    w.key("landlock").begin_object().key("enabled").boolean(abi > 0).key("abi").integer(abi);
    w.key("accessFS");
    strings(w, rights.access_fs);
    w.key("accessNetwork");
    strings(w, rights.access_network);
    w.key("scoped");
    strings(w, rights.scoped);
    w.end_object();
}

}  // namespace

std::string features_json() {
    JsonWriter w(JsonWriter::Style::pretty);
    w.begin_object();
    w.key("ociVersionMin").string("1.0.0");
    w.key("ociVersionMax").string("1.3.0");
    w.key("hooks");
    strings(w, {"prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop"});
    w.key("mountOptions");
    strings(w, mnt::feature_mount_options());
    w.key("linux").begin_object();
    w.key("namespaces");
    strings(w, {"cgroup", "ipc", "mount", "network", "pid", "time", "user", "uts"});
    w.key("capabilities");
    strings(w, capability_names());
    w.key("cgroup").begin_object();
    w.key("v1").boolean(false).key("v2").boolean(true).key("systemd").boolean(false);
    w.key("systemdUser").boolean(false).key("rdma").boolean(false);
    w.end_object();
    seccomp_features(w);
    landlock_features(w);
    w.key("apparmor").begin_object().key("enabled").boolean(true).end_object();
    w.key("selinux").begin_object().key("enabled").boolean(false).end_object();
    w.key("intelRdt").begin_object().key("enabled").boolean(false).end_object();
    w.key("mountExtensions").begin_object().key("idmap").begin_object().key("enabled").boolean(false).end_object().end_object();
    w.end_object();
    w.key("annotations").begin_object();
    w.key("run.husk.version").string("0.1.0");
    // features.md: annotation values are strings; the run.husk.* keys a config may set, comma-separated.
    std::string known;
    for (const spec::Setting& setting : spec::husk_settings()) {
        if (!known.empty()) known += ',';
        known += setting.annotation();
    }
    w.key("run.husk.annotations").string(known);
    w.end_object();
    w.end_object();
    return w.str();
}

}  // namespace husk
