// SPDX-License-Identifier: Apache-2.0
// The OTLP options every attaching command takes (--otlp, --otlp-protocol, --service,
// --otlp-queue, --otlp-timeout); their table fragment, parsed by the one option parser, is otlp_option_specs
// (cli/option_table.h), so trace, stat, block and profile cannot drift apart.
#pragma once

#include <cstddef>
#include <string>

namespace vtscope {

struct OtlpOptions {
    // The --otlp base URL (empty: from OTEL_EXPORTER_OTLP_ENDPOINT, none when that is unset too).
    std::string endpoint;
    // --otlp-protocol: grpc, http/protobuf or http/json (empty: OTEL_EXPORTER_OTLP_PROTOCOL, else
    // http/protobuf, the specification's default).
    std::string protocol;
    std::string service;   // --service: the resource's service.name
    size_t queue = 65536;  // log records held for export at most
    double timeout_seconds = 10;
};

}  // namespace vtscope
