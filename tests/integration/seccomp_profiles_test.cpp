// Real-world seccomp profiles through the real binary: a default-deny allow-list that lets through
// only what a busybox shell needs plus the calls every runtime makes after loading the filter, and podman's
// default profile converted the way podman writes it into config.json. Each container must start under its
// filter and see it in force from inside (/proc/self/status "Seccomp: 2").
#include <catch2/catch.hpp>

#include <sys/utsname.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "harness.hpp"
#include "monitor_support.hpp"

using namespace husk::test;

namespace {

// Prints the Seccomp line of its own status with shell builtins only (no fork, no other program).
const std::vector<std::string> seccomp_line = {
    "/bin/sh", "-c", "while read -r line; do case $line in Seccomp:*) echo \"$line\";; esac; done < /proc/self/status"};

// What busybox's static sh calls to run seccomp_line (strace of Debian's busybox-static 1.35).
const std::vector<std::string> busybox_sh_calls = {
    "arch_prctl", "brk",        "dup2",        "exit_group",      "fcntl",   "getpid",  "getppid",
    "getrandom",  "getuid",     "mprotect",    "newfstatat",      "openat",  "poll",    "prctl",
    "prlimit64",  "readlink",   "rseq",        "rt_sigaction",    "rt_sigprocmask", "set_robust_list",
    "set_tid_address", "uname"};

// What every runtime calls after loading the filter (runc, crun, husk): read (the start handshake, for husk
// also the status fd opened earlier), write (the sync channel), close, execve.
const std::vector<std::string> runtime_last_calls = {"read", "write", "close", "execve"};

// With noNewPrivileges false the filter comes before the credentials (the kernel needs CAP_SYS_ADMIN to load
// it then), so the profile must allow those calls too, as with runc.
const std::vector<std::string> credential_calls = {"capset", "setgroups", "setresgid", "setresuid", "umask"};

Json allow_list(std::vector<std::string> names) {
    return Json::object({{"defaultAction", "SCMP_ACT_ERRNO"},
                         {"syscalls", Json::array({Json::object({{"names", Json::strings(names)},
                                                                 {"action", "SCMP_ACT_ALLOW"}})})}});
}

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// A bundle that runs seccomp_line under `seccomp`.
Bundle shell_under(Sandbox& sb, Json seccomp) {
    Bundle b = sb.bundle();
    b.config["process"]["args"] = Json::strings(seccomp_line);
    b.config["linux"]["seccomp"] = std::move(seccomp);
    return b;
}

// Runs the bundle in the foreground, checks what it printed and what state recorded, deletes the container
// and returns the recorded husk.security.
Json check_runs_under_filter(Sandbox& sb, Bundle& b, const std::string& name, bool no_new_privileges) {
    std::string id = sb.id(name);
    Output run = sb.run(b, id, {"--keep"});
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    CHECK(lines(run.out) == std::vector<std::string>{"Seccomp:\t2"});
    Json st = wait_for_exit(sb, id);
    INFO(st.dump());
    CHECK(st["husk"]["security"]["seccomp"].str() == "filter");
    CHECK(st["husk"]["security"]["noNewPrivileges"].boolean() == no_new_privileges);
    CHECK(st["husk"]["exit"]["reason"].str() == "exited");
    delete_and_check(sb, id);
    return st["husk"]["security"];
}

// ---- podman's conversion (containers/common pkg/seccomp, as podman 4.3 / common 0.50 does it) ----

bool contains(const std::vector<std::string>& list, const std::string& item) {
    return std::find(list.begin(), list.end(), item) != list.end();
}

std::vector<std::string> strings_at(const Json& object, std::string_view key) {
    const Json* value = object.find(key);
    return value != nullptr && value->is_array() ? value->strs() : std::vector<std::string>{};
}

std::string string_at(const Json& object, std::string_view key) {
    const Json* value = object.find(key);
    return value != nullptr && value->type() == Json::Type::string ? value->str() : "";
}

// "5.10" <= "6.1.0-18-amd64", compared numerically part by part.
bool kernel_at_least(const std::string& wanted) {
    utsname names{};
    uname(&names);
    int have[3] = {}, want[3] = {};
    std::sscanf(names.release, "%d.%d.%d", &have[0], &have[1], &have[2]);
    std::sscanf(wanted.c_str(), "%d.%d.%d", &want[0], &want[1], &want[2]);
    return std::lexicographical_compare(want, want + 3, have, have + 3) ||
           std::equal(want, want + 3, have);
}

// The profile format (`names`, `includes`/`excludes` by caps, arches and minKernel, `archMap`) → the OCI form
// podman writes: the native arch's archMap entry and its sub-architectures, and the entries whose includes
// hold and whose excludes do not, for the container's bounding set, with names, action, args, errnoRet.
Json podman_seccomp(const Json& profile, const std::vector<std::string>& bounding) {
    const std::string arch = "amd64";  // libseccomp-golang's name of the native arch; this suite runs on x86_64
    Json out = Json::object({{"defaultAction", profile["defaultAction"]}});
    if (const Json* errno_ret = profile.find("defaultErrnoRet")) out["defaultErrnoRet"] = *errno_ret;
    Json architectures = Json::array();
    if (const Json* map = profile.find("archMap"))
        for (const Json& entry : map->items())
            if (entry["architecture"].str() == "SCMP_ARCH_X86_64") {
                architectures.push_back(entry["architecture"]);
                for (const std::string& sub : strings_at(entry, "subArchitectures")) architectures.push_back(sub);
            }
    out["architectures"] = architectures;
    Json syscalls = Json::array();
    for (const Json& call : profile["syscalls"].items()) {
        const Json* excludes = call.find("excludes");
        const Json* includes = call.find("includes");
        if (excludes != nullptr) {
            if (contains(strings_at(*excludes, "arches"), arch)) continue;
            bool excluded = false;
            for (const std::string& cap : strings_at(*excludes, "caps")) excluded |= contains(bounding, cap);
            if (excluded) continue;
            std::string min_kernel = string_at(*excludes, "minKernel");
            if (!min_kernel.empty() && kernel_at_least(min_kernel)) continue;
        }
        if (includes != nullptr) {
            std::vector<std::string> arches = strings_at(*includes, "arches");
            if (!arches.empty() && !contains(arches, arch)) continue;
            bool missing = false;
            for (const std::string& cap : strings_at(*includes, "caps")) missing |= !contains(bounding, cap);
            if (missing) continue;
            std::string min_kernel = string_at(*includes, "minKernel");
            if (!min_kernel.empty() && !kernel_at_least(min_kernel)) continue;
        }
        Json rule = Json::object({{"names", call.contains("names") ? call["names"] : Json::array({call["name"]})},
                                  {"action", call["action"]}});
        if (const Json* args = call.find("args"); args != nullptr && args->is_array() && args->size() > 0) {
            Json converted = Json::array();
            for (const Json& arg : args->items())
                converted.push_back(Json::object({{"index", arg["index"]}, {"value", arg["value"]},
                                                  {"valueTwo", arg.contains("valueTwo") ? arg["valueTwo"] : Json(0)},
                                                  {"op", arg["op"]}}));
            rule["args"] = converted;
        }
        if (const Json* errno_ret = call.find("errnoRet"); errno_ret != nullptr && !errno_ret->is_null())
            rule["errnoRet"] = *errno_ret;
        syscalls.push_back(rule);
    }
    out["syscalls"] = syscalls;
    return out;
}

// podman 4.3's default capabilities (containers.conf default_capabilities).
const std::vector<std::string> podman_caps = {"CAP_CHOWN",  "CAP_DAC_OVERRIDE",     "CAP_FOWNER",  "CAP_FSETID",
                                              "CAP_KILL",   "CAP_NET_BIND_SERVICE", "CAP_SETFCAP", "CAP_SETGID",
                                              "CAP_SETPCAP", "CAP_SETUID",          "CAP_SYS_CHROOT"};

const char* const podman_profile_path = "/usr/share/containers/seccomp.json";

}  // namespace

