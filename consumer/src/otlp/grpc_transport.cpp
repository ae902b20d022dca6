// SPDX-License-Identifier: Apache-2.0
#include "otlp/grpc_transport.h"

#include <google/protobuf/any.pb.h>
#include <google/protobuf/unknown_field_set.h>
#include <grpcpp/grpcpp.h>

#include <fstream>
#include <sstream>

#include "opentelemetry/proto/collector/logs/v1/logs_service.grpc.pb.h"
#include "opentelemetry/proto/collector/metrics/v1/metrics_service.grpc.pb.h"
#include "opentelemetry/proto/collector/profiles/v1development/profiles_service.grpc.pb.h"

namespace vtscope {
namespace {

namespace logs_svc = opentelemetry::proto::collector::logs::v1;
namespace metrics_svc = opentelemetry::proto::collector::metrics::v1;
namespace profiles_svc = opentelemetry::proto::collector::profiles::v1development;

Expected<std::string> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return make_error("cannot read " + path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// The rejected count of a response's partial_success (0 when it has none).
template <typename Response>
uint64_t rejected_of(const Response& response);
template <>
uint64_t rejected_of(const logs_svc::ExportLogsServiceResponse& r) {
    return static_cast<uint64_t>(std::max<int64_t>(0, r.partial_success().rejected_log_records()));
}
template <>
uint64_t rejected_of(const metrics_svc::ExportMetricsServiceResponse& r) {
    return static_cast<uint64_t>(std::max<int64_t>(0, r.partial_success().rejected_data_points()));
}
template <>
uint64_t rejected_of(const profiles_svc::ExportProfilesServiceResponse& r) {
    return static_cast<uint64_t>(std::max<int64_t>(0, r.partial_success().rejected_profiles()));
}

}  // namespace

// google.rpc.Status (googleapis google/rpc/status.proto): field 3 is repeated google.protobuf.Any
// details. The googleapis protos are not among opentelemetry-proto's, so the status is read with
// protobuf's own generic parser (UnknownFieldSet) and each detail with its Any message.
bool grpc_details_have_retry_info(const std::string& details) {
    google::protobuf::UnknownFieldSet status;
    if (details.empty() || !status.ParseFromString(details)) return false;
    for (int i = 0; i < status.field_count(); i++) {
        const google::protobuf::UnknownField& field = status.field(i);
        if (field.number() != 3 || field.type() != google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED) continue;
        google::protobuf::Any any;
        if (any.ParseFromString(field.length_delimited()) &&
            any.type_url() == "type.googleapis.com/google.rpc.RetryInfo")
            return true;
    }
    return false;
}

OtlpReply grpc_reply(const grpc::Status& status) {
    OtlpReply reply;
    if (status.ok()) {
        reply.delivered = true;
        return reply;
    }
    switch (status.error_code()) {
        case grpc::StatusCode::CANCELLED:
        case grpc::StatusCode::DEADLINE_EXCEEDED:
        case grpc::StatusCode::ABORTED:
        case grpc::StatusCode::OUT_OF_RANGE:
        case grpc::StatusCode::UNAVAILABLE:
        case grpc::StatusCode::DATA_LOSS: reply.retryable = true; break;
        case grpc::StatusCode::RESOURCE_EXHAUSTED:
            reply.retryable = grpc_details_have_retry_info(status.error_details());
            break;
        default: break;
    }
    reply.error = "gRPC status " + std::to_string(static_cast<int>(status.error_code()));
    if (!status.error_message().empty()) reply.error += ": " + status.error_message().substr(0, 200);
    return reply;
}

Expected<GrpcTarget> grpc_target(const std::string& endpoint) {
    GrpcTarget target;
    std::string rest = endpoint;
    if (rest.starts_with("https://")) {
        target.tls = true;
        rest = rest.substr(8);
    } else if (rest.starts_with("http://")) {
        rest = rest.substr(7);
    } else if (rest.find("://") != std::string::npos) {
        return make_error("OTLP gRPC endpoint '" + endpoint + "': only http:// and https:// are supported");
    }
    target.authority = rest.substr(0, rest.find('/'));
    if (target.authority.empty()) return make_error("OTLP gRPC endpoint '" + endpoint + "' names no host");
    return target;
}

struct GrpcTransport::Stubs {
    std::string signal;
    std::vector<std::pair<std::string, std::string>> metadata;
    std::unique_ptr<logs_svc::LogsService::Stub> logs;
    std::unique_ptr<metrics_svc::MetricsService::Stub> metrics;
    std::unique_ptr<profiles_svc::ProfilesService::Stub> profiles;
};

GrpcTransport::GrpcTransport(std::unique_ptr<Stubs> stubs) : stubs_(std::move(stubs)) {}
GrpcTransport::~GrpcTransport() = default;

Expected<std::unique_ptr<GrpcTransport>> GrpcTransport::create(
    const std::string& signal, const std::string& endpoint, const OtlpTlsFiles& tls,
    std::vector<std::pair<std::string, std::string>> metadata) {
    auto target = grpc_target(endpoint);
    if (!target) return target.error();
    std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
    if (target->tls) {
        grpc::SslCredentialsOptions ssl;
        for (auto [path, pem] : {std::pair{&tls.ca_file, &ssl.pem_root_certs},
                                 std::pair{&tls.client_certificate_file, &ssl.pem_cert_chain},
                                 std::pair{&tls.client_key_file, &ssl.pem_private_key}}) {
            if (path->empty()) continue;
            auto text = read_file(*path);
            if (!text) return make_error("otlp: " + text.error().message);
            *pem = std::move(*text);
        }
        credentials = grpc::SslCredentials(ssl);
    }
    std::shared_ptr<grpc::Channel> channel = grpc::CreateChannel(target->authority, credentials);
    auto stubs = std::make_unique<Stubs>();
    stubs->signal = signal;
    stubs->metadata = std::move(metadata);
    if (signal == "logs")
        stubs->logs = logs_svc::LogsService::NewStub(channel);
    else if (signal == "metrics")
        stubs->metrics = metrics_svc::MetricsService::NewStub(channel);
    else if (signal == "profiles")
        stubs->profiles = profiles_svc::ProfilesService::NewStub(channel);
    else
        return make_error("otlp: no gRPC service for the signal '" + signal + "'");
    return std::unique_ptr<GrpcTransport>(new GrpcTransport(std::move(stubs)));
}

namespace {

template <typename Stub, typename Request, typename Response>
OtlpReply export_once(Stub& stub, const google::protobuf::Message& message, grpc::ClientContext& context) {
    const auto* request = dynamic_cast<const Request*>(&message);
    if (!request) {
        OtlpReply reply;
        reply.error = "otlp: " + message.GetTypeName() + " sent to the wrong gRPC service";
        return reply;
    }
    Response response;
    OtlpReply reply = grpc_reply(stub.Export(&context, *request, &response));
    if (reply.delivered) reply.rejected = rejected_of(response);
    return reply;
}

}  // namespace

OtlpReply GrpcTransport::send(const google::protobuf::Message& request, std::chrono::milliseconds timeout) {
    grpc::ClientContext context;
    // The OTLP timeout bounds the whole call (exporter specification: "maximum time the OTLP
    // exporter will wait for each batch export").
    context.set_deadline(std::chrono::system_clock::now() + timeout);
    for (const auto& [key, value] : stubs_->metadata) context.AddMetadata(key, value);
    if (stubs_->logs)
        return export_once<logs_svc::LogsService::Stub, logs_svc::ExportLogsServiceRequest,
                           logs_svc::ExportLogsServiceResponse>(*stubs_->logs, request, context);
    if (stubs_->metrics)
        return export_once<metrics_svc::MetricsService::Stub, metrics_svc::ExportMetricsServiceRequest,
                           metrics_svc::ExportMetricsServiceResponse>(*stubs_->metrics, request, context);
    return export_once<profiles_svc::ProfilesService::Stub, profiles_svc::ExportProfilesServiceRequest,
                       profiles_svc::ExportProfilesServiceResponse>(*stubs_->profiles, request, context);
}

}  // namespace vtscope
