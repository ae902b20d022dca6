// SPDX-License-Identifier: Apache-2.0
#include "otlp/otlp_response.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>

#include "opentelemetry/proto/collector/logs/v1/logs_service.pb.h"
#include "opentelemetry/proto/collector/metrics/v1/metrics_service.pb.h"
#include "opentelemetry/proto/collector/profiles/v1development/profiles_service.pb.h"

namespace vtscope {
namespace {

// The body parsed into the response message; a body that does not parse rejects nothing we
// can count. JSON: unknown fields are ignored, as the OTLP specification asks of receivers of
// JSON ("MUST ignore fields with unknown names").
template <typename Response>
bool parse_response(OtlpProtocol protocol, const std::string& body, Response& response) {
    if (protocol != OtlpProtocol::kHttpJson) return response.ParseFromString(body);
    google::protobuf::util::JsonParseOptions options;
    options.ignore_unknown_fields = true;
    return google::protobuf::util::JsonStringToMessage(body, &response, options).ok();
}

uint64_t non_negative(int64_t n) { return static_cast<uint64_t>(std::max<int64_t>(0, n)); }

}  // namespace

uint64_t rejected_in_response(const std::string& signal, OtlpProtocol protocol, const std::string& body) {
    if (body.empty()) return 0;
    if (signal == "logs") {
        opentelemetry::proto::collector::logs::v1::ExportLogsServiceResponse r;
        return parse_response(protocol, body, r) ? non_negative(r.partial_success().rejected_log_records()) : 0;
    }
    if (signal == "metrics") {
        opentelemetry::proto::collector::metrics::v1::ExportMetricsServiceResponse r;
        return parse_response(protocol, body, r) ? non_negative(r.partial_success().rejected_data_points()) : 0;
    }
    opentelemetry::proto::collector::profiles::v1development::ExportProfilesServiceResponse r;
    return parse_response(protocol, body, r) ? non_negative(r.partial_success().rejected_profiles()) : 0;
}

}  // namespace vtscope
