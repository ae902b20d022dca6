// SPDX-License-Identifier: Apache-2.0
#include "otlp/grpc_transport.h"

#include <google/protobuf/any.pb.h>
#include <google/protobuf/unknown_field_set.h>
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <cctype>
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

// A response's partial_success: the rejected count (0 when it has none) and the receiver's words.
void with_partial(OtlpReply& reply, int64_t rejected, const std::string& message) {
    reply.rejected = static_cast<uint64_t>(std::max<int64_t>(0, rejected));
    reply.partial_message = message;
}
void add_partial(OtlpReply& reply, const logs_svc::ExportLogsServiceResponse& r) {
    with_partial(reply, r.partial_success().rejected_log_records(), r.partial_success().error_message());
}
void add_partial(OtlpReply& reply, const metrics_svc::ExportMetricsServiceResponse& r) {
    with_partial(reply, r.partial_success().rejected_data_points(), r.partial_success().error_message());
}
void add_partial(OtlpReply& reply, const profiles_svc::ExportProfilesServiceResponse& r) {
    with_partial(reply, r.partial_success().rejected_profiles(), r.partial_success().error_message());
}

// "Name: value" as gRPC metadata: the key in lowercase, as HTTP/2 requires (RFC 9113 section 8.2.1).
std::pair<std::string, std::string> metadata_entry(const std::string& name, const std::string& value) {
    std::string key = name;
    for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return {key, value};
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

const char* grpc_code_name(grpc::StatusCode code) {
    switch (code) {
        case grpc::StatusCode::OK: return "OK";
        case grpc::StatusCode::CANCELLED: return "CANCELLED";
        case grpc::StatusCode::UNKNOWN: return "UNKNOWN";
        case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
        case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
        case grpc::StatusCode::NOT_FOUND: return "NOT_FOUND";
        case grpc::StatusCode::ALREADY_EXISTS: return "ALREADY_EXISTS";
        case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
        case grpc::StatusCode::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
        case grpc::StatusCode::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
        case grpc::StatusCode::ABORTED: return "ABORTED";
        case grpc::StatusCode::OUT_OF_RANGE: return "OUT_OF_RANGE";
        case grpc::StatusCode::UNIMPLEMENTED: return "UNIMPLEMENTED";
        case grpc::StatusCode::INTERNAL: return "INTERNAL";
        case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
        case grpc::StatusCode::DATA_LOSS: return "DATA_LOSS";
        case grpc::StatusCode::UNAUTHENTICATED: return "UNAUTHENTICATED";
        default: break;
    }
    return "an unknown status";
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
    // One line naming the code: UNAUTHENTICATED and PERMISSION_DENIED say the credentials were refused.
    reply.error = std::string("gRPC ") + grpc_code_name(status.error_code()) + " (" +
                  std::to_string(static_cast<int>(status.error_code())) + ")";
    if (status.error_code() == grpc::StatusCode::UNAUTHENTICATED ||
        status.error_code() == grpc::StatusCode::PERMISSION_DENIED)
        reply.error += ": the receiver refused the credentials (check the headers' token)";
    if (!status.error_message().empty()) reply.error += ": " + status.error_message().substr(0, 200);
    for (char& c : reply.error)
        if (c == '\n' || c == '\r') c = ' ';
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
        return make_error("OTLP gRPC endpoint '" + display_endpoint(endpoint) +
                          "': only http:// and https:// are supported");
    }
    target.authority = rest.substr(0, rest.find('/'));
    // A user:password@ has no place in a gRPC target (credentials go in the headers).
    target.authority = target.authority.substr(target.authority.rfind('@') + 1);
    if (target.authority.empty())
        return make_error("OTLP gRPC endpoint '" + display_endpoint(endpoint) + "' names no host");
    return target;
}

struct GrpcTransport::Stubs {
    std::string signal;
    std::vector<std::pair<std::string, std::string>> metadata;
    std::vector<OtlpHeader> secrets;  // the headers, whose values no error text may carry
    std::unique_ptr<logs_svc::LogsService::Stub> logs;
    std::unique_ptr<metrics_svc::MetricsService::Stub> metrics;
    std::unique_ptr<profiles_svc::ProfilesService::Stub> profiles;
};

GrpcTransport::GrpcTransport(std::unique_ptr<Stubs> stubs) : stubs_(std::move(stubs)) {}
GrpcTransport::~GrpcTransport() = default;

