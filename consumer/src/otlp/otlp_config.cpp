// SPDX-License-Identifier: Apache-2.0
#include "otlp/otlp_config.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace vtscope {

Expected<std::string> normalize_otlp_base(const std::string& url, const char* default_port,
                                          const char* default_scheme) {
    std::string u = url;
    size_t scheme_end = u.find("://");
    if (scheme_end == std::string::npos) {
        u = std::string(default_scheme) + "://" + u;
        scheme_end = std::string_view(default_scheme).size();
    }
    std::string scheme = u.substr(0, scheme_end);
    if (scheme != "http" && scheme != "https")
        return make_error("OTLP endpoint '" + display_endpoint(url) + "': only http:// and https:// are supported");
    size_t host_start = scheme_end + 3;
    size_t path_start = u.find('/', host_start);
    std::string authority =
        u.substr(host_start, path_start == std::string::npos ? std::string::npos : path_start - host_start);
    std::string path = path_start == std::string::npos ? "" : u.substr(path_start);
    if (authority.empty()) return make_error("OTLP endpoint '" + display_endpoint(url) + "' names no host");
    // The port follows the last ':' outside an IPv6 literal's brackets.
    size_t colon = authority.rfind(':');
    size_t bracket = authority.rfind(']');
    bool has_port = colon != std::string::npos && (bracket == std::string::npos || colon > bracket);
    if (has_port) {
        std::string port = authority.substr(colon + 1);
        if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
            return make_error("OTLP endpoint '" + display_endpoint(url) + "': invalid port '" + port + "'");
    } else {
        authority += std::string(":") + default_port;
    }
    while (!path.empty() && path.back() == '/') path.pop_back();
    return scheme + "://" + authority + path;
}

