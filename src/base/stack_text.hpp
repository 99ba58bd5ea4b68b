// StackText: a message assembled in a fixed buffer, truncated silently; for errors built in the
// container child, where nothing may allocate.
#pragma once

#include <charconv>
#include <cstddef>
#include <string_view>

namespace husk {

class StackText {
public:
    StackText& operator<<(std::string_view text) noexcept {
        for (char c : text)
            if (used_ + 1 < sizeof buffer_) buffer_[used_++] = c;
        return *this;
    }
    // Numbers: cast to one of these two at the call site (no overload for int, so no silent sign change).
    StackText& operator<<(long number) noexcept { return append_number(number); }
    StackText& operator<<(unsigned long number) noexcept { return append_number(number); }
    std::string_view view() const noexcept { return {buffer_, used_}; }

private:
    template <typename Number>
    StackText& append_number(Number number) noexcept {
        char digits[24];
        auto result = std::to_chars(digits, digits + sizeof digits, number);
        return *this << std::string_view(digits, static_cast<std::size_t>(result.ptr - digits));
    }

    char buffer_[480] = {};  // as much as Error::what holds
    std::size_t used_ = 0;
};

}  // namespace husk
