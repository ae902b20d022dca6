// SPDX-License-Identifier: Apache-2.0
#include "otlp/otlp_response.h"

#include <cstdlib>
#include <nlohmann/json.hpp>

namespace vtscope {

uint64_t rejected_in_response(const std::string& body) {
    // A body that is not JSON (a proxy's error page, say) rejects nothing we can count.
    nlohmann::json json = nlohmann::json::parse(body, nullptr, false);
    if (json.is_discarded() || !json.is_object()) return 0;
    auto partial = json.find("partialSuccess");
    if (partial == json.end() || !partial->is_object()) return 0;
    for (const char* key : {"rejectedLogRecords", "rejectedDataPoints", "rejectedProfiles"}) {
        auto v = partial->find(key);
        if (v == partial->end()) continue;
        if (v->is_number()) return v->get<uint64_t>();
        if (v->is_string()) return std::strtoull(v->get_ref<const std::string&>().c_str(), nullptr, 10);
    }
    return 0;
}

}  // namespace vtscope
