// SPDX-License-Identifier: Apache-2.0
#include "agent_options.h"

#include <charconv>

#include "../../common/vtscope_record.h"
#include "vtscope_native.h"

namespace vtscope::native {

bool parse_agent_options(std::string_view text, AgentOptions* options, std::string* error) {
    AgentOptions result;
    if (text.empty()) {
        result.features = VTSCOPE_FEATURE_VTT;
        *options = result;
        return true;
    }
    size_t start = 0;
    while (start <= text.size()) {
        size_t comma = text.find(',', start);
        std::string_view item =
            text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        if (item == "vtt") {
            result.features |= VTSCOPE_FEATURE_VTT;
        } else if (item == "probes") {
            result.features |= VTSCOPE_FEATURE_PROBES;
        } else if (item == "otep") {
            result.features |= VTSCOPE_FEATURE_OTEP;
        } else if (item == "otep-jvmti") {
            result.features |= VTSCOPE_FEATURE_OTEP;
            result.otep_jvmti = true;
        } else if (item.substr(0, 12) == "write-patch=") {
            if (item.size() == 12) {
                *error = "write-patch= needs a directory";
                return false;
            }
            result.write_patch_dir = std::string(item.substr(12));
        } else if (item == "paper-release") {
            result.paper_release = true;
        } else if (item.substr(0, 9) == "capacity=") {
            std::string_view digits = item.substr(9);
            uint32_t value = 0;
            auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
            if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size() ||
                value < VTSCOPE_MIN_CAPACITY || value > VTSCOPE_MAX_CAPACITY) {
                *error = "invalid capacity '" + std::string(digits) + "' (" + std::to_string(VTSCOPE_MIN_CAPACITY) +
                         " to " + std::to_string(VTSCOPE_MAX_CAPACITY) + " slots)";
                return false;
            }
            result.capacity = value;
        } else {
            *error = "unknown option '" + std::string(item) +
                     "' (expected vtt, probes, otep, otep-jvmti, capacity=N, paper-release, write-patch=DIR)";
            return false;
        }
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    if (!result.write_patch_dir.empty()) {
        if (result.features != 0 || result.capacity != 0 || result.paper_release) {
            *error = "write-patch=DIR goes alone: it writes the patch and turns no feature on";
            return false;
        }
        *options = result;
        return true;
    }
    if (result.features == 0) {
        *error = "no feature selected (vtt, probes, otep)";
        return false;
    }
    *options = result;
    return true;
}

std::string feature_names(uint32_t features) {
    std::string names;
    auto add = [&](uint32_t bit, const char* name) {
        if (features & bit) names += (names.empty() ? "" : ",") + std::string(name);
    };
    add(VTSCOPE_FEATURE_VTT, "vtt");
    add(VTSCOPE_FEATURE_PROBES, "probes");
    add(VTSCOPE_FEATURE_OTEP, "otep");
    return names;
}

}  // namespace vtscope::native
