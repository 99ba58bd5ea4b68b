// One line of a tenant's ledger (<root>/tenants/NAME.ledger): a run started, a run ended (what it really used),
// a reset, or a summary of ended runs left by compaction. Each line ends in a checksum of the rest, so a record torn by a crash mid-write is recognised
// and dropped instead of being read as a smaller charge (docs/tenants.md, "The ledger").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace husk::tenant {

// What a run may use, or what it used; each in the unit of its ceiling.
struct Amounts {
    std::uint64_t cpu_usec = 0;
    std::uint64_t wall_usec = 0;
    std::uint64_t output_bytes = 0;
    bool operator==(const Amounts&) const = default;
};

// A run's own limits after clamping to what its tenant had left: nothing means unlimited.
struct Budgets {
    std::optional<std::uint64_t> cpu_usec;
    std::optional<std::uint64_t> wall_usec;
    std::optional<std::uint64_t> output_bytes;
    bool operator==(const Budgets&) const = default;
};

// Written before the run's container can run anything. `run` names one run of one container for good:
// "<container id>@<record's created time>" (an id is reused, its creation time is not). `cgroup` is the
// container's cgroup directory (absolute path), empty without one.
struct StartRecord {
    std::string run;
    std::int64_t at_usec = 0;  // CLOCK_REALTIME
    Budgets budgets;
    std::string cgroup;
    bool operator==(const StartRecord&) const = default;
};

// How an end record's figures were obtained.
enum class Source : std::uint8_t {
    monitor,         // the monitor, from the cgroup counters it read for the verdict
    deleted,         // husk delete of a container whose monitor was lost, from its cgroup before removing it
    rollback,        // the create failed after the start record: what its cgroup used (nothing ran)
    recovered_cgroup,  // replay: the container is gone, its cgroup was still there
    recovered_budget,  // replay: the container and its cgroup are gone: the budgets it was given
};

struct EndRecord {
    std::string run;
    std::int64_t at_usec = 0;
    Amounts used;
    Source source = Source::monitor;
    bool operator==(const EndRecord&) const = default;
};

// `husk tenant reset`: what ended before it no longer counts.
struct ResetRecord {
    std::int64_t at_usec = 0;
    bool operator==(const ResetRecord&) const = default;
};

// Compaction (ledger.hpp): the runs that had ended, summed. Counts like their end records (amounts) and start
// records (runs) did, dated at the latest of them, so totals do not change.
struct SummaryRecord {
    std::int64_t at_usec = 0;
    Amounts used;
    std::uint64_t runs = 0;
    bool operator==(const SummaryRecord&) const = default;
};

using Record = std::variant<StartRecord, EndRecord, ResetRecord, SummaryRecord>;

std::string_view source_name(Source source);
// One line, '\n' included. A run name or cgroup path holding white space or a control character cannot be
// written (nothing: the caller refuses the run).
std::optional<std::string> encode_record(const Record& record);
// Nothing when the checksum or the format is wrong: the caller decides whether that is a torn tail.
std::optional<Record> decode_record(std::string_view line);

}  // namespace husk::tenant
