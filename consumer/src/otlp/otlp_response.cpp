// SPDX-License-Identifier: Apache-2.0
#include "otlp/otlp_response.h"

#include <google/protobuf/unknown_field_set.h>
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

template <typename Response, typename Rejected>
OtlpPartialSuccess partial_of(OtlpProtocol protocol, const std::string& body, Rejected rejected) {
    Response r;
    if (!parse_response(protocol, body, r)) return {};
    return {non_negative((r.partial_success().*rejected)()), r.partial_success().error_message()};
}

}  // namespace

OtlpPartialSuccess partial_success_in_response(const std::string& signal, OtlpProtocol protocol,
                                               const std::string& body) {
    namespace logs = opentelemetry::proto::collector::logs::v1;
    namespace metrics = opentelemetry::proto::collector::metrics::v1;
    namespace profiles = opentelemetry::proto::collector::profiles::v1development;
    if (body.empty()) return {};
    if (signal == "logs")
        return partial_of<logs::ExportLogsServiceResponse>(protocol, body,
                                                           &logs::ExportLogsPartialSuccess::rejected_log_records);
    if (signal == "metrics")
        return partial_of<metrics::ExportMetricsServiceResponse>(
            protocol, body, &metrics::ExportMetricsPartialSuccess::rejected_data_points);
    return partial_of<profiles::ExportProfilesServiceResponse>(
        protocol, body, &profiles::ExportProfilesPartialSuccess::rejected_profiles);
}

std::string error_text_in_body(OtlpProtocol protocol, const std::string& body) {
    if (protocol != OtlpProtocol::kHttpProtobuf || body.empty()) return body;
    // google.rpc.Status (googleapis google/rpc/status.proto): 1 code, 2 message, 3 details. Its
    // proto is not among opentelemetry-proto's, so protobuf's generic parser reads it.
    google::protobuf::UnknownFieldSet status;
    if (!status.ParseFromString(body)) return body;
    for (int i = 0; i < status.field_count(); i++) {
        const google::protobuf::UnknownField& field = status.field(i);
        if (field.number() == 2 && field.type() == google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED)
            return field.length_delimited();
    }
    return body;
}

uint64_t rejected_in_response(const std::string& signal, OtlpProtocol protocol, const std::string& body) {
    return partial_success_in_response(signal, protocol, body).rejected;
}

}  // namespace vtscope
