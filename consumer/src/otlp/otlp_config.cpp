// SPDX-License-Identifier: Apache-2.0
#include "otlp/otlp_config.h"

namespace vtscope {

Expected<std::string> normalize_otlp_base(const std::string& url, const char* default_port) {
    std::string u = url;
    size_t scheme_end = u.find("://");
    if (scheme_end == std::string::npos) {
        u = "http://" + u;
        scheme_end = 4;
    }
    std::string scheme = u.substr(0, scheme_end);
    if (scheme != "http" && scheme != "https")
        return make_error("OTLP endpoint '" + url + "': only http:// and https:// are supported");
    size_t host_start = scheme_end + 3;
    size_t path_start = u.find('/', host_start);
    std::string authority =
        u.substr(host_start, path_start == std::string::npos ? std::string::npos : path_start - host_start);
    std::string path = path_start == std::string::npos ? "" : u.substr(path_start);
    if (authority.empty()) return make_error("OTLP endpoint '" + url + "' names no host");
    // The port follows the last ':' outside an IPv6 literal's brackets.
    size_t colon = authority.rfind(':');
    size_t bracket = authority.rfind(']');
    bool has_port = colon != std::string::npos && (bracket == std::string::npos || colon > bracket);
    if (has_port) {
        std::string port = authority.substr(colon + 1);
        if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
            return make_error("OTLP endpoint '" + url + "': invalid port '" + port + "'");
    } else {
        authority += std::string(":") + default_port;
    }
    while (!path.empty() && path.back() == '/') path.pop_back();
    return scheme + "://" + authority + path;
}

Expected<std::optional<OtlpEndpoints>> resolve_otlp_endpoints(const std::string& option, const EnvLookup& env,
                                                              const char* default_port) {
    auto from_base = [default_port](const std::string& base) -> Expected<std::optional<OtlpEndpoints>> {
        auto b = normalize_otlp_base(base, default_port);
        if (!b) return b.error();
        return std::optional<OtlpEndpoints>(
            OtlpEndpoints{*b + "/v1/logs", *b + "/v1/metrics", *b + "/v1development/profiles"});
    };
    if (!option.empty()) return from_base(option);
    const char* base = env("OTEL_EXPORTER_OTLP_ENDPOINT");
    const char* logs = env("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT");
    const char* metrics = env("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT");
    const char* profiles = env("OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT");
    auto set = [](const char* v) { return v != nullptr && *v != '\0'; };
    if (!set(base) && !set(logs) && !set(metrics) && !set(profiles)) return std::optional<OtlpEndpoints>();
    OtlpEndpoints endpoints;
    if (set(base)) {
        auto e = from_base(base);
        if (!e) return e.error();
        endpoints = **e;
    }
    // Signal-specific endpoints are full URLs, used as given (OTLP exporter specification).
    if (set(logs)) endpoints.logs = logs;
    if (set(metrics)) endpoints.metrics = metrics;
    if (set(profiles)) endpoints.profiles = profiles;
    return std::optional<OtlpEndpoints>(endpoints);
}

}  // namespace vtscope