Expected<std::optional<OtlpEndpoints>> resolve_otlp_endpoints(const std::string& option, const EnvLookup& env,
                                                              const char* default_port, const char* default_scheme) {
    auto from_base = [=](const std::string& base) -> Expected<std::optional<OtlpEndpoints>> {
        auto b = normalize_otlp_base(base, default_port, default_scheme);
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

namespace vtscope {
namespace {

bool is_set(const char* v) { return v != nullptr && *v != '\0'; }

std::string lower(std::string text) {
    for (char& c : text)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return text;
}

std::string upper(std::string text) {
    for (char& c : text)
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    return text;
}

std::string trim(const std::string& text) {
    size_t b = text.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    size_t e = text.find_last_not_of(" \t");
    return text.substr(b, e - b + 1);
}

// An HTTP field name is a token (RFC 9110 section 5.1, 5.6.2).
bool is_token(const std::string& name) {
    if (name.empty()) return false;
    for (char c : name) {
        bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (!alnum && std::string_view("!#$%&'*+-.^_`|~").find(c) == std::string_view::npos) return false;
    }
    return true;
}

// A field value may not hold CR, LF or NUL (RFC 9110 section 5.5): one would inject a header.
bool is_field_value(const std::string& value) {
    return value.find_first_of(std::string_view("\r\n\0", 3)) == std::string::npos;
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::optional<std::string> percent_decode(const std::string& text) {
    std::string out;
    for (size_t i = 0; i < text.size(); i++) {
        if (text[i] != '%') {
            out += text[i];
            continue;
        }
        int hi = i + 1 < text.size() ? hex_digit(text[i + 1]) : -1;
        int lo = i + 2 < text.size() ? hex_digit(text[i + 2]) : -1;
        if (hi < 0 || lo < 0) return std::nullopt;
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
    }
    return out;
}

// A setting's value and the variable it came from: the signal's own, else the generic one.
struct EnvSetting {
    std::string value;
    std::string source;  // the variable's name; empty when neither is set
};

EnvSetting env_setting(const EnvLookup& env, const std::string& signal_upper, const std::string& suffix) {
    std::string own = "OTEL_EXPORTER_OTLP_" + signal_upper + "_" + suffix;
    std::string generic = "OTEL_EXPORTER_OTLP_" + suffix;
    if (const char* v = env(own.c_str()); is_set(v)) return {v, own};
    if (const char* v = env(generic.c_str()); is_set(v)) return {v, generic};
    return {};
}

Status readable(const std::string& path, const std::string& what, const std::string& source) {
    if (path.empty() || access(path.c_str(), R_OK) == 0) return ok_status();
    return make_error("otlp: " + what + " '" + path + "' (" + source + ") cannot be read: " + std::strerror(errno));
}

// The transport settings beyond the endpoint: the command line's, else the environment's.
Status resolve_settings(const OtlpOptions& o, const EnvLookup& env, const std::string& signal_upper,
                        OtlpSignalConfig& c) {
    if (EnvSetting h = env_setting(env, signal_upper, "HEADERS"); !h.source.empty()) {
        auto headers = parse_otlp_headers(h.value, h.source);
        if (!headers) return headers.error();
        c.headers = std::move(*headers);
    }
    for (const OtlpHeader& given : o.headers) {
        std::erase_if(c.headers, [&](const OtlpHeader& h) { return lower(h.name) == lower(given.name); });
        c.headers.push_back(given);
    }
    if (o.timeout_given) {
        c.timeout = std::chrono::milliseconds(static_cast<int64_t>(o.timeout_seconds * 1000));
    } else if (EnvSetting t = env_setting(env, signal_upper, "TIMEOUT"); !t.source.empty()) {
        // Integer milliseconds (the specification's unit for the timeout variables).
        char* end = nullptr;
        errno = 0;
        long long ms = std::strtoll(t.value.c_str(), &end, 10);
        if (errno != 0 || *end != '\0' || ms <= 0 || ms > 3600000)
            return make_error("invalid " + t.source + ": '" + t.value + "' (milliseconds, > 0 and at most 3600000)");
        c.timeout = std::chrono::milliseconds(ms);
    }
    EnvSetting z = env_setting(env, signal_upper, "COMPRESSION");
    std::string compression = lower(!o.compression.empty() ? o.compression : z.value);
    if (compression == "gzip")
        c.compression = OtlpCompression::kGzip;
    else if (compression.empty() || compression == "none")
        c.compression = OtlpCompression::kNone;
    else
        return make_error("invalid " + (o.compression.empty() ? z.source : std::string("--otlp-compression")) + ": '" +
                          compression + "' (gzip or none)");
    EnvSetting i = env_setting(env, signal_upper, "INSECURE");
    if (o.insecure || lower(i.value) == "true")
        c.insecure = true;
    else if (!i.source.empty() && lower(i.value) != "false")
        return make_error("invalid " + i.source + ": '" + i.value + "' (true or false)");
    struct File {
        std::string OtlpOptions::*option;
        std::string OtlpSignalConfig::*field;
        const char* suffix;
        const char* flag;
        const char* what;
    };
    for (const File& f : {File{&OtlpOptions::certificate, &OtlpSignalConfig::certificate, "CERTIFICATE",
                               "--otlp-certificate", "CA certificate"},
                          File{&OtlpOptions::client_key, &OtlpSignalConfig::client_key, "CLIENT_KEY",
                               "--otlp-client-key", "client key"},
                          File{&OtlpOptions::client_certificate, &OtlpSignalConfig::client_certificate,
                               "CLIENT_CERTIFICATE", "--otlp-client-certificate", "client certificate"}}) {
        EnvSetting e = env_setting(env, signal_upper, f.suffix);
        bool given = !(o.*f.option).empty();
        c.*f.field = given ? o.*f.option : e.value;
        if (auto ok = readable(c.*f.field, f.what, given ? f.flag : e.source); !ok) return ok;
    }
    if (c.client_key.empty() != c.client_certificate.empty())
        return make_error(
            "otlp: mTLS needs both a client certificate and its key (--otlp-client-certificate and "
            "--otlp-client-key, or OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and _CLIENT_KEY)");
    return ok_status();
}

}  // namespace

Expected<std::vector<OtlpHeader>> parse_otlp_headers(const std::string& list, const std::string& source) {
    std::vector<OtlpHeader> headers;
    size_t index = 0;
    for (size_t start = 0; start <= list.size();) {
        size_t comma = list.find(',', start);
        std::string member = trim(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        start = comma == std::string::npos ? list.size() + 1 : comma + 1;
        if (member.empty()) continue;  // "a=1,,b=2" and a trailing comma: nothing between
        index++;
        std::string where = source + ": entry " + std::to_string(index);
        size_t eq = member.find('=');
        if (eq == std::string::npos) return make_error(where + " is not NAME=VALUE");
        std::string name = trim(member.substr(0, eq));
        if (!is_token(name)) return make_error(where + " has no valid header name");
        // W3C Baggage properties (";...") are not part of this format (OTLP exporter specification).
        auto value = percent_decode(trim(member.substr(eq + 1)));
        if (!value) return make_error(where + " (" + name + "): the value has an invalid percent-encoding");
        if (!is_field_value(*value)) return make_error(where + " (" + name + "): the value has a CR, LF or NUL");
        headers.push_back({name, *value});
    }
    return headers;
}

Expected<OtlpHeader> parse_otlp_header_option(const std::string& text, const std::string& option) {
    size_t eq = text.find('=');
    if (eq == std::string::npos) return make_error(option + " needs NAME=VALUE");
    OtlpHeader h{trim(text.substr(0, eq)), trim(text.substr(eq + 1))};
    if (!is_token(h.name)) return make_error(option + ": NAME is not a valid header name");
    if (!is_field_value(h.value)) return make_error(option + " " + h.name + ": the value has a CR, LF or NUL");
    return h;
}

std::string display_endpoint(const std::string& url) {
    size_t scheme = url.find("://");
    size_t host = scheme == std::string::npos ? 0 : scheme + 3;
    size_t end = url.find_first_of("/?#", host);
    size_t at = url.rfind('@', end == std::string::npos ? std::string::npos : end);
    if (at == std::string::npos || at < host) return url;
    return url.substr(0, host) + "***" + url.substr(at);
}

std::string redact_header_values(std::string text, const std::vector<OtlpHeader>& headers) {
    for (const OtlpHeader& h : headers) {
        // A short value ("1", "yes") would redact ordinary words, and is no credential.
        if (h.value.size() < 4) continue;
        for (size_t at = text.find(h.value); at != std::string::npos; at = text.find(h.value, at))
            text.replace(at, h.value.size(), "[redacted]");
    }
    return text;
}

Expected<OtlpProtocol> resolve_otlp_protocol(const std::string& option, const EnvLookup& env,
                                             const std::string& signal) {
    if (!option.empty()) return parse_otlp_protocol(option);
    EnvSetting p;
    if (!signal.empty())
        p = env_setting(env, upper(signal), "PROTOCOL");
    else if (const char* v = env("OTEL_EXPORTER_OTLP_PROTOCOL"); is_set(v))
        p = {v, "OTEL_EXPORTER_OTLP_PROTOCOL"};
    if (p.source.empty()) return OtlpProtocol::kHttpProtobuf;
    auto protocol = parse_otlp_protocol(p.value);
    if (!protocol) return make_error(p.source + ": " + protocol.error().message);
    return protocol;
}

Expected<std::optional<OtlpSignalConfig>> resolve_otlp_signal(const OtlpOptions& options, const EnvLookup& env,
                                                              const std::string& signal) {
    OtlpSignalConfig c;
    c.signal = signal;
    auto protocol = resolve_otlp_protocol(options.protocol, env, signal);
    if (!protocol) return protocol.error();
    c.protocol = *protocol;
    if (auto ok = resolve_settings(options, env, upper(signal), c); !ok) return ok.error();
    // gRPC: an endpoint without a scheme is secure unless OTEL_EXPORTER_OTLP_INSECURE (or
    // --otlp-insecure) says otherwise (exporter specification, "insecure"); OTLP/HTTP: plain http.
    const bool grpc = c.protocol == OtlpProtocol::kGrpc;
    const char* scheme = grpc && !c.insecure ? "https" : "http";
    auto endpoints = resolve_otlp_endpoints(options.endpoint, env, otlp_default_port(c.protocol), scheme);
    if (!endpoints) return endpoints.error();
    if (!*endpoints) return std::optional<OtlpSignalConfig>();
    const std::string OtlpEndpoints::*member = signal == "logs"      ? &OtlpEndpoints::logs
                                               : signal == "metrics" ? &OtlpEndpoints::metrics
                                                                     : &OtlpEndpoints::profiles;
    const std::string path = signal == "profiles" ? "/v1development/profiles" : "/v1/" + signal;
    c.endpoint = (**endpoints).*member;
    if (c.endpoint.empty()) c.endpoint = std::string("http://localhost:") + otlp_default_port(c.protocol) + path;
    if (grpc && c.endpoint.find("://") == std::string::npos) c.endpoint = std::string(scheme) + "://" + c.endpoint;
    return std::optional<OtlpSignalConfig>(std::move(c));
}

Expected<std::optional<OtlpSignalConfigs>> resolve_otlp_signals(const OtlpOptions& options, const EnvLookup& env) {
    OtlpSignalConfigs configs;
    for (OtlpSignalConfig* c : {&configs.logs, &configs.metrics, &configs.profiles}) {
        const char* name = c == &configs.logs ? "logs" : c == &configs.metrics ? "metrics" : "profiles";
        auto one = resolve_otlp_signal(options, env, name);
        if (!one) return one.error();
        if (!*one) return std::optional<OtlpSignalConfigs>();
        *c = std::move(**one);
    }
    return std::optional<OtlpSignalConfigs>(std::move(configs));
}

}  // namespace vtscope
