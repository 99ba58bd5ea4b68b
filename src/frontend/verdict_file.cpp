#include "frontend/verdict_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "base/caller_file.hpp"
#include "base/fs.hpp"
#include "base/json_writer.hpp"
#include "monitor/verdict.hpp"
#include "frontend/verdict_reader.hpp"
#include "spec/net_allow.hpp"

namespace husk::frontend {

using monitor::signal_label;
using monitor::StopPolicy;
namespace {

// The run.husk.* limits with their units in the key, as usage's counters have them, and the policies of the
// effective config that shaped the run.
void write_limits(JsonWriter& w, const StopPolicy& policy, const spec::HuskSettings& settings) {
    w.key("limits").begin_object();
    if (policy.timeout) w.key("timeoutMs").unsigned_integer(static_cast<std::uint64_t>(policy.timeout->count()));
    w.key("killGraceMs").unsigned_integer(static_cast<std::uint64_t>(policy.grace.count()));
    w.key("stopSignal").string(signal_label(policy.stop_signal));
    if (policy.output_limit) w.key("outputLimitBytes").unsigned_integer(*policy.output_limit);
    if (policy.cpu_limit) w.key("cpuLimitUsec").unsigned_integer(static_cast<std::uint64_t>(policy.cpu_limit->count()));
    if (policy.net_ops) w.key("netOps").unsigned_integer(*policy.net_ops);
    if (policy.net_ops_kill) w.key("netOpsKill").boolean(true);
    if (settings.net_allow) {
        w.key("netAllow").begin_array();
        for (const spec::NetAllowEntry& entry : settings.net_allow->entries) w.string(spec::to_string(entry));
        w.end_array();
    }
    if (settings.tenant) w.key("tenant").string(*settings.tenant);
    if (settings.die_with_parent.value_or(false)) w.key("dieWithParent").boolean(true);
    if (settings.address_space) w.key("addressSpaceBytes").unsigned_integer(*settings.address_space);
    w.end_object();
}

}  // namespace

std::string encode_verdict(const RunVerdict& verdict) {
    // husk.exit's members come from the one writer `husk state` uses, so the two never word a verdict apart.
    state::Record record;
    record.id = verdict.id;
    record.exit = verdict.exit;
    JsonWriter w;
    w.begin_object();
    w.key("id").string(verdict.id);
    w.key("exit").begin_object();
    write_exit_members(w, record);
    w.end_object();
    w.key("status").integer(verdict.status);
    if (!verdict.started.empty()) w.key("started").string(verdict.started);
    w.key("finished").string(verdict.exit.finished);
    if (verdict.wall_time) w.key("wallTimeMs").unsigned_integer(static_cast<std::uint64_t>(verdict.wall_time->count()));
    state::write_factors(w, verdict.exit.factors);
    state::write_usage(w, verdict.exit.usage);
    if (verdict.security) state::write_security(w, *verdict.security);
    if (verdict.policy) write_limits(w, *verdict.policy, verdict.settings);
    w.end_object();
    return w.str();
}

Result<void> deliver_verdict_file(const std::string& path, std::string_view json) {
    CallerFile target = TRY(open_caller_file(path, "--verdict"));
    std::string text(json);
    text += '\n';
    return write_file_atomic(target.dir.get(), target.name, text, 0644);
}

Result<void> deliver_verdict_fd(int fd, std::string_view json) {
    std::string text(json);
    text += '\n';
    ssize_t n;
    do n = ::write(fd, text.data(), text.size());
    while (n < 0 && errno == EINTR);
    if (n < 0) return fail_sys(errno, "write", "--verdict-fd " + std::to_string(fd));
    if (static_cast<std::size_t>(n) != text.size())
        return fail_sys(EIO, "short write", "--verdict-fd " + std::to_string(fd));
    return {};
}

}  // namespace husk::frontend
