// SPDX-License-Identifier: Apache-2.0
// The OTLP options every attaching command takes (--otlp, --service, --otlp-queue,
// --otlp-timeout), parsed by one function so trace, stat, block and profile cannot drift apart.
#pragma once

#include <cstddef>
#include <string>

#include "core/expected.h"

namespace vtscope {

struct OtlpOptions {
    // The --otlp base URL (empty: from OTEL_EXPORTER_OTLP_ENDPOINT, none when that is unset too).
    std::string endpoint;
    std::string service;   // --service: the resource's service.name
    size_t queue = 65536;  // log records held for export at most
    double timeout_seconds = 10;
};

// True when name (an option without its value) is an OTLP option that takes a value.
bool otlp_option_takes_value(const std::string& name);
// Applies an OTLP option: true when name is one, false when it is not (the caller's own option,
// or unknown); an error when its value is invalid.
Expected<bool> parse_otlp_option(const std::string& name, const std::string& value, OtlpOptions& options);
// The help lines of the OTLP options, options indented by indent columns and their text 24
// further; signals says what the command exports (lines separated by newlines).
std::string otlp_options_help(const std::string& signals, int indent);

}  // namespace vtscope