TEST_CASE("a default-deny allow-list of busybox's calls and the runtime's last calls runs the container under it",
          "[integration][seccomp]") {
    Sandbox sb;
    Bundle b = shell_under(sb, allow_list(busybox_sh_calls + runtime_last_calls));
    check_runs_under_filter(sb, b, "allowlist", true);
}

TEST_CASE("without noNewPrivileges the same allow-list plus the credential calls runs the container under it",
          "[integration][seccomp]") {
    Sandbox sb;
    Bundle b = shell_under(sb, allow_list(busybox_sh_calls + runtime_last_calls + credential_calls));
    b.config["process"]["noNewPrivileges"] = false;
    check_runs_under_filter(sb, b, "allowlist-nonnp", false);
}

// [no-sanitizer]: under ASan, init's failure path enters the sanitizer runtime (__asan_handle_no_return before
// _exit calls sigaltstack), which this allow-list denies: ASan aborts init before it can report (docs/testing.md).
TEST_CASE("a call the profile denies after the filter is loaded is named as a possible seccomp denial",
          "[integration][seccomp][no-sanitizer]") {
    Sandbox sb;
    // No execve: init starts, but cannot become the workload. The failure must say that seccomp may be why.
    Bundle b = shell_under(sb, allow_list(busybox_sh_calls + std::vector<std::string>{"read", "write", "close"}));
    std::string id = sb.id("denied");
    Output run = sb.run(b, id, {"--keep"});
    INFO(run.describe());
    CHECK(run.exit_code != 0);
    Json st = wait_for_exit(sb, id);
    INFO(st.dump());
    CHECK(st["husk"]["exit"]["reason"].str() == "setup-failed");
    CHECK_THAT(st["husk"]["exit"]["detail"].str(),
               Catch::Matchers::Contains("linux.seccomp is in force and may deny this call: exec \"/bin/sh\""));
    delete_and_check(sb, id);
}

