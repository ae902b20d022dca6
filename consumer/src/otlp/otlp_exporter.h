// SPDX-License-Identifier: Apache-2.0
// The OTLP exporter of --otlp (OTLP/HTTP with libcurl, or gRPC: grpc_transport.h): its own thread, a bounded queue, batches, retries with
// backoff; the drain path only hands it events (offer) or a snapshot of totals (publish) and
// returns: it never waits on the network, and what does not fit in the queue is dropped and
// counted (ExportCounts in the summary).
//
//   queue    at most --otlp-queue events (default 65536, about 6 MB); a full queue drops the event
//   batches  at most 2048 log records per request, sent when 2048 are waiting or 200 ms after
//            the first one was queued
//   retries  429, 502, 503, 504, no connection and timeouts are retried with exponential backoff
//            (100 ms doubling to 5 s, jittered; a Retry-After of 429/503 within those bounds) for
//            as long as the session runs; other replies (401, 403, 400, ...) and TLS verification
//            failures drop the batch (counted). Each attempt has the timeout (10 s, OTLP's default).
//   transport headers (secret: never printed; gRPC metadata), gzip (Content-Encoding, or gRPC's
//            message compression), a custom CA and mTLS, as the signal's OtlpSignalConfig says,
//            over any of the three protocols.
//   finish   shutdown() sends what is queued for at most --otlp-timeout more; what is left then
//            is dropped and counted, and last_error says why.
// A request that times out after the receiver got it is sent again (OTLP is at-least-once); a
// timeout above the receiver's worst pause (a stopped Collector) keeps duplicates out.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/expected.h"
#include "otlp/otlp_encoding.h"
#include "otlp/otlp_config.h"
#include "otlp/otlp_options.h"
#include "otlp/otlp_protocol.h"
#include "otlp/otlp_transport.h"
#include "core/summary.h"

namespace vtscope {

// A metrics or profiles request (Export*ServiceRequest), made when it is sent.
using OtlpSnapshot = std::function<std::unique_ptr<google::protobuf::Message>(
    const std::vector<OtlpAttribute>& resource, uint64_t start_unix_ns, uint64_t now_unix_ns)>;

struct OtlpExporterConfig {
    // signal, endpoint, protocol, headers, timeout, compression, TLS (otlp_config.h)
    OtlpSignalConfig transport;
    std::vector<OtlpAttribute> resource;
    std::vector<std::string> syscall_names;     // logs: names of a syscall event's syscall_index
    std::vector<std::string> protocol_headers;  // vtscope's own headers (gRPC: metadata) ("Name: value")
    size_t queue_capacity = 65536;
};

class OtlpExporter {
public:
    // Starts the exporter thread (libcurl set up first); an error names what failed.
    static Expected<std::unique_ptr<OtlpExporter>> start(OtlpExporterConfig config);
    ~OtlpExporter();  // shutdown() if not done

    // logs: queues one event for export, or counts it dropped when the queue is full. Never blocks
    // beyond a short critical section.
    void offer(const OtlpLogEvent& event);
    // metrics: the cumulative metrics since start; replaces a snapshot not yet sent.
    void publish(std::vector<OtlpMetric> metrics);
    // metrics, profiles: a request made by the exporter thread when it sends (from the
    // resource, the exporter's start and the time of sending); replaces one not yet sent.
    void publish(OtlpSnapshot snapshot);
    // Sends what is pending (at most the timeout more), stops and joins the thread.
    void shutdown();
    ExportCounts counts() const;
    const OtlpSignalConfig& transport() const;

    struct State;

private:
    explicit OtlpExporter(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
};

// The --otlp export of one session: an exporter per signal the command sends (logs, metrics,
// profiles), all under one resource (--service, the target's process context, the environment).
class OtlpSession {
public:
    struct Signals {
        bool logs = false;
        bool metrics = false;
        bool profiles = false;  // profile --otlp-profiles
    };
    // nullptr when no export is asked for (no --otlp, no OTEL_EXPORTER_OTLP_* endpoint).
    static Expected<std::unique_ptr<OtlpSession>> start(const OtlpOptions& options, pid_t pid, Signals signals,
                                                        std::vector<std::string> syscall_names = {});
    OtlpExporter* logs() const { return logs_.get(); }
    OtlpExporter* metrics() const { return metrics_.get(); }
    OtlpExporter* profiles() const { return profiles_.get(); }
    // Sends what is queued (each signal for at most --otlp-timeout), stops the exporters.
    void shutdown();
    // The resource's service.name and its source, the counts of each signal into the summary,
    // and its error line when records were not delivered (unless the session already has an
    // error).
    void summarise(Summary& summary) const;

private:
    OtlpSession() = default;
    std::string service_name_;  // the resource's service.name, and where it came from
    ServiceNameSource service_name_source_ = ServiceNameSource::kDefault;
    std::unique_ptr<OtlpExporter> logs_, metrics_, profiles_;
};

}  // namespace vtscope
