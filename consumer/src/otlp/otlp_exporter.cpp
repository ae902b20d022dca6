// SPDX-License-Identifier: Apache-2.0
#include "otlp/otlp_exporter.h"

#include <curl/curl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include "channels/process_context.h"
#include "otlp/grpc_transport.h"
#include "otlp/otlp_http.h"
#include "otlp/otlp_response.h"
#include "output/diagnostics.h"
#include "output/safe_text.h"

namespace vtscope {
namespace {

// The failure a summary names. A server that refuses the TLS handshake (mutual TLS without a
// client certificate) closes the connection: one attempt reads its alert ("alert certificate
// required"), the next may only see the socket already gone ("getpeername() failed with errno
// 107"). The TLS cause is kept over such a bare connection error, so the line says why.
std::string telling_error(const std::string& previous, const std::string& next) {
    auto has = [](const std::string& text, const char* part) { return text.find(part) != std::string::npos; };
    bool tls_before = has(previous, "certificate") || has(previous, "SSL") || has(previous, "TLS");
    bool bare_now = has(next, "getpeername") || has(next, "Connection reset") || has(next, "Recv failure") ||
                    has(next, "Send failure");
    return tls_before && bare_now ? previous : next;
}

using Clock = std::chrono::steady_clock;
constexpr size_t kMaxBatch = 2048;
constexpr std::chrono::milliseconds kLinger{200};

int64_t clock_ns(clockid_t clock) {
    timespec ts{};
    clock_gettime(clock, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

size_t collect_body(char* data, size_t size, size_t n, void* user) {
    auto* body = static_cast<std::string*>(user);
    if (body->size() < 65536) body->append(data, size * n);
    return size * n;
}

using Reply = OtlpReply;

}  // namespace

struct OtlpExporter::State {
    OtlpExporterConfig config;
    int64_t realtime_offset_ns = 0;
    uint64_t start_unix_ns = 0;
    CURL* curl = nullptr;
    curl_slist* headers = nullptr;
    std::unique_ptr<OtlpTransport> grpc;    // protocol grpc; else curl
    char curl_error[CURL_ERROR_SIZE] = {};  // libcurl's detail of a failed transfer
    std::minstd_rand jitter{std::random_device{}()};

    std::mutex mu;
    std::condition_variable cv;
    std::deque<OtlpLogEvent> queue;        // logs
    std::optional<OtlpSnapshot> snapshot;  // metrics, profiles: the newest not yet taken
    Clock::time_point first_queued;
    ExportCounts counts;
    std::atomic<bool> stopping{false};
    Clock::time_point deadline;  // set before stopping
    std::thread thread;
    bool joined = false;

    ~State() {
        if (headers) curl_slist_free_all(headers);
        if (curl) curl_easy_cleanup(curl);
    }

    // One POST. A transport failure is retryable unless TLS verification failed (otlp_http.h);
    // every error text has the header values taken out, in case a receiver echoes one.
    Reply post(const std::string& payload, std::chrono::milliseconds timeout) {
        Reply reply;
        std::string response;
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, payload.data());
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(payload.size()));
        curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(std::max<int64_t>(1, timeout.count())));
        curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response);
        curl_error[0] = '\0';
        CURLcode rc = curl_easy_perform(curl);
        if (rc != CURLE_OK) {
            OtlpFailure f = describe_transport_error(rc, curl_easy_strerror(rc), curl_error);
            reply.retryable = f.retryable;
            reply.error = redact_header_values(f.text, config.transport.headers);
            return reply;
        }
        long code = 0;
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
        if (code >= 200 && code < 300) {
            OtlpPartialSuccess partial =
                partial_success_in_response(config.transport.signal, config.transport.protocol, response);
            reply.delivered = true;
            reply.rejected = partial.rejected;
            reply.partial_message = partial.message;
            return reply;
        }
        // libcurl parses Retry-After's both forms, seconds and an HTTP-date (as seconds from now);
        // 0 when absent (CURLINFO_RETRY_AFTER, libcurl 7.66).
        curl_off_t retry_after = 0;
        if ((code == 429 || code == 503) && curl_easy_getinfo(curl, CURLINFO_RETRY_AFTER, &retry_after) == CURLE_OK &&
            retry_after > 0)
            reply.retry_after = static_cast<long>(retry_after);
        OtlpFailure f =
            describe_http_status(code, error_text_in_body(config.transport.protocol, response), reply.retry_after);
        reply.retryable = f.retryable;
        reply.error = redact_header_values(f.text, config.transport.headers);
        return reply;
    }

    // The OTLP/HTTP body: the request encoded once for every attempt, gzipped when the settings
    // say (Content-Encoding: gzip). gRPC encodes (and compresses) it itself.
    Expected<std::string> http_body(const google::protobuf::Message& request) const {
        std::string body = encode_otlp_body(request, config.transport.protocol).bytes;
        if (config.transport.compression != OtlpCompression::kGzip) return body;
        return gzip_compress(body);
    }

    // Sends request until it is delivered, a reply is not retryable, the final flush's deadline
    // passes or (metrics) a newer snapshot makes it moot. nullopt: superseded.
    std::optional<Reply> send(const google::protobuf::Message& request, bool superseded_by_snapshot) {
        Expected<std::string> body = grpc ? Expected<std::string>(std::string()) : http_body(request);
        if (!body) {
            Reply failed;
            failed.error = body.error().message;
            return failed;
        }
        auto backoff = kOtlpFirstBackoff;
        while (true) {
            auto timeout = config.transport.timeout;
            if (stopping.load(std::memory_order_acquire)) {
                auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
                if (left.count() <= 0) {
                    Reply r;  // error left empty: the cause is the last failed attempt
                    std::lock_guard guard(mu);
                    counts.flush_timed_out = true;
                    return r;
                }
                timeout = std::min(timeout, left);
            }
            Reply reply = grpc ? grpc->send(request, timeout) : post(*body, timeout);
            if (reply.delivered || !reply.retryable) return reply;
            std::unique_lock lock(mu);
            counts.retries++;
            counts.last_error = telling_error(counts.last_error, reply.error);
            if (superseded_by_snapshot && snapshot) return std::nullopt;
            double unit = std::uniform_real_distribution<double>(0.0, 1.0)(jitter);
            auto wake = Clock::now() + otlp_retry_wait(backoff, reply.retry_after, unit);
            const bool was_stopping = stopping.load(std::memory_order_acquire);
            if (was_stopping) {
                if (deadline <= Clock::now()) return reply;
                wake = std::min(wake, deadline);
            }
            // A shutdown ends the wait: the final flush tries again at once, within its deadline.
            cv.wait_until(lock, wake, [&] {
                return (superseded_by_snapshot && snapshot.has_value()) || (!was_stopping && stopping.load());
            });
            backoff = std::min(backoff * 2, kOtlpMaxBackoff);
        }
    }

    void run() {
        std::vector<OtlpLogEvent> batch;
        std::unique_lock lock(mu);
        while (true) {
            auto ready = [&] {
                return stopping.load() || snapshot.has_value() || queue.size() >= kMaxBatch ||
                       (!queue.empty() && Clock::now() >= first_queued + kLinger);
            };
            while (!ready()) {
                if (queue.empty())
                    cv.wait(lock);
                else
                    cv.wait_until(lock, first_queued + kLinger);
            }
            if (stopping.load() && Clock::now() >= deadline) {
                // The final flush is over: what is still queued will not be delivered.
                if (!queue.empty() || snapshot) counts.flush_timed_out = true;
                counts.dropped_failed += queue.size();
                queue.clear();
                if (snapshot) {
                    counts.records++;
                    counts.dropped_failed++;
                    snapshot.reset();
                }
                return;
            }
            size_t n = std::min(queue.size(), kMaxBatch);
            batch.assign(queue.begin(), queue.begin() + static_cast<std::ptrdiff_t>(n));
            queue.erase(queue.begin(), queue.begin() + static_cast<std::ptrdiff_t>(n));
            if (!queue.empty()) first_queued = Clock::now();
            const bool have_totals = snapshot.has_value();
            OtlpSnapshot totals;
            if (have_totals) totals = std::move(*snapshot);
            snapshot.reset();
            if (batch.empty() && !have_totals) {
                if (stopping.load()) return;
                continue;
            }
            lock.unlock();
            uint64_t now_unix = static_cast<uint64_t>(clock_ns(CLOCK_REALTIME));
            if (!batch.empty()) {
                auto request =
                    encode_logs_request(config.resource, batch, config.syscall_names, realtime_offset_ns, now_unix);
                std::optional<Reply> reply = send(request, false);
                lock.lock();
                account(*reply, batch.size());
                lock.unlock();
            }
            if (have_totals) {
                std::unique_ptr<google::protobuf::Message> request = totals(config.resource, start_unix_ns, now_unix);
                std::optional<Reply> reply = send(*request, true);
                lock.lock();
                if (reply) account(*reply, 1);  // superseded: the newer snapshot carries its totals
                lock.unlock();
            }
            lock.lock();
        }
    }

    // Under mu.
    void account(const Reply& reply, uint64_t n) {
        if (config.transport.signal == "metrics") counts.records += n;  // logs count at offer
        if (reply.delivered) {
            uint64_t rejected = std::min<uint64_t>(reply.rejected, n);
            counts.requests++;
            counts.delivered += n - rejected;
            counts.rejected += rejected;
            if (!reply.partial_message.empty())
                counts.partial_error =
                    redact_header_values(terminal_safe(reply.partial_message), config.transport.headers);
        } else {
            counts.dropped_failed += n;
            if (!reply.error.empty()) counts.last_error = telling_error(counts.last_error, reply.error);
        }
    }
};

