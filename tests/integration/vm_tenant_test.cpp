// VM tests: a tenant's --memory, --pids and --cpus ceilings (docs/tenants.md, "Cgroup ceilings") are the
// memory.max, pids.max and cpu.max of its shared parent cgroup /husk/tenants/NAME, which the kernel enforces
// across all its live runs at once. (The hybrid host refuses them: tenant_test.cpp.) A holder run keeps the
// parent alive between the runs, so its peaks and events can be read once they have ended.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cerrno>

#include "vm_support.hpp"

using namespace husk::test;
using namespace husk::test::vm;

namespace {

constexpr long long mib = 1024 * 1024;

void set_tenant(Sandbox& sb, const std::string& name, std::vector<std::string> ceilings) {
    std::vector<std::string> args{"tenant", "set", name};
    args.insert(args.end(), ceilings.begin(), ceilings.end());
    require_ok(sb.husk(args));
}

bool exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

// A run of the tenant that stays (the probe sleeping, or holding memory), never chosen by the OOM killer.
std::string start_holder(Sandbox& sb, const std::string& tenant, std::vector<std::string> args) {
    Bundle holder = sb.bundle("holder");
    holder.config["process"]["args"] = Json::strings(args);
    holder.config["process"]["oomScoreAdj"] = -1000;
    std::string id = sb.id("holder");
    create_and_start(sb, holder, id, {"--tenant", tenant});
    return id;
}

// `husk run` of the bundle as it is now, 8 at once; the verdicts and the outputs.
struct Parallel {
    std::vector<Json> verdicts;
    std::vector<Output> outputs;
};
Parallel run_eight(Sandbox& sb, const Bundle& b, const std::string& tenant, const std::string& name) {
    std::vector<Process> runs;
    std::vector<std::string> paths;
    for (int i = 0; i < 8; ++i) {
        paths.push_back(sb.dir() + "/" + name + std::to_string(i) + ".json");
        runs.push_back(sb.spawn_husk({"run", "--bundle", b.dir, "--tenant", tenant, "--verdict", paths.back(),
                                      sb.id(name + std::to_string(i))}));
    }
    Parallel out;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        out.outputs.push_back(runs[i].wait());
        std::string text = read_file(paths[i]);
        INFO(out.outputs.back().describe());
        REQUIRE_FALSE(text.empty());
        out.verdicts.push_back(Json::parse(text));
    }
    return out;
}

}  // namespace

