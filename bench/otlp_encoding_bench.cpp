// SPDX-License-Identifier: Apache-2.0
// vtscope_otlp_encoding_bench: the CPU the OTLP exporter spends on a request, per 100,000 log
// records (in the exporter's batches of 2048) and per profile of 10,000 samples, for each
// protocol: http/json (protobuf's printer and OTLP's id fix-up), http/protobuf (the serialized
// message) and grpc (the serialized message sent by the Export RPC to an in-process server on
// loopback: the calling thread's CPU, which runs gRPC's client side). Every figure is the least
// of 5 rounds (process or thread CPU time, not wall time: the machine may be shared).
//
// The same source also builds against a tree whose encoders return the JSON text itself (the
// hand-written encoder vtscope had before the generated messages): then it measures that one
// only, as "json-handwritten" (scripts/otlp-encoding-bench.sh builds both and prints the two
// runs together).
#include <time.h>

#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "core/profile_model.h"
#include "otlp/otlp_encoding.h"

#if __has_include("otlp/grpc_transport.h")
#include <grpcpp/grpcpp.h>

#include "opentelemetry/proto/collector/logs/v1/logs_service.grpc.pb.h"
#include "opentelemetry/proto/collector/profiles/v1development/profiles_service.grpc.pb.h"
#include "otlp/grpc_transport.h"
#define VTSCOPE_BENCH_GENERATED 1
#endif

