// SPDX-License-Identifier: Apache-2.0
// JSON text of a value, compact. Strings from the target (thread names, symbols, JFR frames) may
// be invalid UTF-8: each byte that starts no well-formed character becomes U+FFFD, so the output
// stays valid JSON instead of the dump throwing.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

namespace vtscope {

inline std::string dump_json(const nlohmann::ordered_json& value) {
    return value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

// A double of the summary JSON, to 15 significant digits (DBL_DIG: every digit a double keeps,
// so cpu_ms is exact to the microsecond in any session, and 2/3 reads 0.666666666666667), written
// as C's %.15g writes it: a whole number without a fraction ("500", not "500.0"). Not finite:
// null, which JSON can hold and "inf" is not.
inline nlohmann::ordered_json json_double15(double value) {
    if (!std::isfinite(value)) return nullptr;
    char text[32];
    std::snprintf(text, sizeof(text), "%.15g", value);
    double rounded = std::strtod(text, nullptr);
    if (rounded == std::trunc(rounded) && std::fabs(rounded) < 1e15) return static_cast<int64_t>(rounded);
    return rounded;
}

}  // namespace vtscope
