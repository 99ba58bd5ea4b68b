// OptionSet and its --help text, laid out as Boost.Program_options' options_description printed it.
#include <algorithm>

#include "cli/options.hpp"

namespace husk::cli {
namespace {

// Boost's layout: help text starts in a column after the widest "  NAME PARAMETER" (OptionSet::column) and wraps
// before column 80.
constexpr std::size_t line_length = 80;
constexpr std::size_t narrowest_column = 23;
constexpr std::size_t widest_column = line_length / 2 - 1;

// "  -b [ --bundle ] arg (=.)": two spaces, the names, a space, and what the option takes (nothing for a flag).
std::string option_column(const Option& option) {
    std::string text = "  ";
    if (option.short_name != 0) {
        text += '-';
        text += option.short_name;
        text += " [ --";
        text += option.name;
        text += " ]";
    } else {
        text += "--";
        text += option.name;
    }
    text += ' ';
    if (option.takes != Takes::nothing) {
        text += "arg";
        if (option.default_value && *option.default_value) {
            text += " (=";
            text += option.default_value;
            text += ')';
        }
    }
    return text;
}

void pad(std::string& out, std::size_t spaces) { out.append(spaces, ' '); }

// One paragraph of help, from column `indent` to `line_length` - 1: Boost's wrapping, which breaks after the last
// space of a line when that space is in the line's second half (else it cuts the word), keeps that space at the
// end of the line, and drops one space that would start the next line. A tab marks the indent of the lines
// after the first (relative to `indent`) and is not printed.
void append_paragraph(std::string& out, std::string paragraph, std::size_t indent) {
    std::size_t width = line_length - 1 - indent;
    std::size_t tab_indent = paragraph.find('\t');
    if (tab_indent == std::string::npos) {
        tab_indent = 0;
    } else {
        paragraph.erase(tab_indent, 1);
        if (tab_indent >= width) tab_indent = 0;
    }
    if (paragraph.size() < width) {
        out += paragraph;
        return;
    }
    const std::size_t end = paragraph.size();
    std::size_t begin = 0;
    bool first_line = true;
    while (begin < end) {
        if (!first_line && paragraph[begin] == ' ' && begin + 1 < end && paragraph[begin + 1] != ' ') ++begin;
        std::size_t line_end = begin + std::min(end - begin, width);
        if (paragraph[line_end - 1] != ' ' && line_end < end && paragraph[line_end] != ' ') {
            const std::size_t space = paragraph.rfind(' ', line_end - 1);
            const std::size_t after_space = space == std::string::npos || space < begin ? begin : space + 1;
            if (after_space != begin && line_end - after_space < width / 2) line_end = after_space;
        }
        out.append(paragraph, begin, line_end - begin);
        if (first_line) {
            indent += tab_indent;
            width -= tab_indent;
            first_line = false;
        }
        if (line_end != end) {
            out += '\n';
            pad(out, indent);
        }
        begin = line_end;
    }
}

// The help column: each line of the text a paragraph, the lines after the first starting at the column.
void append_help(std::string& out, std::string_view help, std::size_t column) {
    for (std::size_t begin = 0;;) {
        const std::size_t newline = help.find('\n', begin);
        append_paragraph(out, std::string(help.substr(begin, newline - begin)), column);
        if (newline == std::string_view::npos) return;
        out += '\n';
        pad(out, column);
        begin = newline + 1;
    }
}

}  // namespace

OptionSet::OptionSet(std::string_view caption) { sections_.push_back({caption}); }

OptionSet& OptionSet::add(std::span<const Option> options) {
    options_.insert(options_.end(), options.begin(), options.end());
    section_of_.insert(section_of_.end(), options.size(), 0);
    return *this;
}

OptionSet& OptionSet::add_group(std::string_view caption) {
    sections_.push_back({caption, 1});
    return *this;
}

OptionSet& OptionSet::add_to_group(std::span<const Option> options) {
    options_.insert(options_.end(), options.begin(), options.end());
    section_of_.insert(section_of_.end(), options.size(), static_cast<std::uint8_t>(sections_.size() - 1));
    return *this;
}

OptionSet& OptionSet::add_set(const OptionSet& other) {
    const auto first = static_cast<std::uint8_t>(sections_.size());
    for (const Section& section : other.sections_)
        sections_.push_back({section.caption, static_cast<std::uint8_t>(section.depth + 1)});
    options_.insert(options_.end(), other.options_.begin(), other.options_.end());
    for (std::uint8_t section : other.section_of_) section_of_.push_back(static_cast<std::uint8_t>(first + section));
    return *this;
}

const Option* OptionSet::find(std::string_view name) const {
    for (const Option& option : options_)
        if (option.name == name ||
            (option.short_name != 0 && name.size() == 2 && name[0] == '-' && name[1] == option.short_name))
            return &option;
    return nullptr;
}

// The column where help starts for sections_[section] and the groups nested in it (`section` moves past them):
// after the widest "  NAME PARAMETER" of the section's own options (`widest`, per section) or the column of a
// group nested in it, at least at 24 and at most at 40 (half the line). Each level of nesting adds a column, as
// Boost's options_description::get_option_column_width did.
std::size_t OptionSet::column(std::size_t& section, std::span<const std::size_t> widest) const {
    const std::uint8_t depth = sections_[section].depth;
    std::size_t width = std::max(narrowest_column, widest[section]);
    for (++section; section < sections_.size() && sections_[section].depth > depth;)
        width = std::max(width, column(section, widest));
    return std::min(width, widest_column) + 1;
}

std::string OptionSet::help() const {
    std::vector<std::size_t> widest(sections_.size(), 0);
    for (std::size_t i = 0; i < options_.size(); ++i)
        widest[section_of_[i]] = std::max(widest[section_of_[i]], option_column(options_[i]).size());
    std::size_t top = 0;
    const std::size_t column = this->column(top, widest);
    std::string out;
    for (std::size_t section = 0; section < sections_.size(); ++section) {
        if (sections_[section].depth > 0) out += '\n';
        if (!sections_[section].caption.empty()) {
            out += sections_[section].caption;
            out += ":\n";
        }
        for (std::size_t i = 0; i < options_.size(); ++i) {
            if (section_of_[i] != section) continue;
            const Option& option = options_[i];
            const std::string names = option_column(option);
            out += names;
            std::string help(option.help);
            if (!option.annotation.empty())
                help += " (" + std::string(option.annotation) + std::string(option.name) + ")";
            if (!help.empty()) {
                if (names.size() >= column) {
                    out += '\n';
                    pad(out, column);
                } else {
                    pad(out, column - names.size());
                }
                append_help(out, help, column);
            }
            out += '\n';
        }
    }
    return out;
}

}  // namespace husk::cli