TEST_CASE("8 parallel runs of a tenant never exceed its memory and pids ceilings together; cpu.max is written",
          "[.vm][tenant-vm]") {
    require_vm();
    Sandbox sb;
    set_tenant(sb, "shared", {"--memory", "24m", "--pids", "16", "--cpus", "1.5"});
    const std::string parent = cgroup2_mount() + "/husk/tenants/shared";
    // 12 MiB held by a run the OOM killer spares: 12 MiB are left for all the others together.
    std::string holder = start_holder(sb, "shared", {"/probe", "hold", "12", "600"});
    std::string holder_cgroup = cgroup_dir(sb, holder);
    CHECK(holder_cgroup == parent + "/" + holder);
    CHECK(read_value(parent + "/memory.max") == std::to_string(24 * mib));
    CHECK(read_value(parent + "/memory.swap.max") == "0");
    CHECK(read_value(parent + "/pids.max") == "16");
    CHECK(read_value(parent + "/cpu.max") == "150000 100000");

    // Each run holds 5 MiB for a second: two fit beside the holder, more do not.
    Bundle work = sb.bundle("work");
    work.config["process"]["args"] = Json::strings({"/probe", "hold", "5", "1"});
    work.write();
    Parallel memory = run_eight(sb, work, "shared", "mem");
    int oom = 0, exited = 0;
    for (const Json& v : memory.verdicts) {
        INFO(v.dump());
        std::string reason = v["exit"]["reason"].str();
        CHECK((reason == "exited" || reason == "oom"));
        oom += reason == "oom";
        exited += reason == "exited";
    }
    WARN("8 runs of 5 MiB beside 12 MiB under a 24 MiB ceiling: " << exited << " exited, " << oom << " OOM-killed");
    CHECK(exited >= 1);
    long long peak = std::stoll(read_value(parent + "/memory.peak"));
    INFO("memory.peak " << peak << ", memory.events: " << read_value(parent + "/memory.events"));
    CHECK(peak <= 24 * mib);
    CHECK(peak >= 17 * mib);  // the holder and at least one run at once

    // One run whose own limit (64 MiB) allows 16 MiB is OOM-killed by the tenant's: 12 + 16 > 24.
    Bundle big = sb.bundle("big");
    big.config["process"]["args"] = Json::strings({"/probe", "hold", "16", "1"});
    big.config["linux"]["resources"]["memory"] = Json::object({{"limit", 64 * mib}});
    big.write();
    std::string verdict_path = sb.dir() + "/big.json";
    Output big_run = sb.husk({"run", "--bundle", big.dir, "--tenant", "shared", "--verdict", verdict_path, sb.id("big")});
    INFO(big_run.describe());
    Json big_verdict = Json::parse(read_file(verdict_path));
    INFO(big_verdict.dump());
    CHECK(big_verdict["exit"]["reason"].str() == "oom");
    CHECK_THAT(big_verdict["exit"]["detail"].str(),
               Catch::Matchers::Contains("its own memory.max=67108864 was not reached: an ancestor's limit"));
    CHECK(keyed_value(parent + "/memory.events", "oom_kill") >= 1);

    // pids: the holder is 1 process of 16; one run's forks stop at the tenant's ceiling, not at its own 1000.
    long long held = std::stoll(read_value(parent + "/pids.current"));
    Bundle forks = sb.bundle("forks");
    forks.config["process"]["args"] = Json::strings({"/probe", "fork", "1000"});
    forks.config["linux"]["resources"]["pids"] = Json::object({{"limit", 1000}});
    forks.write();
    Output one = sb.husk({"run", "--bundle", forks.dir, "--tenant", "shared", sb.id("forks")});
    INFO(one.describe());
    REQUIRE(one.exit_code == 0);
    Json forked = last_json_line(one.out);
    CHECK(forked["errno"].num() == EAGAIN);
    CHECK(forked["forked"].num() == 16 - held - 1);  // its own init counts too

    // 8 fork loops at once: together never more than 16 processes. A run that finds the ceiling full cannot
    // even clone its init (EAGAIN: it fails before its program runs); one that starts forks until the ceiling.
    Parallel pids = run_eight(sb, forks, "shared", "pids");
    int forked_runs = 0;
    for (std::size_t i = 0; i < pids.verdicts.size(); ++i) {
        INFO(pids.verdicts[i].dump() << "\n" << pids.outputs[i].describe());
        std::string reason = pids.verdicts[i]["exit"]["reason"].str();
        CHECK((reason == "exited" || reason == "setup-failed" || reason == "refused"));
        if (reason != "exited") continue;
        ++forked_runs;
        Json r = last_json_line(pids.outputs[i].out);
        CHECK(r["errno"].num() == EAGAIN);
        CHECK(r["forked"].num() <= 16 - held - 1);
    }
    CHECK(forked_runs >= 1);
    if (exists(parent + "/pids.peak")) CHECK(std::stoll(read_value(parent + "/pids.peak")) <= 16);
    // (pids.events "max" rises in the forking run's own cgroup on this kernel (6.1), not in the tenant's: the
    // fork loops' counts above are what show the tenant's ceiling biting.)

    // tenant set takes effect at the next admission: the parent's limits are written again then.
    set_tenant(sb, "shared", {"--memory", "32m", "--pids", "20", "--cpus", "0.5"});
    Bundle quick = sb.bundle("quick");
    quick.config["process"]["args"] = Json::strings({"/probe", "exit", "0"});
    quick.write();
    require_ok(sb.husk({"run", "--bundle", quick.dir, "--tenant", "shared", sb.id("quick")}));
    CHECK(read_value(parent + "/memory.max") == std::to_string(32 * mib));
    CHECK(read_value(parent + "/pids.max") == "20");
    CHECK(read_value(parent + "/cpu.max") == "50000 100000");

    // The last run gone, the empty parent goes with it.
    kill_and_delete(sb, holder);
    CHECK_FALSE(exists(parent));
    check_nothing_left(sb);
}

TEST_CASE("a tenant with cgroup ceilings keeps its runs below its shared parent: an absolute cgroupsPath is refused",
          "[.vm][tenant-vm]") {
    require_vm();
    Sandbox sb;
    set_tenant(sb, "m", {"--pids", "100"});
    Bundle b = sb.bundle("abs");
    b.config["process"]["args"] = Json::strings({"/bin/true"});
    b.config["linux"]["cgroupsPath"] = "/elsewhere/" + sb.id("abs");
    b.write();
    Output absolute = sb.husk({"run", "--bundle", b.dir, "--tenant", "m", sb.id("abs")});
    INFO(absolute.describe());
    CHECK(absolute.exit_code == 2);  // refused before anything existed
    CHECK_THAT(absolute.err, Catch::Matchers::Contains("tenant \"m\" has cgroup ceilings, so its runs live below "
                                                        "/husk/tenants/m; linux.cgroupsPath \"/elsewhere/"));
    CHECK(read_file(sb.root() + "/tenants/m.ledger").empty());
    check_nothing_left(sb);
}