namespace {

using namespace vtscope;

constexpr size_t kLogRecords = 100000;
constexpr size_t kBatch = 2048;  // the exporter's largest request (otlp_exporter.h)
constexpr size_t kSamples = 10000;
constexpr int kRounds = 5;

double cpu_seconds(clockid_t clock) {
    timespec ts{};
    clock_gettime(clock, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// The least CPU of kRounds runs of work, in milliseconds.
double least_ms(const std::function<void()>& work, clockid_t clock = CLOCK_PROCESS_CPUTIME_ID) {
    double best = 1e30;
    for (int i = 0; i < kRounds; i++) {
        double start = cpu_seconds(clock);
        work();
        best = std::min(best, (cpu_seconds(clock) - start) * 1000);
    }
    return best;
}

std::vector<OtlpLogEvent> log_events() {
    std::vector<OtlpLogEvent> events;
    std::mt19937_64 random(42);
    for (size_t i = 0; i < kLogRecords; i++) {
        vtscope_syscall_event e{};
        e.ts_ns = 1000000 + i * 1000;
        e.pid = 4242;
        e.tid = 4300 + static_cast<uint32_t>(i % 64);
        e.attribution.status = VTSCOPE_STATUS_OK;
        e.attribution.java_id = 30 + static_cast<int64_t>(i % 64);
        e.attribution.trace_flags = 1;
        for (auto& b : e.attribution.trace_id) b = static_cast<uint8_t>(random());
        for (auto& b : e.attribution.span_id) b = static_cast<uint8_t>(random());
        e.syscall_index = static_cast<uint32_t>(i % 2);
        e.nargs = 3;
        e.args[0] = 7;
        e.args[2] = 4096;
        events.push_back(e);
    }
    return events;
}

// 10,000 samples over 500 stacks of 24 frames from 300 functions, with a trace context each.
std::vector<ProfileRow> profile_rows() {
    std::mt19937_64 random(7);
    std::vector<std::vector<std::string>> stacks(500);
    for (auto& stack : stacks)
        for (int f = 0; f < 24; f++)
            stack.push_back("io.vtscope.workloads.Service.method" + std::to_string(random() % 300));
    std::vector<ProfileRow> rows(kSamples);
    char hex[33];
    for (size_t i = 0; i < rows.size(); i++) {
        ProfileRow& r = rows[i];
        r.tid = 4300 + static_cast<uint32_t>(i % 64);
        r.java_id = 30 + static_cast<int64_t>(i % 64);
        r.status = VTSCOPE_STATUS_OK;
        std::snprintf(hex, sizeof(hex), "%016llx%016llx", static_cast<unsigned long long>(random()),
                      static_cast<unsigned long long>(random()));
        r.trace_id = hex;
        r.span_id = std::string(hex, 16);
        r.frames = stacks[random() % stacks.size()];
        r.cpu_ns = 10000000;
        r.samples = 1;
    }
    return rows;
}

const std::vector<std::string> kSyscalls = {"read", "write"};
const std::vector<OtlpAttribute> kResource = {OtlpAttribute::string("service.name", "bench"),
                                              OtlpAttribute::integer("process.pid", 4242)};

// Encodes every batch of the records into what goes on the wire; the bytes, to keep it honest.
template <typename Encode>
size_t encode_logs(const std::vector<OtlpLogEvent>& events, Encode encode) {
    size_t bytes = 0;
    for (size_t at = 0; at < events.size(); at += kBatch) {
        std::span<const OtlpLogEvent> batch(events.data() + at, std::min(kBatch, events.size() - at));
        bytes += encode(encode_logs_request(kResource, batch, kSyscalls, 0, 1));
    }
    return bytes;
}

void row(const char* protocol, double logs_ms, double profile_ms, size_t log_bytes, size_t profile_bytes) {
    std::printf("%-18s %14.1f %16.1f %14zu %16zu\n", protocol, logs_ms, profile_ms, log_bytes, profile_bytes);
}

#ifdef VTSCOPE_BENCH_GENERATED
namespace logs_svc = opentelemetry::proto::collector::logs::v1;
namespace profiles_svc = opentelemetry::proto::collector::profiles::v1development;

// A receiver that takes every request: what the client side of the Export RPC costs.
struct Sink final : logs_svc::LogsService::Service, profiles_svc::ProfilesService::Service {
    grpc::Status Export(grpc::ServerContext*, const logs_svc::ExportLogsServiceRequest*,
                        logs_svc::ExportLogsServiceResponse*) override {
        return grpc::Status::OK;
    }
    grpc::Status Export(grpc::ServerContext*, const profiles_svc::ExportProfilesServiceRequest*,
                        profiles_svc::ExportProfilesServiceResponse*) override {
        return grpc::Status::OK;
    }
};

size_t body_size(const google::protobuf::Message& m, OtlpProtocol p) { return encode_otlp_body(m, p).bytes.size(); }

int run_generated(const std::vector<OtlpLogEvent>& events, const std::vector<ProfileRow>& rows) {
    auto profile = [&] {
        return encode_profiles_request(kResource, rows, 10000000, 1, 2, "00112233445566778899aabbccddeeff");
    };
    for (OtlpProtocol p : {OtlpProtocol::kHttpJson, OtlpProtocol::kHttpProtobuf}) {
        size_t log_bytes = 0, profile_bytes = 0;
        double logs_ms =
            least_ms([&] { log_bytes = encode_logs(events, [&](const auto& m) { return body_size(m, p); }); });
        double profile_ms = least_ms([&] { profile_bytes = body_size(profile(), p); });
        row(otlp_protocol_name(p), logs_ms, profile_ms, log_bytes, profile_bytes);
    }
    Sink sink;
    int port = 0;
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.SetMaxReceiveMessageSize(64 << 20);
    builder.RegisterService(static_cast<logs_svc::LogsService::Service*>(&sink));
    builder.RegisterService(static_cast<profiles_svc::ProfilesService::Service*>(&sink));
    std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
    OtlpSignalConfig logs_config, profiles_config;
    logs_config.signal = "logs";
    profiles_config.signal = "profiles";
    logs_config.endpoint = profiles_config.endpoint = "http://127.0.0.1:" + std::to_string(port);
    auto logs = GrpcTransport::create(logs_config);
    auto profiles = GrpcTransport::create(profiles_config);
    if (!server || !logs || !profiles) {
        std::fprintf(stderr, "otlp-encoding-bench: cannot start the in-process gRPC server\n");
        return 1;
    }
    size_t failed = 0, log_bytes = 0, profile_bytes = 0;
    auto send = [&](OtlpTransport& t, const google::protobuf::Message& m) {
        failed += !t.send(m, std::chrono::seconds(10)).delivered;
        return m.ByteSizeLong();
    };
    (void)send(**logs,
               encode_logs_request(kResource, {}, kSyscalls, 0, 1));  // the connection, set up outside the rounds
    double logs_ms = least_ms([&] { log_bytes = encode_logs(events, [&](const auto& m) { return send(**logs, m); }); },
                              CLOCK_THREAD_CPUTIME_ID);
    double profile_ms = least_ms([&] { profile_bytes = send(**profiles, profile()); }, CLOCK_THREAD_CPUTIME_ID);
    row("grpc", logs_ms, profile_ms, log_bytes, profile_bytes);
    server->Shutdown();
    if (failed) std::fprintf(stderr, "otlp-encoding-bench: %zu gRPC exports failed\n", failed);
    return failed ? 1 : 0;
}
#endif

}  // namespace

int main() {
    const std::vector<OtlpLogEvent> events = log_events();
    const std::vector<ProfileRow> rows = profile_rows();
    std::printf("%-18s %14s %16s %14s %16s\n", "protocol", "ms/100k logs", "ms/10k-sample", "bytes/100k",
                "bytes/profile");
#ifdef VTSCOPE_BENCH_GENERATED
    return run_generated(events, rows);
#else
    // The hand-written encoder: its functions return the JSON text.
    size_t log_bytes = 0, profile_bytes = 0;
    double logs_ms =
        least_ms([&] { log_bytes = encode_logs(events, [](const std::string& json) { return json.size(); }); });
    double profile_ms = least_ms([&] {
        profile_bytes =
            encode_profiles_request(kResource, rows, 10000000, 1, 2, "00112233445566778899aabbccddeeff").size();
    });
    row("json-handwritten", logs_ms, profile_ms, log_bytes, profile_bytes);
    return 0;
#endif
}
