#include "tenant/ledger.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

#include "base/fs.hpp"
#include "tenant/ceilings.hpp"

namespace husk::tenant {

std::int64_t now_usec() {
    timespec ts{};
    ::clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

Result<Ledger> Ledger::open(const std::string& root, std::string_view name) {
    TRY(read_ceilings(root, name));  // a ledger belongs to a tenant that exists
    std::string path = TRY(tenants_dir(root)) + "/" + std::string(name) + ".ledger";
    Ledger ledger(path, TRY(open_fd(path, O_RDWR | O_CREAT | O_APPEND, 0600)));
    // The file's name must survive a crash as well as its records.
    UniqueFd dir = TRY(open_fd(root + "/tenants", O_RDONLY | O_DIRECTORY));
    if (::fsync(dir.get()) != 0) return fail_sys(errno, "fsync", root + "/tenants");
    while (::flock(ledger.fd_.get(), LOCK_EX) != 0)
        if (errno != EINTR) return fail_sys(errno, "flock", path);
    TRY(ledger.replay());
    return ledger;
}

Result<void> Ledger::replay() {
    if (::lseek(fd_.get(), 0, SEEK_SET) < 0) return fail_sys(errno, "lseek", path_);
    std::string text = TRY(read_fd(fd_.get()));
    std::size_t at = 0;
    std::size_t good_end = 0;  // the end of the last whole, valid line
    while (at < text.size()) {
        auto newline = text.find('\n', at);
        std::string_view line(text.data() + at, (newline == std::string::npos ? text.size() : newline + 1) - at);
        auto record = newline == std::string::npos ? std::nullopt : decode_record(line);
        std::size_t next = at + line.size();
        if (!record) {
            if (next < text.size())
                return fail_msg(path_ + ": corrupt record at byte " + std::to_string(at) +
                                " (not the last one, so not a torn append); the tenant's runs are refused until "
                                "it is repaired");
            break;  // a torn last record: it never counted, since nothing acted on it before its fsync
        }
        records_.push_back(std::move(*record));
        good_end = next;
        at = next;
    }
    if (good_end < text.size()) {
        if (::ftruncate(fd_.get(), static_cast<off_t>(good_end)) != 0) return fail_sys(errno, "ftruncate", path_);
        if (::fsync(fd_.get()) != 0) return fail_sys(errno, "fsync", path_);
    }
    return {};
}

Result<void> Ledger::append(const Record& record) {
    if (!fd_) return fail_msg(path_ + ": the ledger was closed");
    auto line = encode_record(record);
    if (!line) return fail_msg(path_ + ": a run name or cgroup path with white space cannot be recorded");
    off_t before = ::lseek(fd_.get(), 0, SEEK_END);
    if (before < 0) return fail_sys(errno, "lseek", path_);
    if (auto written = write_all(fd_.get(), *line); !written) {
        // A part of a line (a full filesystem) would glue the next append onto it: take it back.
        (void)::ftruncate(fd_.get(), before);
        return fail(written.error());
    }
    if (::fsync(fd_.get()) != 0) return fail_sys(errno, "fsync", path_);
    records_.push_back(record);
    return {};
}

}  // namespace husk::tenant
