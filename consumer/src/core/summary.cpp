// SPDX-License-Identifier: Apache-2.0
#include "core/summary.h"

#include <cstdio>

#include "output/event_format.h"
#include "output/json_io.h"
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

std::vector<std::string> summary_warnings(const Summary& s) {
    std::vector<std::string> warnings;
    if (s.lost > 0) warnings.push_back(format("%llu events were not counted: %s", u(s.lost), s.lost_cause.c_str()));
    if (s.mappings && s.mappings->resets > 0)
        warnings.push_back(
            format("libvtscope.so switched its lifecycle events off during the trace %llu time(s); every carrier "
                   "mapping was dropped each time and rebuilt from later mounts",
                   u(s.mappings->resets)));
    return warnings;
}

// Why no event had a trace context although a context writer declares itself in the region: the
// application never made a span current on a thread vtscope saw. Seen on Helidon SE under agent
// 2.15.0, which has no instrumentation for its server: every event no_context, nothing saying
// why. Empty when some event had a context, or none was without one.
std::string no_context_explanation(const Summary& s) {
    if (!s.region_found || !s.writer || !s.writer->context_writers) return {};
    if (s.delivered[VTSCOPE_STATUS_OK] > 0 || s.delivered[VTSCOPE_STATUS_NO_CONTEXT] == 0) return {};
    return "no event had a trace context: the context writer (" + describe_context_writers(s.writer->context_writers) +
           ") is there, but no span was current on any thread observed; an OpenTelemetry Java agent makes none "
           "current for a server or framework it has no instrumentation for (see its supported libraries), nor "
           "does a span started without makeCurrent()";
}

std::string render_summary_text(const Summary& s) {
    std::string text = format(
        "vtscope: %s; events %llu: ok %llu, no_context %llu, context_unknown %llu, invalid %llu, "
        "unmapped %llu, lost %llu\n",
        s.stop_reason.c_str(), u(s.events()), u(s.delivered[VTSCOPE_STATUS_OK]),
        u(s.delivered[VTSCOPE_STATUS_NO_CONTEXT]), u(s.delivered[VTSCOPE_STATUS_CONTEXT_UNKNOWN]),
        u(s.delivered[VTSCOPE_STATUS_INVALID]), u(s.delivered[VTSCOPE_STATUS_UNMAPPED]), u(s.lost));
    std::vector<std::string> warnings = summary_warnings(s);
    auto warning = warnings.begin();
    if (s.lost > 0) text += diagnostics::line(diagnostics::Kind::kWarning, *warning++);
    if (s.threads)
        text += format("vtscope: threads: %llu at attach, %llu started, %llu exited during the trace\n",
                       u(s.threads->at_attach), u(s.threads->started), u(s.threads->exited));
    if (s.mappings) {
        text +=
            format("vtscope: %s mappings: %llu inserted, %llu deleted; %llu unmounts and %llu ends found no mapping\n",
                   s.identity.c_str(), u(s.mappings->inserted), u(s.mappings->deleted),
                   u(s.mappings->unmounts_unmapped), u(s.mappings->ends_unmapped));
        if (s.mappings->resets > 0) text += diagnostics::line(diagnostics::Kind::kWarning, *warning++);
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
        if (std::string why = no_context_explanation(s); !why.empty())
            text += diagnostics::line(diagnostics::Kind::kNote, why);
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
        if (!e.partial_error.empty())
            text += "vtscope: otlp " + e.signal +
                    ": the receiver's partial success: " + terminal_safe(e.partial_error) + "\n";
    }
    return text;
}

