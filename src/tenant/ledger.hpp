// A tenant's ledger file, <root>/tenants/NAME.ledger: append-only, one checksummed record a line, each append
// fsync'd before husk acts on it. Opening it takes an exclusive flock that the Ledger holds until it is
// destroyed, so every husk that reads, decides and appends does so alone (two parallel runs cannot both take
// the last of a budget).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "husk/error.hpp"
#include "husk/unique_fd.hpp"
#include "tenant/ceilings.hpp"
#include "tenant/record.hpp"

namespace husk::tenant {

class Ledger {
public:
    // Opens (creates) the ledger of a tenant that has a ceilings file and replays it. Never through a symlink,
    // and a regular file only. A torn tail (bytes after the last newline: a crash mid-append) is cut from the
    // file, so the next append starts on a line of its own; a whole line that does not decode (a checksum that
    // does not hold) is corruption, an error naming the file and the line.
    static Result<Ledger> open(const std::string& root, std::string_view name);

    const std::vector<Record>& records() const { return records_; }
    const std::string& path() const { return path_; }
    // Appends, fsyncs, then adds it to records().
    Result<void> append(const Record& record);
    // Lets go of the lock (and the file) early.
    void close() { fd_.reset(); }

    // The file's size in bytes, as replayed and appended to.
    std::uint64_t size() const { return size_; }
    // Rewrites the ledger with compact_records (compact.hpp), keeping the lock: the records go to NAME.ledger.new
    // (locked, written, fsync'd), which is renamed over NAME.ledger, and the directory is fsync'd. A crash at
    // any point leaves the old ledger or the new one, whose totals are the same. A husk waiting for the old
    // file's lock finds it renamed away once it has the lock, and opens the new one (open). `until` stops
    // after a step: what a crash there leaves, for the tests.
    enum class CompactStep { written, renamed, done };
    Result<void> compact(const Ceilings& ceilings, std::int64_t now_usec, CompactStep until = CompactStep::done);

private:
    Ledger(std::string path, UniqueFd fd) : path_(std::move(path)), fd_(std::move(fd)) {}
    Result<void> replay();

    std::string path_;
    UniqueFd fd_;
    std::vector<Record> records_;
    std::uint64_t size_ = 0;
};

// The size past which admission compacts a tenant's ledger (about 10,000 records).
inline constexpr std::uint64_t compact_after_bytes = 1 << 20;

// CLOCK_REALTIME in microseconds: records outlive the boot, so the monotonic clock cannot date them.
std::int64_t now_usec();

}  // namespace husk::tenant