namespace {

// The handle's fixed options: the URL, the headers (the secret ones included: libcurl only sends
// them), TLS as the settings say (libcurl verifies the peer and the host name by default, and
// nothing here turns that off).
void set_up_handle(CURL* c, const OtlpSignalConfig& t, curl_slist* headers, char* error_buffer) {
    curl_easy_setopt(c, CURLOPT_URL, t.endpoint.c_str());
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect_body);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "vtscope");
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error_buffer);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    if (!t.certificate.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, t.certificate.c_str());
    if (!t.client_certificate.empty()) curl_easy_setopt(c, CURLOPT_SSLCERT, t.client_certificate.c_str());
    if (!t.client_key.empty()) curl_easy_setopt(c, CURLOPT_SSLKEY, t.client_key.c_str());
}

}  // namespace

Expected<std::unique_ptr<OtlpExporter>> OtlpExporter::start(OtlpExporterConfig config) {
    static const bool curl_ready = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
    if (!curl_ready) return make_error("otlp: cannot initialise libcurl");
    auto state = std::make_unique<State>();
    if (config.transport.protocol == OtlpProtocol::kGrpc) {
        auto grpc = GrpcTransport::create(config.transport, config.protocol_headers);
        if (!grpc) return grpc.error();
        state->grpc = std::move(*grpc);
    }
    state->curl = curl_easy_init();
    if (!state->curl) return make_error("otlp: cannot create a libcurl handle");
    std::vector<std::string> lines = {
        std::string("Content-Type: ") +
        (config.transport.protocol == OtlpProtocol::kHttpJson ? "application/json" : "application/x-protobuf")};
    if (config.transport.compression == OtlpCompression::kGzip) lines.push_back("Content-Encoding: gzip");
    lines.insert(lines.end(), config.protocol_headers.begin(), config.protocol_headers.end());
    for (const OtlpHeader& h : config.transport.headers) lines.push_back(h.name + ": " + h.value);
    for (const std::string& line : lines) {
        curl_slist* appended = curl_slist_append(state->headers, line.c_str());
        if (!appended) return make_error("otlp: cannot allocate the request's headers");
        state->headers = appended;
    }
    set_up_handle(state->curl, config.transport, state->headers, state->curl_error);
    state->config = std::move(config);
    state->realtime_offset_ns = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC);
    state->start_unix_ns = static_cast<uint64_t>(clock_ns(CLOCK_REALTIME));
    state->counts.signal = state->config.transport.signal;
    state->counts.endpoint = display_endpoint(state->config.transport.endpoint);
    State* raw = state.get();
    state->thread = std::thread([raw] { raw->run(); });
    return std::unique_ptr<OtlpExporter>(new OtlpExporter(std::move(state)));
}