namespace {

OrderedJson text_or_null(bool present, const std::string& text) { return present ? OrderedJson(text) : OrderedJson(); }

OrderedJson export_json(const ExportCounts& e) {
    return {{"signal", e.signal},
            {"endpoint", e.endpoint},
            {"records", e.records},
            {"delivered", e.delivered},
            {"dropped", e.dropped()},
            {"dropped_queue_full", e.dropped_queue_full},
            {"dropped_failed", e.dropped_failed},
            {"rejected", e.rejected},
            {"requests", e.requests},
            {"retries", e.retries},
            {"flush_timed_out", e.flush_timed_out},
            {"last_error", text_or_null(!e.last_error.empty(), e.last_error)},
            {"partial_error", text_or_null(!e.partial_error.empty(), e.partial_error)}};
}

OrderedJson writer_json(const Summary& s) {
    if (!s.writer) return nullptr;
    bool missing = !s.writer->context_writers && !s.missing_writer.empty();
    return {{"claimed", s.writer->claimed},
            {"released", s.writer->released},
            {"unavailable", s.writer->unavailable},
            {"context_writers", describe_context_writers(s.writer->context_writers)},
            {"missing_writer", text_or_null(missing, s.missing_writer)},
            {"why_no_context", text_or_null(!no_context_explanation(s).empty(), no_context_explanation(s))},
            {"final", s.writer_final}};
}

// The fields about the target's threads, mappings and region, in the summary's order.
void add_channel_fields(OrderedJson& j, const Summary& s) {
    j["threads"] = nullptr;
    if (s.threads)
        j["threads"] = {
            {"at_attach", s.threads->at_attach}, {"started", s.threads->started}, {"exited", s.threads->exited}};
    j["mappings"] = nullptr;
    if (s.mappings)
        j["mappings"] = {{"inserted", s.mappings->inserted},
                         {"deleted", s.mappings->deleted},
                         {"unmounts_unmapped", s.mappings->unmounts_unmapped},
                         {"ends_unmapped", s.mappings->ends_unmapped},
                         {"resets", s.mappings->resets}};
    j["thread_context_tls_error"] =
        text_or_null(s.thread_context_tls_error.has_value(), s.thread_context_tls_error.value_or(""));
    j["region_found"] = s.region_found;
    j["missing_region"] = text_or_null(!s.region_found, s.missing_region);
    j["writer"] = writer_json(s);
}

OrderedJson diagnostics_json(const diagnostics::Counts& d) {
    OrderedJson messages = OrderedJson::array();
    for (const auto& m : d.messages) messages.push_back({{"kind", diagnostics::kind_name(m.kind)}, {"text", m.text}});
    return {{"notes", d.notes},
            {"warnings", d.warnings},
            {"errors", d.errors},
            {"messages", messages},
            {"messages_dropped", d.messages_dropped}};
}

}  // namespace

std::string render_summary_json(const Summary& s) {
    OrderedJson j = {{"command", s.command},
                     {"identity", s.identity},
                     {"stop_reason", s.stop_reason},
                     {"exit_code", s.exit_code},
                     {"error", text_or_null(!s.error.empty(), s.error)},
                     {"events", s.events()}};
    OrderedJson delivered = OrderedJson::object();
    for (unsigned status = 0; status < VTSCOPE_STATUS_COUNT; status++)
        delivered[status_name(status)] = s.delivered[status];
    j["delivered"] = delivered;
    // Why events went unattributed (context_unknown, invalid, unmapped), by reason name; only the
    // reasons seen, and only where events are written one by one (trace).
    OrderedJson reasons = OrderedJson::object();
    for (unsigned reason = 1; reason < VTSCOPE_REASON_COUNT; reason++)
        if (s.reasons[reason]) reasons[reason_name(reason)] = s.reasons[reason];
    j["reasons"] = reasons;
    j["lost"] = s.lost;
    j["lost_cause"] = text_or_null(s.lost > 0, s.lost_cause);
    add_channel_fields(j, s);
    // The event source's section is its own JSON text (block_source.cpp, profile_report.cpp).
    if (!s.section_name.empty()) {
        OrderedJson section = OrderedJson::parse(s.section_json, nullptr, false);
        j[s.section_name] = section.is_discarded() ? OrderedJson() : section;
    }
    j["otlp_resource"] = nullptr;
    if (!s.otlp_service_name.empty())
        j["otlp_resource"] = {{"service.name", s.otlp_service_name}, {"source", s.otlp_service_name_source}};
    // "otlp": the command's first signal (logs for trace and block, metrics for stat and profile);
    // "otlp_signals": every signal by name.
    j["otlp"] = s.otlp.empty() ? OrderedJson() : export_json(s.otlp.front());
    j["otlp_signals"] = OrderedJson::object();
    for (const ExportCounts& e : s.otlp) j["otlp_signals"][e.signal] = export_json(e);
    j["diagnostics"] = diagnostics_json(s.diagnostics);
    return json_text(j);
}

}  // namespace vtscope
