// An unprivileged user made for one test (docs/rootless.md): created with useradd, removed with userdel at the
// end, with or without subordinate ids, and commands run as that user (setpriv, a clean environment).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "harness.hpp"

namespace husk::test {

class TestUser {
public:
    enum class Subids { none, range };
    // useradd: a system account (useradd gives it no subordinate ids of its own) named after the sandbox.
    // uid_only: no account, a uid no account has (the VM's guest has no useradd); no subordinate ids then.
    enum class Account { useradd, uid_only };
    // With Subids::range, uids and gids [subid_start, +65536) in /etc/subuid and /etc/subgid. Its home is a 0700
    // directory in the sandbox, $XDG_RUNTIME_DIR another inside it.
    TestUser(Sandbox& sb, Subids subids, Account account = Account::useradd);
    ~TestUser();  // every process of the uid killed (it exists for this test alone), the account removed
    TestUser(const TestUser&) = delete;
    TestUser& operator=(const TestUser&) = delete;

    uid_t uid() const { return uid_; }
    gid_t gid() const { return gid_; }
    const std::string& home() const { return home_; }
    const std::string& runtime_dir() const { return runtime_dir_; }
    std::uint32_t subid_start() const { return subid_start_; }
    // husk's default state root for this user: $XDG_RUNTIME_DIR/husk.
    std::string state_root() const { return runtime_dir_ + "/husk"; }

    // argv (argv[0] a path) as the user: no supplementary groups, HOME, XDG_RUNTIME_DIR, PATH and the sandbox's
    // marker as the whole environment, plus options.env.
    Output run(const std::vector<std::string>& argv, SpawnOptions options = {}) const;
    Process spawn(const std::vector<std::string>& argv, SpawnOptions options = {}) const;
    // `husk ARGS...` as the user, with its default state root.
    Output husk(const std::vector<std::string>& args, SpawnOptions options = {}) const;
    Process spawn_husk(const std::vector<std::string>& args, SpawnOptions options = {}) const;
    // The user's processes still alive (none may be left when a test ends).
    std::vector<pid_t> processes() const;
    // From now on every command starts in this cgroup (its cgroup.procs path): a root shell moves itself
    // there and then becomes the user, as a delegating service manager starts a user's service.
    void start_in_cgroup(std::string procs) { cgroup_procs_ = std::move(procs); }

private:
    std::vector<std::string> as_user(const std::vector<std::string>& argv, const SpawnOptions& options) const;

    Sandbox& sb_;
    std::string name_, home_, runtime_dir_;
    uid_t uid_ = 0;
    gid_t gid_ = 0;
    std::uint32_t subid_start_ = 0;
    bool account_ = false;
    std::string cgroup_procs_;
};

}  // namespace husk::test
