// SPDX-License-Identifier: Apache-2.0
// The OTLP options every attaching command takes (--otlp, --otlp-protocol, --service, --otlp-queue,
// --otlp-timeout, --otlp-header, --otlp-compression, the TLS files, --otlp-insecure); their table
// fragment, parsed by the one option parser, is otlp_option_specs (cli/option_table.h), so trace,
// stat, block and profile cannot drift apart. What they resolve to, with the environment, is
// OtlpSignalConfig (otlp_config.h).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace vtscope {

// One HTTP header (or gRPC metadata entry) sent with every export. The value is a secret (a
// bearer token, an API key): it is never printed, in no error, note, summary or log.
struct OtlpHeader {
    std::string name;
    std::string value;
};

struct OtlpOptions {
    // The --otlp base URL (empty: from OTEL_EXPORTER_OTLP_ENDPOINT, none when that is unset too).
    std::string endpoint;
    // --otlp-protocol: grpc, http/protobuf or http/json (empty: OTEL_EXPORTER_OTLP_<SIGNAL>_PROTOCOL,
    // else OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf, the specification's default).
    std::string protocol;
    std::string service;   // --service: the resource's service.name
    size_t queue = 65536;  // log records held for export at most
    double timeout_seconds = 10;
    bool timeout_given = false;       // --otlp-timeout given (else OTEL_EXPORTER_OTLP_TIMEOUT, else 10)
    std::vector<OtlpHeader> headers;  // --otlp-header NAME=VALUE, in order; override the environment's by name
    std::string compression;          // --otlp-compression gzip|none; empty: the environment's, else none
    std::string certificate;          // --otlp-certificate: CA bundle (PEM) to verify the receiver with
    std::string client_key;           // --otlp-client-key: private key (PEM) for mTLS
    std::string client_certificate;   // --otlp-client-certificate: certificate chain (PEM) for mTLS
    bool insecure = false;            // --otlp-insecure given
};

}  // namespace vtscope
