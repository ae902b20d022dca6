// SPDX-License-Identifier: Apache-2.0
#include "core/summary.h"

#include <cstdio>
#include <sstream>

#include "output/event_format.h"
#include "output/json.h"
#include "output/safe_text.h"

namespace vtscope {

uint64_t Summary::events() const {
    uint64_t total = lost;
    for (uint64_t n : delivered) total += n;
    return total;
}

namespace {

std::string format(const char* fmt, auto... args) {
    char buffer[512];
    std::snprintf(buffer, sizeof(buffer), fmt, args...);
    return buffer;
}

unsigned long long u(uint64_t v) { return static_cast<unsigned long long>(v); }

}  // namespace

std::string render_summary_text(const Summary& s) {
    std::string text = format(
        "vtscope: %s; events %llu: ok %llu, no_context %llu, context_unknown %llu, invalid %llu, "
        "unmapped %llu, lost %llu\n",
        s.stop_reason.c_str(), u(s.events()), u(s.delivered[VTSCOPE_STATUS_OK]),
        u(s.delivered[VTSCOPE_STATUS_NO_CONTEXT]), u(s.delivered[VTSCOPE_STATUS_CONTEXT_UNKNOWN]),
        u(s.delivered[VTSCOPE_STATUS_INVALID]), u(s.delivered[VTSCOPE_STATUS_UNMAPPED]), u(s.lost));
    if (s.lost > 0)
        text += format("vtscope: warning: %llu events were not counted: %s\n", u(s.lost), s.lost_cause.c_str());
    if (s.threads)
        text += format("vtscope: threads: %llu at attach, %llu started, %llu exited during the trace\n",
                       u(s.threads->at_attach), u(s.threads->started), u(s.threads->exited));
    if (s.mappings) {
        text +=
            format("vtscope: %s mappings: %llu inserted, %llu deleted; %llu unmounts and %llu ends found no mapping\n",
                   s.identity.c_str(), u(s.mappings->inserted), u(s.mappings->deleted),
                   u(s.mappings->unmounts_unmapped), u(s.mappings->ends_unmapped));
        if (s.mappings->resets > 0)
            text += format(
                "vtscope: warning: libvtscope.so switched its lifecycle events off during the trace %llu "
                "time(s); every carrier mapping was dropped each time and rebuilt from later mounts\n",
                u(s.mappings->resets));
    }
    if (s.thread_context_tls_error)
        text += "vtscope: otel_thread_ctx_v1 never found: " + terminal_safe(*s.thread_context_tls_error) + "\n";
    if (!s.region_found) {
        text += "vtscope: " + terminal_safe(s.missing_region) + "\n";
    } else if (s.writer) {
        text +=
            format("vtscope: writer records: %llu claimed, %llu released, %llu unavailable; context writers: %s%s%s\n",
                   u(s.writer->claimed), u(s.writer->released), u(s.writer->unavailable),
                   describe_context_writers(s.writer->context_writers).c_str(),
                   s.writer->unavailable ? " (record table full: raise -Dvtscope.records.capacity)" : "",
                   s.writer_final ? "" : " (at the last look, up to 250 ms before the target exited)");
        if (!s.writer->context_writers && !s.missing_writer.empty())
            text += "vtscope: " + terminal_safe(s.missing_writer) + "\n";
    }
    text += s.section_text;
    // The service name is the target's own (its process context); an error names a reply.
    if (!s.otlp_service_name.empty())
        text += "vtscope: otlp resource: service.name " + terminal_safe(s.otlp_service_name) + " (from " +
                terminal_safe(s.otlp_service_name_source) + ")\n";
    for (const ExportCounts& e : s.otlp) {
        const char* what = e.signal == "logs" ? "log records" : "metric exports";
        text += format(
            "vtscope: otlp %s to %s: %llu %s, %llu delivered in %llu requests, %llu dropped (queue full %llu, "
            "not delivered %llu, rejected %llu), %llu retries\n",
            e.signal.c_str(), e.endpoint.c_str(), u(e.records), what, u(e.delivered), u(e.requests), u(e.dropped()),
            u(e.dropped_queue_full), u(e.dropped_failed), u(e.rejected), u(e.retries));
        if (!e.last_error.empty() && e.dropped() > 0)
            text += "vtscope: otlp " + e.signal + ": last failed attempt: " + terminal_safe(e.last_error) + "\n";
    }
    return text;
}

std::string render_summary_json(const Summary& s) {
    std::ostringstream js;
    js << "{\"command\":" << json_quote(s.command) << ",\"identity\":" << json_quote(s.identity)
       << ",\"stop_reason\":" << json_quote(s.stop_reason) << ",\"exit_code\":" << s.exit_code
       << ",\"error\":" << (s.error.empty() ? "null" : json_quote(s.error)) << ",\"events\":" << s.events()
       << ",\"delivered\":{";
    for (unsigned status = 0; status < VTSCOPE_STATUS_COUNT; status++)
        js << (status ? "," : "") << json_quote(status_name(status)) << ":" << s.delivered[status];
    js << "},\"lost\":" << s.lost << ",\"lost_cause\":" << (s.lost ? json_quote(s.lost_cause) : "null");
    js << ",\"threads\":";
    if (s.threads)
        js << "{\"at_attach\":" << s.threads->at_attach << ",\"started\":" << s.threads->started
           << ",\"exited\":" << s.threads->exited << "}";
    else
        js << "null";
    js << ",\"mappings\":";
    if (s.mappings)
        js << "{\"inserted\":" << s.mappings->inserted << ",\"deleted\":" << s.mappings->deleted
           << ",\"unmounts_unmapped\":" << s.mappings->unmounts_unmapped
           << ",\"ends_unmapped\":" << s.mappings->ends_unmapped << ",\"resets\":" << s.mappings->resets << "}";
    else
        js << "null";
    js << ",\"thread_context_tls_error\":"
       << (s.thread_context_tls_error ? json_quote(*s.thread_context_tls_error) : "null");
    js << ",\"region_found\":" << (s.region_found ? "true" : "false")
       << ",\"missing_region\":" << (s.region_found ? "null" : json_quote(s.missing_region)) << ",\"writer\":";
    if (s.writer)
        js << "{\"claimed\":" << s.writer->claimed << ",\"released\":" << s.writer->released
           << ",\"unavailable\":" << s.writer->unavailable
           << ",\"context_writers\":" << json_quote(describe_context_writers(s.writer->context_writers))
           << ",\"missing_writer\":"
           << (s.writer->context_writers || s.missing_writer.empty() ? "null" : json_quote(s.missing_writer))
           << ",\"final\":" << (s.writer_final ? "true" : "false") << "}";
    else
        js << "null";
    if (!s.section_name.empty()) js << "," << json_quote(s.section_name) << ":" << s.section_json;
    // "otlp": the command's first signal (logs for trace and block, metrics for stat and profile);
    // "otlp_signals": every signal by name.
    auto export_json = [&](const ExportCounts& e) {
        js << "{\"signal\":" << json_quote(e.signal) << ",\"endpoint\":" << json_quote(e.endpoint)
           << ",\"records\":" << e.records << ",\"delivered\":" << e.delivered << ",\"dropped\":" << e.dropped()
           << ",\"dropped_queue_full\":" << e.dropped_queue_full << ",\"dropped_failed\":" << e.dropped_failed
           << ",\"rejected\":" << e.rejected << ",\"requests\":" << e.requests << ",\"retries\":" << e.retries
           << ",\"flush_timed_out\":" << (e.flush_timed_out ? "true" : "false")
           << ",\"last_error\":" << (e.last_error.empty() ? "null" : json_quote(e.last_error)) << "}";
    };
    js << ",\"otlp_resource\":";
    if (s.otlp_service_name.empty())
        js << "null";
    else
        js << "{\"service.name\":" << json_quote(s.otlp_service_name)
           << ",\"source\":" << json_quote(s.otlp_service_name_source) << "}";
    js << ",\"otlp\":";
    if (s.otlp.empty())
        js << "null";
    else
        export_json(s.otlp.front());
    js << ",\"otlp_signals\":{";
    for (size_t i = 0; i < s.otlp.size(); i++) {
        js << (i ? "," : "") << json_quote(s.otlp[i].signal) << ":";
        export_json(s.otlp[i]);
    }
    js << "}";
    js << "}";
    return js.str();
}

}  // namespace vtscope