OtlpExporter::OtlpExporter(std::unique_ptr<State> state) : state_(std::move(state)) {}

OtlpExporter::~OtlpExporter() { shutdown(); }

void OtlpExporter::offer(const OtlpLogEvent& event) {
    State& s = *state_;
    std::lock_guard lock(s.mu);
    s.counts.records++;
    if (s.queue.size() >= s.config.queue_capacity) {
        s.counts.dropped_queue_full++;
        return;
    }
    s.queue.push_back(event);
    if (s.queue.size() == 1) {
        s.first_queued = Clock::now();
        s.cv.notify_one();
    } else if (s.queue.size() == kMaxBatch) {
        s.cv.notify_one();
    }
}

void OtlpExporter::publish(std::vector<OtlpMetric> metrics) {
    publish([metrics = std::move(metrics)](const std::vector<OtlpAttribute>& resource, uint64_t start_unix_ns,
                                           uint64_t now_unix_ns) {
        using Request = opentelemetry::proto::collector::metrics::v1::ExportMetricsServiceRequest;
        return std::make_unique<Request>(encode_metrics_request(resource, metrics, start_unix_ns, now_unix_ns));
    });
}

void OtlpExporter::publish(OtlpSnapshot snapshot) {
    State& s = *state_;
    std::lock_guard lock(s.mu);
    s.snapshot = std::move(snapshot);
    s.cv.notify_one();
}

void OtlpExporter::shutdown() {
    State& s = *state_;
    if (s.joined) return;
    {
        std::lock_guard lock(s.mu);
        s.deadline = Clock::now() + s.config.transport.timeout;
        s.stopping.store(true, std::memory_order_release);
        s.cv.notify_one();
    }
    s.thread.join();
    s.joined = true;
}

ExportCounts OtlpExporter::counts() const {
    std::lock_guard lock(state_->mu);
    return state_->counts;
}

