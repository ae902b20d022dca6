// SPDX-License-Identifier: Apache-2.0
// Where --otlp sends: the endpoint rules of --otlp and the OTEL_EXPORTER_OTLP_* variables.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "core/expected.h"

namespace vtscope {

// Looks up an environment variable; nullptr when unset (getenv in the product, a map in tests).
using EnvLookup = std::function<const char*(const char*)>;

struct OtlpEndpoints {
    std::string logs;      // full URL of the logs signal (BASE/v1/logs)
    std::string metrics;   // BASE/v1/metrics
    std::string profiles;  // BASE/v1development/profiles (the otlp receiver's path for it)
};

// The endpoints from --otlp (a base URL: http[s]://HOST[:PORT][/PATH], scheme http and port
// default_port when left out: 4318 for OTLP/HTTP, 4317 for gRPC), else from OTEL_EXPORTER_OTLP_LOGS_ENDPOINT / _METRICS_ENDPOINT /
// _PROFILES_ENDPOINT (used as given) and OTEL_EXPORTER_OTLP_ENDPOINT (a base URL). nullopt: no
// export asked for.
Expected<std::optional<OtlpEndpoints>> resolve_otlp_endpoints(const std::string& option, const EnvLookup& env,
                                                              const char* default_port = "4318");
// A base URL made complete: scheme, default port, no trailing slash.
Expected<std::string> normalize_otlp_base(const std::string& url, const char* default_port = "4318");

}  // namespace vtscope