namespace {

// TLS with the CA bundle and the client certificate and key of the settings (empty: the system's
// roots, no client certificate); certificate and host name are always verified.
Expected<std::shared_ptr<grpc::ChannelCredentials>> tls_credentials(const OtlpSignalConfig& config) {
    grpc::SslCredentialsOptions ssl;
    for (auto [path, pem] : {std::pair{&config.certificate, &ssl.pem_root_certs},
                             std::pair{&config.client_certificate, &ssl.pem_cert_chain},
                             std::pair{&config.client_key, &ssl.pem_private_key}}) {
        if (path->empty()) continue;
        auto text = read_file(*path);
        if (!text) return make_error("otlp: " + text.error().message);
        *pem = std::move(*text);
    }
    return grpc::SslCredentials(ssl);
}

}  // namespace

Expected<std::unique_ptr<GrpcTransport>> GrpcTransport::create(const OtlpSignalConfig& config,
                                                               const std::vector<std::string>& extra) {
    auto target = grpc_target(config.endpoint);
    if (!target) return target.error();
    std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
    if (target->tls) {
        auto tls = tls_credentials(config);
        if (!tls) return tls.error();
        credentials = std::move(*tls);
    }
    grpc::ChannelArguments arguments;
    // gzip for every call of the channel (gRPC's message compression, grpc-encoding: gzip), which
    // the Collector's gRPC receiver accepts (OTLP specification: gzip is the one it must take).
    if (config.compression == OtlpCompression::kGzip) arguments.SetCompressionAlgorithm(GRPC_COMPRESS_GZIP);
    arguments.SetUserAgentPrefix("vtscope");
    std::shared_ptr<grpc::Channel> channel = grpc::CreateCustomChannel(target->authority, credentials, arguments);
    auto stubs = std::make_unique<Stubs>();
    stubs->signal = config.signal;
    stubs->secrets = config.headers;
    for (const OtlpHeader& h : config.headers) stubs->metadata.push_back(metadata_entry(h.name, h.value));
    for (const std::string& line : extra) {
        size_t colon = line.find(':');
        size_t value = line.find_first_not_of(' ', colon + 1);
        stubs->metadata.push_back(
            metadata_entry(line.substr(0, colon), value == std::string::npos ? "" : line.substr(value)));
    }
    if (config.signal == "logs")
        stubs->logs = logs_svc::LogsService::NewStub(channel);
    else if (config.signal == "metrics")
        stubs->metrics = metrics_svc::MetricsService::NewStub(channel);
    else if (config.signal == "profiles")
        stubs->profiles = profiles_svc::ProfilesService::NewStub(channel);
    else
        return make_error("otlp: no gRPC service for the signal '" + config.signal + "'");
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
    if (reply.delivered) add_partial(reply, response);
    return reply;
}

}  // namespace

OtlpReply GrpcTransport::send(const google::protobuf::Message& request, std::chrono::milliseconds timeout) {
    grpc::ClientContext context;
    // The OTLP timeout bounds the whole call (exporter specification: "maximum time the OTLP
    // exporter will wait for each batch export").
    context.set_deadline(std::chrono::system_clock::now() + timeout);
    for (const auto& [key, value] : stubs_->metadata) context.AddMetadata(key, value);
    OtlpReply reply;
    if (stubs_->logs)
        reply = export_once<logs_svc::LogsService::Stub, logs_svc::ExportLogsServiceRequest,
                            logs_svc::ExportLogsServiceResponse>(*stubs_->logs, request, context);
    else if (stubs_->metrics)
        reply = export_once<metrics_svc::MetricsService::Stub, metrics_svc::ExportMetricsServiceRequest,
                            metrics_svc::ExportMetricsServiceResponse>(*stubs_->metrics, request, context);
    else
        reply = export_once<profiles_svc::ProfilesService::Stub, profiles_svc::ExportProfilesServiceRequest,
                            profiles_svc::ExportProfilesServiceResponse>(*stubs_->profiles, request, context);
    // A receiver's message could echo a header back: none of their values is printed.
    reply.error = redact_header_values(reply.error, stubs_->secrets);
    reply.partial_message = redact_header_values(reply.partial_message, stubs_->secrets);
    return reply;
}

}  // namespace vtscope