const OtlpSignalConfig& OtlpExporter::transport() const { return state_->config.transport; }

Expected<std::unique_ptr<OtlpSession>> OtlpSession::start(const OtlpOptions& options, pid_t pid, Signals signals,
                                                          std::vector<std::string> syscall_names) {
    EnvLookup env = [](const char* name) -> const char* { return std::getenv(name); };
    // Only the signals this command sends: another signal's settings are not its concern.
    std::vector<OtlpSignalConfig> transports;
    for (const auto& [wanted, name] : {std::pair{signals.logs, "logs"}, std::pair{signals.metrics, "metrics"},
                                       std::pair{signals.profiles, "profiles"}}) {
        if (!wanted) continue;
        auto transport = resolve_otlp_signal(options, env, name);
        if (!transport) return transport.error();
        if (!*transport) return std::unique_ptr<OtlpSession>();
        transports.push_back(std::move(**transport));
    }
    if (transports.empty()) return std::unique_ptr<OtlpSession>();
    char host[256] = {};
    if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
    // The application's own resource, when it publishes an OTEP 4719 process context. One that
    // cannot be read is not fatal: the export goes on under the options' and environment's
    // resource, and says why once.
    std::vector<OtlpAttribute> context;
    std::string why_not_target = "the target's process context has no service.name";
    if (auto published = target_process_context(pid); !published) {
        diagnostics::warning("otlp: the target's process context is not used: " + published.error().message);
        why_not_target = "the target's process context could not be read";
    } else if (*published) {
        context = std::move(**published);
    } else {
        why_not_target = "the target publishes no OTEP 4719 process context";
    }
    ServiceNameSource source = ServiceNameSource::kDefault;
    auto resource = make_resource(options.service, env, pid, host, random_uuid(), context, &source);
    if (!resource) return resource.error();
    // A fallback is legitimate, but a silent one files the records under a name the
    // application's own telemetry does not carry; one line says so, and how to fix it.
    if (std::string line = service_name_fallback_line(source, (*resource)[0].text, why_not_target); !line.empty())
        diagnostics::print_formatted(line);
    std::unique_ptr<OtlpSession> session(new OtlpSession());
    session->service_name_ = (*resource)[0].text;
    session->service_name_source_ = source;
    auto start_signal = [&](const OtlpSignalConfig& transport, std::vector<std::string> protocol_headers) {
        OtlpExporterConfig config;
        config.transport = transport;
        config.protocol_headers = std::move(protocol_headers);
        config.resource = *resource;
        config.syscall_names = syscall_names;
        config.queue_capacity = options.queue;
        return OtlpExporter::start(std::move(config));
    };
    for (const OtlpSignalConfig& transport : transports) {
        if (transport.signal == "profiles") continue;
        auto exporter = start_signal(transport, {});
        if (!exporter) return exporter.error();
        (transport.signal == "logs" ? session->logs_ : session->metrics_) = std::move(*exporter);
    }
    if (signals.profiles) {
        // The version of the development-stage profiles schema this encoding follows: the
        // receiver rejects any other (pdata v1.71.0 internal/otlp/profiles_version.go), as an
        // HTTP header or gRPC metadata alike.
        auto exporter = start_signal(transports.back(), {"otlp-profiles-development-version: 1"});
        if (!exporter) return exporter.error();
        session->profiles_ = std::move(*exporter);
    }
    return session;
}

void OtlpSession::shutdown() {
    // One after the other: the final flushes could overlap, but each is bounded by the timeout
    // and the logs (the larger one) go first.
    for (OtlpExporter* e : {logs_.get(), metrics_.get(), profiles_.get()})
        if (e) e->shutdown();
}

void OtlpSession::summarise(Summary& summary) const {
    summary.otlp_service_name = service_name_;
    summary.otlp_service_name_source = service_name_source_name(service_name_source_);
    std::string failures;
    for (OtlpExporter* exporter : {logs_.get(), metrics_.get(), profiles_.get()}) {
        if (!exporter) continue;
        summary.otlp.push_back(exporter->counts());
        const ExportCounts& e = summary.otlp.back();
        if (e.dropped_failed == 0) continue;
        char within[64] = "";
        if (e.flush_timed_out)
            std::snprintf(within, sizeof(within), " within the final flush's %g s",
                          static_cast<double>(exporter->transport().timeout.count()) / 1000);
        failures += (failures.empty() ? "" : "; ") + std::to_string(e.dropped_failed) +
                    (e.signal == "logs" ? " log records" : " " + e.signal.substr(0, e.signal.size() - 1) + " exports") +
                    " not delivered to " + e.endpoint + within +
                    " (last failure: " + (e.last_error.empty() ? std::string("none") : e.last_error) + ")";
    }
    if (!failures.empty() && summary.error.empty()) summary.error = "otlp: " + failures;
}

}  // namespace vtscope
