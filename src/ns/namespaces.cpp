#include "ns/namespaces.hpp"

#include <fcntl.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "base/procfs.hpp"

#include "base/fs.hpp"

namespace husk::ns {
namespace {

struct Kind {
    const char* name;
    int flag;
};
constexpr Kind kinds[] = {
    {"pid", CLONE_NEWPID},   {"network", CLONE_NEWNET}, {"mount", CLONE_NEWNS},     {"ipc", CLONE_NEWIPC},
    {"uts", CLONE_NEWUTS},   {"user", CLONE_NEWUSER},   {"cgroup", CLONE_NEWCGROUP}, {"time", CLONE_NEWTIME},
};

const char* kind_name(int flag) {
    for (const Kind& k : kinds)
        if (k.flag == flag) return k.name;
    return "unknown";
}

std::string format_maps(const std::vector<spec::IdMapping>& maps) {
    std::string out;
    for (const auto& m : maps)
        out += std::to_string(m.container_id) + " " + std::to_string(m.host_id) + " " + std::to_string(m.size) + "\n";
    return out;
}

// Opens a namespace file and checks that it is the namespace type the spec says it is (NS_GET_NSTYPE).
Result<UniqueFd> open_namespace(const std::string& field, const std::string& path, int flag) {
    auto fd = open_fd(path, O_RDONLY);
    if (!fd) return fail(fd.error().context(field));
    int type = ::ioctl(fd->get(), NS_GET_NSTYPE);
    if (type < 0) return fail_sys(errno, field + ": " + path + " is not a namespace file (NS_GET_NSTYPE)");
    if (type != flag)
        return fail_msg(field + ": \"" + path + "\" is a " + kind_name(type) + " namespace, not " + kind_name(flag));
    return fd;
}

}  // namespace

Result<NamespacePlan> prepare_namespaces(const spec::Linux& linux, bool rootless) {
    NamespacePlan plan;
    for (std::size_t i = 0; i < linux.namespaces.size(); ++i) {
        const auto& entry = linux.namespaces[i];
        std::string field = "linux.namespaces[" + std::to_string(i) + "]";
        int flag = 0;
        for (const Kind& k : kinds)
            if (entry.type == k.name) flag = k.flag;
        if (flag == 0) return fail_msg(field + ".type: unknown namespace \"" + entry.type + "\"");
        if (entry.path.empty()) {
            if (flag == CLONE_NEWTIME) plan.new_time = true;  // unshared by the spawner, see ForChildren
            else plan.clone_flags |= static_cast<std::uint64_t>(flag);
            plan.new_user |= flag == CLONE_NEWUSER;
            plan.new_net |= flag == CLONE_NEWNET;
            plan.new_uts |= flag == CLONE_NEWUTS;
            plan.new_mount |= flag == CLONE_NEWNS;
            continue;
        }
        UniqueFd fd = TRY(open_namespace(field + ".path", entry.path, flag));
        if (flag == CLONE_NEWUSER) plan.join_user = std::move(fd);
        else if (flag == CLONE_NEWPID) plan.join_pid = std::move(fd);
        else plan.joins.push_back(Join{std::move(fd), flag});
    }
    if (plan.join_user) {
        // Namespaces created after joining a user namespace must be owned by it, so the child unshares them
        // itself. A new pid namespace cannot be made that way for the child itself (it would apply to its
        // children only), so that combination is refused rather than silently built differently.
        if (plan.clone_flags & CLONE_NEWPID)
            return fail_msg("linux.namespaces: a new pid namespace together with a user namespace joined by path is not supported");
        plan.unshare_flags = plan.clone_flags;
        plan.clone_flags = 0;
    }
    if (plan.new_user) {
        plan.uid_map = format_maps(linux.uid_mappings);
        plan.gid_map = format_maps(linux.gid_mappings);
        plan.uid_mappings = linux.uid_mappings;
        plan.gid_mappings = linux.gid_mappings;
        plan.map_writer =
            TRY(choose_map_writer(linux.uid_mappings, linux.gid_mappings, rootless, ::geteuid(), ::getegid()));
        const auto maps_zero = [](const std::vector<spec::IdMapping>& maps) {
            for (const spec::IdMapping& m : maps)
                if (m.container_id == 0) return true;
            return false;
        };
        plan.root_mapped = maps_zero(linux.uid_mappings) && maps_zero(linux.gid_mappings);
    }
    for (const auto& [clock, offset] : linux.time_offsets)
        plan.time_offsets += clock + " " + std::to_string(offset.secs) + " " + std::to_string(offset.nanosecs) + "\n";
    return plan;
}

Result<ForChildren> ForChildren::enter(const NamespacePlan& plan) {
    ForChildren saved;
    if (plan.join_pid) {
        saved.own_pid_ = TRY(open_fd("/proc/self/ns/pid_for_children", O_RDONLY));
        if (::setns(plan.join_pid.get(), CLONE_NEWPID) != 0) return fail_sys(errno, "setns", "pid namespace");
    }
    if (plan.join_time) {
        saved.own_time_ = TRY(open_fd("/proc/self/ns/time_for_children", O_RDONLY));
        if (::setns(plan.join_time.get(), CLONE_NEWTIME) != 0) {
            (void)saved.restore();
            return fail_sys(errno, "setns", "time namespace");
        }
    } else if (plan.new_time) {
        saved.own_time_ = TRY(open_fd("/proc/self/ns/time_for_children", O_RDONLY));
        if (::unshare(CLONE_NEWTIME) != 0) return fail_sys(errno, "unshare", "time namespace");
        // Offsets can only be written before any process has entered the new namespace.
        if (!plan.time_offsets.empty()) {
            auto written = write_existing_file("/proc/self/timens_offsets", plan.time_offsets);
            if (!written) {
                (void)saved.restore();
                return fail(written.error().context("linux.timeOffsets"));
            }
        }
    }
    return saved;
}

Result<void> ForChildren::restore() {
    if (own_pid_ && ::setns(own_pid_.get(), CLONE_NEWPID) != 0) return fail_sys(errno, "setns", "own pid namespace");
    if (own_time_ && ::setns(own_time_.get(), CLONE_NEWTIME) != 0) return fail_sys(errno, "setns", "own time namespace");
    own_pid_.reset();
    own_time_.reset();
    return {};
}

Result<void> write_id_maps(const NamespacePlan& plan, pid_t child) {
    if (!plan.new_user) return {};
    if (plan.map_writer == MapWriter::helpers) {
        TRY(run_map_helper(newuidmap_path, child, plan.uid_mappings, "linux.uidMappings"));
        return run_map_helper(newgidmap_path, child, plan.gid_mappings, "linux.gidMappings");
    }
    UniqueFd proc = TRY(open_proc_pid(child));
    // Without CAP_SETGID in the parent namespace a gid_map is accepted only once setgroups(2) is denied.
    if (plan.map_writer == MapWriter::own_ids)
        if (auto r = write_proc_file(proc.get(), "setgroups", "deny"); !r) return fail(r.error().context("linux.gidMappings"));
    if (auto r = write_proc_file(proc.get(), "uid_map", plan.uid_map); !r) return fail(r.error().context("linux.uidMappings"));
    if (auto r = write_proc_file(proc.get(), "gid_map", plan.gid_map); !r) return fail(r.error().context("linux.gidMappings"));
    return {};
}

Result<void> apply_namespaces(const NamespacePlan& plan) noexcept {
    if (plan.join_user && ::setns(plan.join_user.get(), CLONE_NEWUSER) != 0)
        return fail_sys(errno, "setns", "user namespace");
    if (plan.unshare_flags != 0 && ::unshare(static_cast<int>(plan.unshare_flags)) != 0)
        return fail_sys(errno, "unshare", "namespaces");
    for (const Join& join : plan.joins) {
        if (::setns(join.fd.get(), join.type) != 0) return fail_sys(errno, "setns", kind_name(join.type));
    }
    return {};
}

}  // namespace husk::ns
