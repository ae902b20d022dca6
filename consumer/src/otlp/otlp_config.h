// SPDX-License-Identifier: Apache-2.0
// Where and how --otlp sends: the endpoint rules of --otlp and the OTEL_EXPORTER_OTLP_* variables,
// and each signal's transport settings (headers, timeout, compression, TLS) resolved from the
// command line, the signal's own variables and the generic ones (OTLP exporter specification,
// opentelemetry-specification/specification/protocol/exporter.md).
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "otlp/otlp_options.h"
#include "otlp/otlp_protocol.h"

namespace vtscope {

// Looks up an environment variable; nullptr when unset (getenv in the product, a map in tests).
using EnvLookup = std::function<const char*(const char*)>;

struct OtlpEndpoints {
    std::string logs;      // full URL of the logs signal (BASE/v1/logs)
    std::string metrics;   // BASE/v1/metrics
    std::string profiles;  // BASE/v1development/profiles (the otlp receiver's path for it)
};

// The endpoints from --otlp (a base URL: http[s]://HOST[:PORT][/PATH], scheme default_scheme
// and port default_port when left out: 4318 for OTLP/HTTP, 4317 for gRPC), else from
// OTEL_EXPORTER_OTLP_LOGS_ENDPOINT / _METRICS_ENDPOINT / _PROFILES_ENDPOINT (used as given) and
// OTEL_EXPORTER_OTLP_ENDPOINT (a base URL). nullopt: no export asked for.
Expected<std::optional<OtlpEndpoints>> resolve_otlp_endpoints(const std::string& option, const EnvLookup& env,
                                                              const char* default_port = "4318",
                                                              const char* default_scheme = "http");
// A base URL made complete: scheme, default port, no trailing slash.
Expected<std::string> normalize_otlp_base(const std::string& url, const char* default_port = "4318",
                                          const char* default_scheme = "http");

// --otlp-protocol when given, else OTEL_EXPORTER_OTLP_<SIGNAL>_PROTOCOL (signal "logs", "metrics"
// or "profiles"; none when empty), else OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf (the
// exporter specification's default).
Expected<OtlpProtocol> resolve_otlp_protocol(const std::string& option, const EnvLookup& env,
                                             const std::string& signal = "");

enum class OtlpCompression { kNone, kGzip };

// Everything one signal's transport needs (the HTTP sender here, the gRPC one too), resolved with
// the precedence: command line > OTEL_EXPORTER_OTLP_<SIGNAL>_* > OTEL_EXPORTER_OTLP_* > default.
struct OtlpSignalConfig {
    std::string signal;    // "logs", "metrics" or "profiles"
    std::string endpoint;  // full URL (may hold user:password@: print display_endpoint instead)
    OtlpProtocol protocol = OtlpProtocol::kHttpProtobuf;
    // Sent with every request. Headers of the command line replace the environment's of the same
    // name (case-insensitively) and add to them; the signal's variable replaces the generic one.
    std::vector<OtlpHeader> headers;
    std::chrono::milliseconds timeout{10000};  // per request, and for the final flush
    OtlpCompression compression = OtlpCompression::kNone;
    std::string certificate;         // CA bundle (PEM) for the receiver's certificate; empty: the system's
    std::string client_key;          // mTLS private key (PEM); empty: none
    std::string client_certificate;  // mTLS certificate chain (PEM); empty: none
    // OTEL_EXPORTER_OTLP_INSECURE: per the specification only for gRPC endpoints given without a
    // scheme (plaintext instead of TLS, which such an endpoint otherwise gets: resolve_otlp_signal
    // writes the scheme in); an http:// or https:// URL says it itself. Certificate verification
    // is never turned off.
    bool insecure = false;
};

struct OtlpSignalConfigs {
    OtlpSignalConfig logs, metrics, profiles;
};

// Every signal's settings; nullopt when no export is asked for (no --otlp, no endpoint variable).
// A signal without an endpoint of its own while another has one gets the specification's default,
// http://localhost:4318/v1/<signal> (gRPC: http://localhost:4317). The TLS files must be readable. An error names the option or
// variable and never a header's value.
Expected<std::optional<OtlpSignalConfigs>> resolve_otlp_signals(const OtlpOptions& options, const EnvLookup& env);
// One signal's ("logs", "metrics", "profiles") settings, the same way: a command checks only the
// settings of the signals it sends (a client key for logs alone does not fail a metrics export).
Expected<std::optional<OtlpSignalConfig>> resolve_otlp_signal(const OtlpOptions& options, const EnvLookup& env,
                                                              const std::string& signal);

// OTEL_EXPORTER_OTLP_HEADERS: "name=value,name2=value2", the W3C Baggage list format without its
// ';' properties, values percent-decoded (RFC 3986). source names the variable in an error, which
// gives the entry's position, never its text (the value is a secret).
Expected<std::vector<OtlpHeader>> parse_otlp_headers(const std::string& list, const std::string& source);
// --otlp-header NAME=VALUE (the value taken as given, not percent-decoded).
Expected<OtlpHeader> parse_otlp_header_option(const std::string& text, const std::string& option);

// The endpoint as it may be printed: a user:password@ in it written as ***@.
std::string display_endpoint(const std::string& url);
// text with every header value (of at least 4 characters) written as "[redacted]": for messages
// that quote what a receiver replied, which could echo a credential back.
std::string redact_header_values(std::string text, const std::vector<OtlpHeader>& headers);

}  // namespace vtscope
