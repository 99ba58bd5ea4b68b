// Helpers shared by validate.cpp and validate_linux.cpp. Not a public header.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/quote.hpp"
#include "husk/error.hpp"
#include "husk/spec.hpp"

namespace husk::spec::detail {

using husk::quoted;

// "<field>: must be an absolute path, got \"tmp\"" unless path starts with '/'.
Result<void> check_absolute(std::string_view path, const std::string& field);

// "<field>[i].size: must be greater than 0" for an empty mapping range.
Result<void> check_id_mappings(const std::vector<IdMapping>& mappings, const std::string& field);

// The linux.namespaces entry of this type, or nullptr.
const Namespace* find_namespace(const Spec& spec, std::string_view type);

Result<void> validate_linux(const Linux& linux);

}  // namespace husk::spec::detail
