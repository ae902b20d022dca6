// SPDX-License-Identifier: Apache-2.0
// What a session reports when it stops: the human lines on stderr (unchanged since the first
// release, so scripts that grep them keep working) and the same facts as one JSON object for
// --summary-json, which tests, the harness and the bench read (fields: README, "The summary as JSON").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../../bpf/attribution.h"
#include "channels/record_region.h"
#include "output/diagnostics.h"

namespace vtscope {

struct ThreadCounts {
    uint64_t at_attach = 0;  // Java threads found by the walk at attach
    uint64_t started = 0;    // JavaThread::run entries seen while attached
    uint64_t exited = 0;     // Threads::remove entries seen while attached
};

struct MappingCounts {
    uint64_t inserted = 0;
    uint64_t deleted = 0;
    uint64_t unmounts_unmapped = 0;  // unmounts (or ok freezes) that found no mapping
    uint64_t ends_unmapped = 0;      // ends that found no mapping
    uint64_t resets = 0;             // times every mapping was dropped (libvtscope's events went off)
};

// --otlp: what was handed to the exporter and what became of it. Every record handed is, at the
// end, exactly one of delivered, dropped_queue_full, dropped_failed or rejected.
struct ExportCounts {
    std::string signal;               // logs (trace, block), metrics (stat, block, profile)
    std::string endpoint;             // the URL posted to
    uint64_t records = 0;             // log records (events) or metric points handed to the exporter
    uint64_t delivered = 0;           // acknowledged by the receiver (2xx, minus what it rejected)
    uint64_t dropped_queue_full = 0;  // not queued: the queue was full (the receiver was slow or away)
    uint64_t dropped_failed = 0;      // queued, never acknowledged (non-retryable reply, or the final flush timed out)
    uint64_t rejected = 0;            // acknowledged but rejected (partialSuccess)
    uint64_t requests = 0;            // requests that got a 2xx
    uint64_t retries = 0;             // attempts that failed retryably (429/502/503/504, no connection, timeout)
    std::string last_error;           // the last failed attempt, empty if none
    std::string partial_error;        // the receiver's last partialSuccess errorMessage, empty if none
    bool flush_timed_out = false;     // the final flush ended at its deadline with records left
    uint64_t dropped() const { return dropped_queue_full + dropped_failed + rejected; }
};

struct Summary {
    std::string command;                                  // trace, stat
    std::string identity;                                 // the identity channel's name
    std::string stop_reason = "stopped";                  // target exited, duration reached, signal, stopped
    uint64_t delivered[VTSCOPE_STATUS_COUNT] = {};        // events written or counted, by status
    uint64_t reasons[VTSCOPE_REASON_COUNT] = {};          // trace: events written, by reason (0: none)
    uint64_t lost = 0;                                    // events seen but neither written nor counted
    std::string lost_cause;                               // why they were lost (names the full buffer or table)
    std::optional<ThreadCounts> threads;                  // vmstructs
    std::optional<MappingCounts> mappings;                // lifecycle, two-probe, hotspot-probes
    std::optional<std::string> thread_context_tls_error;  // otep-tls: why otel_thread_ctx_v1 was never found
    bool region_found = false;
    std::string missing_region;         // why no region was found (writer_diagnosis.h), when none was
    std::optional<WriterStats> writer;  // the writer's counters, last read
    bool writer_final = false;          // read at the end; false: the last look before the target exited
    std::string missing_writer;         // why no context writer is declared, when writer says none is
    // An event source's own section ("block", "profile"): lines appended to the text
    // summary and one JSON object under section_name in --summary-json; empty: none.
    std::string section_name;
    std::string section_text;
    std::string section_json;
    std::vector<ExportCounts> otlp;  // --otlp: one per signal exported
    // --otlp: the resource's service.name and where it came from (service_name_source_name in
    // otlp_encoding.h); empty without --otlp.
    std::string otlp_service_name;
    std::string otlp_service_name_source;
    std::string error;  // the error that ended the session, empty if none
    int exit_code = 0;
    // Every note, warning and error printed (output/diagnostics.h), taken just before the JSON is
    // written. In --summary-json: "diagnostics": {"notes": N, "warnings": N, "errors": N,
    // "messages": [{"kind": "warning", "text": "..."}, ...] (the first 32, as printed after
    // "vtscope: KIND: "), "messages_dropped": N}; the summary's own warning lines
    // (summary_warnings) are counted there too.
    diagnostics::Counts diagnostics;

    uint64_t events() const;  // delivered + lost: every event of the target seen
};

// The summary's warnings (lost events, lifecycle resets), without the "vtscope: warning: " prefix:
// render_summary_text prints them, the session counts them (diagnostics::count).
std::vector<std::string> summary_warnings(const Summary& summary);
// The lines printed on stderr, each starting with "vtscope: " and ending with a newline.
std::string render_summary_text(const Summary& summary);
// One sentence when a context writer is in the target but no event had a trace context (no span
// was ever current on a thread observed), empty otherwise; a note in the text, why_no_context in
// the JSON's writer object.
std::string no_context_explanation(const Summary& summary);
// One JSON object, no newline inside.
std::string render_summary_json(const Summary& summary);

}  // namespace vtscope
