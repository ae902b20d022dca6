// SPDX-License-Identifier: Apache-2.0
#include "otlp/otlp_response.h"

#include <cstdlib>
#include <nlohmann/json.hpp>

namespace vtscope {

OtlpPartialSuccess partial_success_in_response(const std::string& body) {
    OtlpPartialSuccess result;
    // A body that is not JSON (a proxy's error page, say) rejects nothing we can count.
    nlohmann::json json = nlohmann::json::parse(body, nullptr, false);
    if (json.is_discarded() || !json.is_object()) return result;
    auto partial = json.find("partialSuccess");
    if (partial == json.end() || !partial->is_object()) return result;
    if (auto m = partial->find("errorMessage"); m != partial->end() && m->is_string())
        result.message = m->get<std::string>();
    for (const char* key : {"rejectedLogRecords", "rejectedDataPoints", "rejectedProfiles"}) {
        auto v = partial->find(key);
        if (v == partial->end()) continue;
        // int64 in the proto, so a string in proto3 JSON; a number from lenient encoders.
        if (v->is_number_unsigned()) result.rejected = v->get<uint64_t>();
        if (v->is_string()) result.rejected = std::strtoull(v->get_ref<const std::string&>().c_str(), nullptr, 10);
        break;
    }
    return result;
}

uint64_t rejected_in_response(const std::string& body) { return partial_success_in_response(body).rejected; }

}  // namespace vtscope
