// Error: what failed (operation + subject) and the errno, as a fixed-size value.
// It is trivially copyable so the container child can send it to the parent over the sync socket.
#pragma once

#include <cstddef>
#include <expected>
#include <string>
#include <string_view>
#include <utility>

namespace husk {

// What a caller may have to tell apart, whatever the words of the message: callers test the kind, never
// the text, so a reworded message cannot change what husk does.
enum class ErrorKind : unsigned char {
    unspecified,
    not_found,  // the thing named does not exist ("container does not exist")
    tenant_quota,  // a run refused because its tenant used up a ceiling (the verdict's reason `tenant-quota`)
    refused,       // a foreground run refused before anything of it existed (the verdict's reason `refused`)
};

struct Error {
    int err = 0;           // errno, 0 when the failure is not a system call's
    ErrorKind kind = ErrorKind::unspecified;
    char what[480] = {};   // "open \"/x\"", "linux.namespaces[2].type: unknown namespace \"foo\""

    // A failed system call: `op "subject": strerror(err)`. noexcept and allocation-free (child-safe).
    static Error sys(int err, std::string_view op, std::string_view subject = {}) noexcept;
    // A failure described in words, no errno.
    static Error msg(std::string_view text, ErrorKind kind = ErrorKind::unspecified) noexcept;

    // Prepend context: "create c1: " + what. Allocation-free.
    Error& context(std::string_view prefix) noexcept;
    // The one line printed to the user: what + ": " + strerror when err != 0.
    std::string message() const;
};

template <typename T = void>
using Result = std::expected<T, Error>;

inline std::unexpected<Error> fail(Error e) { return std::unexpected<Error>(std::move(e)); }
inline std::unexpected<Error> fail_sys(int err, std::string_view op, std::string_view subject = {}) {
    return std::unexpected<Error>(Error::sys(err, op, subject));
}
inline std::unexpected<Error> fail_msg(std::string_view text, ErrorKind kind = ErrorKind::unspecified) {
    return std::unexpected<Error>(Error::msg(text, kind));
}

}  // namespace husk

// TRY(expr): evaluate a Result; on error return it from the enclosing function, else yield the value.
// A GNU statement expression (g++ and clang); __extension__ keeps -Wpedantic quiet about it.
#define TRY(expr)                                                                   \
    __extension__({                                                                 \
        auto&& husk_try_result_ = (expr);                                           \
        if (!husk_try_result_) return std::unexpected(std::move(husk_try_result_).error()); \
        *std::move(husk_try_result_);                                               \
    })
