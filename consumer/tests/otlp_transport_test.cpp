// SPDX-License-Identifier: Apache-2.0
// The OTLP transport settings (headers, timeout, compression, TLS files, per-signal variables and
// their precedence), gzip, the retry wait, the failure texts, and the libcurl sender against a
// scripted HTTP server on 127.0.0.1: gzip bodies, headers, Retry-After in both forms, 401, and
// partial success. No Collector (otlp_test.cpp has the end-to-end runs).
#include <arpa/inet.h>
#include <curl/curl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "cli/options.h"
#include "otlp/otlp_config.h"
#include "otlp/otlp_exporter.h"
#include "otlp/otlp_http.h"
#include "otlp/otlp_response.h"
#include "opentelemetry/proto/collector/metrics/v1/metrics_service.pb.h"

namespace vtscope {
namespace {

EnvLookup env_of(const std::map<std::string, std::string>& vars) {
    return [vars](const char* name) -> const char* {
        auto it = vars.find(name);
        return it == vars.end() ? nullptr : it->second.c_str();
    };
}

OtlpSignalConfigs resolve(const OtlpOptions& options, const std::map<std::string, std::string>& env) {
    auto r = resolve_otlp_signals(options, env_of(env));
    EXPECT_TRUE(r) << r.error().message;
    EXPECT_TRUE(r && *r);
    return r && *r ? **r : OtlpSignalConfigs{};
}

std::string error_of(const OtlpOptions& options, const std::map<std::string, std::string>& env) {
    auto r = resolve_otlp_signals(options, env_of(env));
    EXPECT_FALSE(r);
    return r ? std::string() : r.error().message;
}

TEST(OtlpHeaders, BaggageListPercentDecoded) {
    auto h = parse_otlp_headers(" Authorization = Bearer%20tok%3Den ,,X-Scope-OrgID=t1,", "VAR");
    ASSERT_TRUE(h) << h.error().message;
    ASSERT_EQ(h->size(), 2u);
    EXPECT_EQ((*h)[0].name, "Authorization");
    EXPECT_EQ((*h)[0].value, "Bearer tok=en");
    EXPECT_EQ((*h)[1].name, "X-Scope-OrgID");
    EXPECT_EQ((*h)[1].value, "t1");
    EXPECT_TRUE(parse_otlp_headers("", "VAR")->empty());
}

// A malformed entry is named by its position, never quoted: it may be a token.
TEST(OtlpHeaders, ErrorsNeverQuoteAValue) {
    const std::string secret = "s3cr3t-t0ken";
    for (const std::string& list :
         {"a=1,Bearer " + secret, "a=1,Auth orization=" + secret, "k=%zz" + secret, "k=" + secret + "%0d%0aX: y"}) {
        auto h = parse_otlp_headers(list, "OTEL_EXPORTER_OTLP_HEADERS");
        ASSERT_FALSE(h) << list;
        EXPECT_EQ(h.error().message.find(secret), std::string::npos) << h.error().message;
        EXPECT_NE(h.error().message.find("OTEL_EXPORTER_OTLP_HEADERS: entry"), std::string::npos) << h.error().message;
    }
    auto option = parse_otlp_header_option("Bearer " + secret, "--otlp-header");
    ASSERT_FALSE(option);
    EXPECT_EQ(option.error().message, "--otlp-header needs NAME=VALUE");
}

TEST(OtlpSignalConfig, EndpointsAndDefaults) {
    OtlpOptions none;
    auto off = resolve_otlp_signals(none, env_of({}));
    ASSERT_TRUE(off);
    EXPECT_FALSE(*off);
    // A signal endpoint as given; the others: the generic base, else the specification's default.
    OtlpSignalConfigs c = resolve(none, {{"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "https://l:1/x"}});
    EXPECT_EQ(c.logs.endpoint, "https://l:1/x");
    EXPECT_EQ(c.metrics.endpoint, "http://localhost:4318/v1/metrics");
    EXPECT_EQ(c.profiles.signal, "profiles");
    c = resolve(none, {{"OTEL_EXPORTER_OTLP_ENDPOINT", "g:2"}, {"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://m/"}});
    EXPECT_EQ(c.logs.endpoint, "http://g:2/v1/logs");
    EXPECT_EQ(c.metrics.endpoint, "http://m/");
    OtlpOptions cli;
    cli.endpoint = "https://c";
    c = resolve(cli, {{"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "http://l/"}});
    EXPECT_EQ(c.logs.endpoint, "https://c:4318/v1/logs");
    EXPECT_EQ(c.logs.timeout.count(), 10000);
    EXPECT_EQ(c.logs.compression, OtlpCompression::kNone);
    EXPECT_FALSE(c.logs.insecure);
    EXPECT_TRUE(c.logs.headers.empty());
}

// Command line > OTEL_EXPORTER_OTLP_<SIGNAL>_* > OTEL_EXPORTER_OTLP_* > default, setting by setting.
TEST(OtlpSignalConfig, Precedence) {
    const std::map<std::string, std::string> env = {
        {"OTEL_EXPORTER_OTLP_ENDPOINT", "http://g"},
        {"OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer%20generic,X-Tenant=a"},
        {"OTEL_EXPORTER_OTLP_METRICS_HEADERS", "Authorization=Bearer%20metrics"},
        {"OTEL_EXPORTER_OTLP_TIMEOUT", "2500"},
        {"OTEL_EXPORTER_OTLP_LOGS_TIMEOUT", "700"},
        {"OTEL_EXPORTER_OTLP_COMPRESSION", "gzip"},
        {"OTEL_EXPORTER_OTLP_PROFILES_COMPRESSION", "none"},
        {"OTEL_EXPORTER_OTLP_INSECURE", "TRUE"},
        {"OTEL_EXPORTER_OTLP_LOGS_INSECURE", "false"}};
    OtlpSignalConfigs c = resolve({}, env);
    ASSERT_EQ(c.logs.headers.size(), 2u);
    EXPECT_EQ(c.logs.headers[0].value, "Bearer generic");
    ASSERT_EQ(c.metrics.headers.size(), 1u);  // the signal's variable replaces the generic one
    EXPECT_EQ(c.metrics.headers[0].value, "Bearer metrics");
    EXPECT_EQ(c.logs.timeout.count(), 700);
    EXPECT_EQ(c.metrics.timeout.count(), 2500);
    EXPECT_EQ(c.logs.compression, OtlpCompression::kGzip);
    EXPECT_EQ(c.profiles.compression, OtlpCompression::kNone);
    EXPECT_FALSE(c.logs.insecure);
    EXPECT_TRUE(c.metrics.insecure);

    OtlpOptions cli;
    cli.headers = {{"authorization", "Bearer cli"}, {"X-Extra", "e"}};
    cli.timeout_seconds = 3;
    cli.timeout_given = true;
    cli.compression = "none";
    cli.insecure = true;
    c = resolve(cli, env);
    // The command line's header replaces the environment's of the same name, whatever its case.
    ASSERT_EQ(c.logs.headers.size(), 3u);
    EXPECT_EQ(c.logs.headers[0].name, "X-Tenant");
    EXPECT_EQ(c.logs.headers[1].value, "Bearer cli");
    EXPECT_EQ(c.logs.headers[2].name, "X-Extra");
    EXPECT_EQ(c.metrics.headers.size(), 2u);
    EXPECT_EQ(c.logs.timeout.count(), 3000);
    EXPECT_EQ(c.metrics.compression, OtlpCompression::kNone);
    EXPECT_TRUE(c.logs.insecure);
}

TEST(OtlpSignalConfig, BadValuesNameTheirVariable) {
    const std::map<std::string, std::string> base = {{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://g"}};
    auto with = [&](const std::string& k, const std::string& v) {
        auto env = base;
        env[k] = v;
        return error_of({}, env);
    };
    EXPECT_EQ(with("OTEL_EXPORTER_OTLP_LOGS_TIMEOUT", "10s"),
              "invalid OTEL_EXPORTER_OTLP_LOGS_TIMEOUT: '10s' (milliseconds, > 0 and at most 3600000)");
    EXPECT_EQ(with("OTEL_EXPORTER_OTLP_COMPRESSION", "zstd"),
              "invalid OTEL_EXPORTER_OTLP_COMPRESSION: 'zstd' (gzip or none)");
    EXPECT_EQ(with("OTEL_EXPORTER_OTLP_INSECURE", "yes"), "invalid OTEL_EXPORTER_OTLP_INSECURE: 'yes' (true or false)");
    EXPECT_EQ(with("OTEL_EXPORTER_OTLP_CERTIFICATE", "/nonexistent/ca.pem"),
              "otlp: CA certificate '/nonexistent/ca.pem' (OTEL_EXPORTER_OTLP_CERTIFICATE) cannot be read: No such "
              "file or directory");
    OtlpOptions cli;
    cli.endpoint = "http://c";
    cli.client_certificate = "/proc/self/status";  // readable; its key missing
    EXPECT_NE(error_of(cli, {}).find("mTLS needs both"), std::string::npos);
    // Each signal on its own: a client certificate for logs alone fails only the other signals.
    const std::map<std::string, std::string> logs_only = {
        {"OTEL_EXPORTER_OTLP_ENDPOINT", "https://g"},
        {"OTEL_EXPORTER_OTLP_LOGS_CLIENT_CERTIFICATE", "/proc/self/status"},
        {"OTEL_EXPORTER_OTLP_CLIENT_KEY", "/proc/self/status"}};
    auto logs = resolve_otlp_signal({}, env_of(logs_only), "logs");
    ASSERT_TRUE(logs && *logs) << (logs ? "" : logs.error().message);
    EXPECT_EQ((*logs)->client_certificate, "/proc/self/status");
    EXPECT_FALSE(resolve_otlp_signal({}, env_of(logs_only), "metrics"));
    cli.client_key = "/nonexistent/key.pem";
    EXPECT_EQ(error_of(cli, {}),
              "otlp: client key '/nonexistent/key.pem' (--otlp-client-key) cannot be read: No such file or directory");
}

TEST(OtlpSignalConfig, CommandLineOptions) {
    auto o = parse_options({"trace", "--pid", "1", "--otlp-header", "Authorization=Bearer abc", "--otlp-header=X-A=1",
                            "--otlp-compression", "gzip", "--otlp-certificate", "ca.pem", "--otlp-client-certificate",
                            "c.pem", "--otlp-client-key", "k.pem", "--otlp-insecure"});
    ASSERT_TRUE(o) << o.error().message;
    const OtlpOptions& t = o->trace.otlp;
    ASSERT_EQ(t.headers.size(), 2u);
    EXPECT_EQ(t.headers[0].name, "Authorization");
    EXPECT_EQ(t.headers[0].value, "Bearer abc");
    EXPECT_EQ(t.headers[1].value, "1");
    EXPECT_EQ(t.compression, "gzip");
    EXPECT_EQ(t.certificate, "ca.pem");
    EXPECT_EQ(t.client_certificate, "c.pem");
    EXPECT_EQ(t.client_key, "k.pem");
    EXPECT_TRUE(t.insecure);
    EXPECT_FALSE(t.timeout_given);
    auto bad = parse_options({"stat", "--pid", "1", "--otlp-header", "Bearer s3cr3t"});
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().message.find("s3cr3t"), std::string::npos) << bad.error().message;
    EXPECT_FALSE(parse_options({"block", "--pid", "1", "--otlp-compression", "zstd"}));
    EXPECT_TRUE(parse_options({"profile", "--pid", "1", "--otlp-timeout", "2"})->profile.otlp.timeout_given);
}

std::string gunzip(const std::string& data) {
    z_stream z{};
    EXPECT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
    std::string out(1 << 20, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    z.avail_in = static_cast<uInt>(data.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    EXPECT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
    out.resize(out.size() - z.avail_out);
    inflateEnd(&z);
    return out;
}

TEST(OtlpHttp, GzipRoundTrips) {
    std::string body;
    for (int i = 0; i < 5000; i++) body += "{\"timeUnixNano\":\"" + std::to_string(i * 7919) + "\"},";
    auto zipped = gzip_compress(body);
    ASSERT_TRUE(zipped) << zipped.error().message;
    ASSERT_GE(zipped->size(), 2u);
    EXPECT_EQ(static_cast<unsigned char>((*zipped)[0]), 0x1f);  // the gzip magic (RFC 1952)
    EXPECT_EQ(static_cast<unsigned char>((*zipped)[1]), 0x8b);
    EXPECT_LT(zipped->size(), body.size() / 4);
    EXPECT_EQ(gunzip(*zipped), body);
    EXPECT_EQ(gunzip(*gzip_compress("")), "");
}

TEST(OtlpHttp, RetryWaitJitterAndRetryAfter) {
    using std::chrono::milliseconds;
    EXPECT_EQ(otlp_retry_wait(milliseconds(800), std::nullopt, 0.0), milliseconds(400));
    EXPECT_EQ(otlp_retry_wait(milliseconds(800), std::nullopt, 0.5), milliseconds(600));
    EXPECT_EQ(otlp_retry_wait(milliseconds(800), std::nullopt, 0.999), milliseconds(799));
    EXPECT_EQ(otlp_retry_wait(milliseconds(100), 2L, 0.3), milliseconds(2000));
    EXPECT_EQ(otlp_retry_wait(milliseconds(100), 120L, 0.3), kOtlpMaxBackoff);
    EXPECT_EQ(otlp_retry_wait(milliseconds(3200), 0L, 0.3), kOtlpFirstBackoff);
}

TEST(OtlpHttp, FailureTexts) {
    OtlpFailure unauthorized = describe_http_status(401, "missing or empty authorization header\n", std::nullopt);
    EXPECT_FALSE(unauthorized.retryable);
    EXPECT_EQ(unauthorized.text.rfind("HTTP 401 Unauthorized: ", 0), 0u) << unauthorized.text;
    EXPECT_EQ(unauthorized.text.find('\n'), std::string::npos);
    EXPECT_FALSE(describe_http_status(403, "", std::nullopt).retryable);
    EXPECT_FALSE(describe_http_status(400, "", std::nullopt).retryable);
    for (long code : {429L, 502L, 503L, 504L}) EXPECT_TRUE(describe_http_status(code, "", std::nullopt).retryable);
    EXPECT_EQ(describe_http_status(429, "", 3L).text, "HTTP 429 (Retry-After 3 s)");
    OtlpFailure tls = describe_transport_error(CURLE_PEER_FAILED_VERIFICATION, "SSL peer certificate was not OK",
                                               "SSL certificate problem: unable to get local issuer certificate");
    EXPECT_FALSE(tls.retryable);
    EXPECT_EQ(tls.text,
              "TLS: the receiver's certificate is not trusted (SSL certificate problem: unable to get local issuer "
              "certificate); give its CA with --otlp-certificate or OTEL_EXPORTER_OTLP_CERTIFICATE");
    OtlpFailure down = describe_transport_error(CURLE_COULDNT_CONNECT, "Couldn't connect to server", "");
    EXPECT_TRUE(down.retryable);
    EXPECT_EQ(down.text, "cannot connect: Couldn't connect to server");
}

TEST(OtlpHttp, SecretsOutOfTexts) {
    EXPECT_EQ(display_endpoint("https://user:pw@h:1/v1/logs"), "https://***@h:1/v1/logs");
    EXPECT_EQ(display_endpoint("http://h:1/a@b"), "http://h:1/a@b");
    EXPECT_EQ(redact_header_values("got Bearer abcdef, k=1", {{"Authorization", "Bearer abcdef"}, {"K", "1"}}),
              "got [redacted], k=1");
    OtlpPartialSuccess p = partial_success_in_response(
        "logs", OtlpProtocol::kHttpJson, R"({"partialSuccess":{"rejectedLogRecords":"2","errorMessage":"bad"}})");
    EXPECT_EQ(p.rejected, 2u);
    EXPECT_EQ(p.message, "bad");
    // An http/protobuf error reply: a google.rpc.Status (code 16, message "no token"); its message.
    const std::string status = std::string("\x08\x10\x12\x08no token", 12);
    EXPECT_EQ(error_text_in_body(OtlpProtocol::kHttpProtobuf, status), "no token");
    EXPECT_EQ(error_text_in_body(OtlpProtocol::kHttpJson, "{}"), "{}");
}

// The protocol per signal (OTEL_EXPORTER_OTLP_<SIGNAL>_PROTOCOL over the generic variable, the
// command line over both), its default port, and gRPC's scheme: an endpoint without one is TLS
// unless insecure (exporter specification, "insecure"); an http:// one stays plaintext.
TEST(OtlpSignalConfig, PerSignalProtocolAndGrpcScheme) {
    const std::map<std::string, std::string> env = {{"OTEL_EXPORTER_OTLP_ENDPOINT", "collector"},
                                                    {"OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"},
                                                    {"OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "grpc"}};
    OtlpSignalConfigs c = resolve({}, env);
    EXPECT_EQ(c.logs.protocol, OtlpProtocol::kGrpc);
    EXPECT_EQ(c.logs.endpoint, "https://collector:4317/v1/logs");
    EXPECT_EQ(c.metrics.protocol, OtlpProtocol::kHttpJson);
    EXPECT_EQ(c.metrics.endpoint, "http://collector:4318/v1/metrics");
    auto insecure = env;
    insecure["OTEL_EXPORTER_OTLP_LOGS_INSECURE"] = "true";
    EXPECT_EQ(resolve({}, insecure).logs.endpoint, "http://collector:4317/v1/logs");
    OtlpOptions cli;
    cli.protocol = "http/protobuf";
    EXPECT_EQ(resolve(cli, env).logs.protocol, OtlpProtocol::kHttpProtobuf);
    EXPECT_EQ(resolve(cli, env).logs.endpoint, "http://collector:4318/v1/logs");
    cli.protocol = "grpc";
    cli.endpoint = "http://c:1";
    EXPECT_EQ(resolve(cli, {}).profiles.endpoint, "http://c:1/v1development/profiles");
    auto bad = env;
    bad["OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"] = "http";
    EXPECT_EQ(error_of({}, bad).rfind("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: unknown OTLP protocol 'http'", 0), 0u);
}

// A scripted HTTP/1.1 server on 127.0.0.1: one request per connection (each reply closes it),
// the replies in order; it keeps what each request carried.
struct ScriptedServer {
    struct Request {
        std::string head;  // request line and headers
        std::string body;
        std::chrono::steady_clock::time_point at;
    };
    int fd = -1;
    int port = 0;
    std::vector<std::string> replies;
    std::vector<Request> requests;
    std::thread thread;

    explicit ScriptedServer(std::vector<std::string> script) : replies(std::move(script)) {
        fd = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof(a);
        if (bind(fd, reinterpret_cast<sockaddr*>(&a), len) != 0 || listen(fd, 8) != 0 ||
            getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
            ADD_FAILURE() << "cannot listen on 127.0.0.1";
        port = ntohs(a.sin_port);
        thread = std::thread([this] { serve(); });
    }
    ~ScriptedServer() {
        if (thread.joinable()) thread.join();
        close(fd);
    }
    void serve() {
        for (const std::string& reply : replies) {
            int c = accept(fd, nullptr, nullptr);
            if (c < 0) return;
            Request r;
            r.head = read_request(c);
            r.at = std::chrono::steady_clock::now();
            size_t end = r.head.find("\r\n\r\n");
            if (end != std::string::npos) {
                r.body = r.head.substr(end + 4);
                r.head.resize(end);
            }
            requests.push_back(r);
            (void)!write(c, reply.data(), reply.size());
            close(c);
        }
    }
    static std::string read_request(int c) {
        std::string data;
        char buf[65536];
        size_t need = std::string::npos;
        while (need == std::string::npos || data.size() < need) {
            ssize_t n = read(c, buf, sizeof(buf));
            if (n <= 0) break;
            data.append(buf, static_cast<size_t>(n));
            size_t end = data.find("\r\n\r\n");
            size_t cl = data.find("Content-Length: ");
            if (need == std::string::npos && end != std::string::npos && cl != std::string::npos && cl < end)
                need = end + 4 + std::stoul(data.substr(cl + 16));
        }
        return data;
    }
};

std::string reply(const std::string& status, const std::string& extra, const std::string& body) {
    return "HTTP/1.1 " + status + "\r\nContent-Type: application/json\r\nConnection: close\r\n" + extra +
           "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string http_date(time_t t) {
    char text[64];
    tm utc{};
    gmtime_r(&t, &utc);
    strftime(text, sizeof(text), "%a, %d %b %Y %H:%M:%S GMT", &utc);
    return text;
}

using MetricsRequest = opentelemetry::proto::collector::metrics::v1::ExportMetricsServiceRequest;

OtlpExporterConfig metrics_config(int port, OtlpCompression compression) {
    OtlpExporterConfig config;
    config.transport.signal = "metrics";
    config.transport.endpoint = "http://127.0.0.1:" + std::to_string(port) + "/v1/metrics";
    config.transport.headers = {{"Authorization", "Bearer t0ken-under-test"}};
    config.transport.compression = compression;
    config.transport.timeout = std::chrono::milliseconds(20000);
    config.transport.protocol = OtlpProtocol::kHttpJson;  // the scripted replies are JSON
    return config;
}

// 503 with an HTTP-date Retry-After, 429 with seconds, then 200 with a partial success: the
// sender waits as told (not its 100 ms first backoff), sends gzip with the header, and reports
// the receiver's message.
TEST(OtlpSender, GzipHeadersRetryAfterAndPartialSuccess) {
    ScriptedServer server(
        {reply("503 Service Unavailable", "Retry-After: " + http_date(time(nullptr) + 3) + "\r\n", ""),
         reply("429 Too Many Requests", "Retry-After: 1\r\n", ""),
         reply("200 OK", "", R"({"partialSuccess":{"rejectedDataPoints":"0","errorMessage":"2 points late"}})")});
    auto exporter = OtlpExporter::start(metrics_config(server.port, OtlpCompression::kGzip));
    ASSERT_TRUE(exporter) << exporter.error().message;
    MetricsRequest request;
    request.add_resource_metrics()->mutable_resource()->add_attributes()->set_key("k");
    const std::string body = encode_otlp_body(request, OtlpProtocol::kHttpJson).bytes;
    (*exporter)->publish([&](const std::vector<OtlpAttribute>&, uint64_t, uint64_t) {
        return std::make_unique<MetricsRequest>(request);
    });
    server.thread.join();
    (*exporter)->shutdown();
    ASSERT_EQ(server.requests.size(), 3u);
    for (const auto& r : server.requests) {
        EXPECT_NE(r.head.find("\r\nContent-Encoding: gzip"), std::string::npos) << r.head;
        EXPECT_NE(r.head.find("\r\nAuthorization: Bearer t0ken-under-test"), std::string::npos) << r.head;
        EXPECT_EQ(gunzip(r.body), body);
    }
    // Retry-After, not the 100-200 ms backoff: at least 1 s between the 429 and the next attempt
    // (the HTTP-date's wait is whole seconds from now, so at least 1 s too).
    EXPECT_GE(server.requests[1].at - server.requests[0].at, std::chrono::milliseconds(900));
    EXPECT_GE(server.requests[2].at - server.requests[1].at, std::chrono::milliseconds(900));
    ExportCounts counts = (*exporter)->counts();
    EXPECT_EQ(counts.retries, 2u);
    EXPECT_EQ(counts.delivered, 1u);
    EXPECT_EQ(counts.last_error, "HTTP 429 (Retry-After 1 s)");
    EXPECT_EQ(counts.partial_error, "2 points late");
}

// 401 is not retried; the reply's text is kept, the token it echoes is not.
TEST(OtlpSender, UnauthorizedIsOneFailureWithoutTheToken) {
    ScriptedServer server({reply("401 Unauthorized", "", "refused: Bearer t0ken-under-test")});
    auto exporter = OtlpExporter::start(metrics_config(server.port, OtlpCompression::kNone));
    ASSERT_TRUE(exporter) << exporter.error().message;
    (*exporter)->publish(
        [](const std::vector<OtlpAttribute>&, uint64_t, uint64_t) { return std::make_unique<MetricsRequest>(); });
    server.thread.join();
    (*exporter)->shutdown();
    ExportCounts counts = (*exporter)->counts();
    EXPECT_EQ(counts.retries, 0u);
    EXPECT_EQ(counts.dropped_failed, 1u);
    EXPECT_EQ(counts.last_error.rfind("HTTP 401 Unauthorized: ", 0), 0u) << counts.last_error;
    EXPECT_NE(counts.last_error.find("refused: [redacted]"), std::string::npos) << counts.last_error;
    EXPECT_EQ(counts.last_error.find("t0ken"), std::string::npos) << counts.last_error;
}

}  // namespace
}  // namespace vtscope