TEST_CASE("a profile that kills one of init's last calls fails create naming SIGSYS and seccomp",
          "[integration][seccomp]") {
    Sandbox sb;
    // No write, and a default that kills: init dies of SIGSYS when it reports its posture.
    Json profile = allow_list(busybox_sh_calls + std::vector<std::string>{"read", "close", "execve"});
    profile["defaultAction"] = "SCMP_ACT_KILL_PROCESS";
    Bundle b = shell_under(sb, profile);
    Output run = sb.run(b, sb.id("killed"));
    INFO(run.describe());
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.err, Catch::Matchers::Contains("container init was killed by SIGSYS during setup: linux.seccomp"));
    check_nothing_left(sb);
}

TEST_CASE("podman's default profile, converted as podman writes it into config.json, runs the container under it",
          "[integration][seccomp]") {
    std::string text = read_file(podman_profile_path);
    if (text.empty()) FAIL(std::string(podman_profile_path) + " is missing: tests/install-deps.sh --tests installs it");
    Json converted = podman_seccomp(Json::parse(text), podman_caps);
    INFO(converted.dump());
    Sandbox sb;
    Bundle b = shell_under(sb, converted);
    // As podman 4.3 writes it by default: its capabilities, and noNewPrivileges false (the filter then comes
    // before the credentials, so the profile sees husk's capset/setresuid calls too).
    for (const char* set : {"bounding", "effective", "permitted"})
        b.config["process"]["capabilities"][set] = Json::strings(podman_caps);
    b.config["process"]["noNewPrivileges"] = false;
    Json security = check_runs_under_filter(sb, b, "podman", false);
    // setns is allowed by the big list and denied (EPERM) by the CAP_SYS_ADMIN-less entry: the deny is kept.
    bool setns_settled = false;
    for (const Json& resolved : security["seccompResolved"].items())
        if (resolved["syscall"].str() == "setns") {
            setns_settled = true;
            CHECK_THAT(resolved["kept"].str(), Catch::Matchers::Contains("SCMP_ACT_ERRNO (errnoRet 1)"));
            CHECK_THAT(resolved["dropped"].at(0).str(), Catch::Matchers::Contains("SCMP_ACT_ALLOW"));
        }
    CHECK(setns_settled);
}
