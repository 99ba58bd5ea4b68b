#include "tenant/ledger.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

#include "base/fs.hpp"
#include "tenant/ceilings.hpp"
#include "tenant/compact.hpp"

namespace husk::tenant {

std::int64_t now_usec() {
    timespec ts{};
    ::clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

Result<Ledger> Ledger::open(const std::string& root, std::string_view name) {
    TRY(read_ceilings(root, name));  // a ledger belongs to a tenant that exists
    const std::string file = std::string(name) + ".ledger";
    std::string path = TRY(tenants_dir(root)) + "/" + file;
    for (;;) {
        // Never through a symlink (a repair would cut whatever it named): O_NOFOLLOW under a tenants directory
        // opened without following either, and a regular file only.
        UniqueFd dir = TRY(open_tenants_dir(root));
        auto opened = open_fd_at(dir.get(), file, O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK, 0600);
        if (!opened && opened.error().err == ELOOP)
            return fail_msg(path + ": a symlink; husk never follows one to a tenant's files");
        if (!opened) return fail(opened.error());
        Ledger ledger(path, std::move(*opened));
        struct stat kind {};
        if (::fstat(ledger.fd_.get(), &kind) != 0) return fail_sys(errno, "fstat", path);
        if (!S_ISREG(kind.st_mode)) return fail_msg(path + ": not a regular file");
        // The file's name must survive a crash as well as its records.
        if (::fsync(dir.get()) != 0) return fail_sys(errno, "fsync", root + "/tenants");
        while (::flock(ledger.fd_.get(), LOCK_EX) != 0)
            if (errno != EINTR) return fail_sys(errno, "flock", path);
        // A compaction that held the lock meanwhile renamed a new file over this one: the lock and the records
        // that count are the new file's.
        struct stat locked {}, named {};
        if (::fstat(ledger.fd_.get(), &locked) != 0) return fail_sys(errno, "fstat", path);
        if (::fstatat(dir.get(), file.c_str(), &named, AT_SYMLINK_NOFOLLOW) != 0 && errno != ENOENT)
            return fail_sys(errno, "stat", path);
        if (locked.st_ino != named.st_ino || locked.st_dev != named.st_dev || locked.st_nlink == 0) continue;
        TRY(ledger.replay());
        return ledger;
    }
}

Result<void> Ledger::compact(const Ceilings& ceilings, std::int64_t now_usec, CompactStep until) {
    if (!fd_) return fail_msg(path_ + ": the ledger was closed");
    std::vector<Record> kept = compact_records(records_, now_usec, ceilings);
    std::string text;
    for (const Record& record : kept) {
        auto line = encode_record(record);
        if (!line) return fail_msg(path_ + ": compaction: a record cannot be encoded");
        text += *line;
    }
    // Locked before it has its final name, so nobody who opens that name can take the lock before this husk.
    const std::string temp = path_ + ".new";
    UniqueFd next = TRY(open_fd(temp, O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_NOFOLLOW, 0600));
    if (::flock(next.get(), LOCK_EX | LOCK_NB) != 0) return fail_sys(errno, "flock", temp);
    TRY(write_all(next.get(), text));
    if (::fsync(next.get()) != 0) return fail_sys(errno, "fsync", temp);
    if (until == CompactStep::written) return {};
    if (::rename(temp.c_str(), path_.c_str()) != 0) return fail_sys(errno, "rename", temp);
    if (until == CompactStep::renamed) {
        fd_ = std::move(next);  // the old file's lock goes, as a crash would let it go
        records_ = std::move(kept);
        size_ = text.size();
        return {};
    }
    std::string dir_path = path_.substr(0, path_.rfind('/'));
    UniqueFd dir = TRY(open_fd(dir_path, O_RDONLY | O_DIRECTORY));
    if (::fsync(dir.get()) != 0) return fail_sys(errno, "fsync", dir_path);
    // Closing the old file lets its waiters in; each finds it renamed away and opens this one.
    fd_ = std::move(next);
    records_ = std::move(kept);
    size_ = text.size();
    return {};
}

Result<void> Ledger::replay() {
    if (::lseek(fd_.get(), 0, SEEK_SET) < 0) return fail_sys(errno, "lseek", path_);
    auto read = read_fd(fd_.get());
    if (!read) return fail(read.error().context(path_));
    const std::string text = std::move(*read);
    size_ = text.size();
    std::size_t at = 0;
    std::size_t good_end = 0;  // the end of the last whole, valid line
    std::size_t line_number = 0;
    while (at < text.size()) {
        ++line_number;
        auto newline = text.find('\n', at);
        // An append is one write ending in its newline: a crash mid-append leaves a tail without one, which never
        // counted (nothing acted on it before its fsync). That tail alone is cut below.
        if (newline == std::string::npos) break;
        std::string_view line(text.data() + at, newline + 1 - at);
        auto record = decode_record(line);
        // A whole line that does not check out is no torn append: a bit flip, an edit. Fail closed, naming it.
        if (!record)
            return fail_msg(path_ + ": line " + std::to_string(line_number) + " (byte " + std::to_string(at) +
                            ") is corrupt: its checksum or form does not hold; the tenant's runs are refused until "
                            "the ledger is repaired (docs/tenants.md, \"A corrupt ledger\")");
        records_.push_back(std::move(*record));
        good_end = newline + 1;
        at = good_end;
    }
    if (good_end < text.size()) {
        if (::ftruncate(fd_.get(), static_cast<off_t>(good_end)) != 0) return fail_sys(errno, "ftruncate", path_);
        if (::fsync(fd_.get()) != 0) return fail_sys(errno, "fsync", path_);
        size_ = good_end;
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
        // A part of a line (a full filesystem) would glue the next append onto it: take it back. Should that
        // fail too, the ledger is closed, so nothing is appended to it here, and the next open drops the part.
        if (::ftruncate(fd_.get(), before) != 0) fd_.reset();
        return fail(written.error());
    }
    if (::fsync(fd_.get()) != 0) return fail_sys(errno, "fsync", path_);
    size_ = static_cast<std::uint64_t>(before) + line->size();
    records_.push_back(record);
    return {};
}

}  // namespace husk::tenant
