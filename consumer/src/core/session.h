// SPDX-License-Identifier: Apache-2.0
// A session runs the loop every attaching subcommand shares, and nothing else: attach (the
// attribution core's channel first, then the event source), the ready file, draining and
// syncing until a stop condition, detach, the final drain and the summary. What the events are
// and where they go is the event source's business.
#pragma once

#include <bpf/libbpf.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/attribution_core.h"
#include "core/bpf_util.h"
#include "core/expected.h"
#include "core/summary.h"
#include "process/target.h"

namespace vtscope {

// One BPF program family of the consumer and its sink (see syscall_source.h for an example).
class EventSource {
public:
    virtual ~EventSource() = default;
    // The loaded object that holds the source's programs and the core (configured through
    // AttributionCore::configure before load).
    virtual bpf_object* object() = 0;
    // After the core has attached its channel: the source's own attach points.
    virtual Status attach(Links& links) = 0;
    // Drains what is pending, waiting at most timeout for it; an error ends the session.
    virtual Status poll(std::chrono::milliseconds timeout) = 0;
    // Every sync round (250 ms).
    virtual void sync() {}
    // After the detach: the final drain and whatever is written at the end.
    virtual void finish() = 0;
    // The first output error (errno), 0 while none; the session stops on one.
    virtual int output_error() const = 0;
    virtual void summarise(Summary& summary) const = 0;
    // Why the source has ended the session by itself (vtscope top: "quit", "iterations reached"),
    // nullptr while it has not.
    virtual const char* stopped() const { return nullptr; }
};

// Several sources as one, for a session that runs them together (vtscope top): the first one's
// object holds the core's channel (AttributionCore::configure shares its maps with the others);
// each is attached, synced and finished in order; poll drains the others without waiting and
// waits on the last one; the summary's counts by status are the sums.
class SourceGroup final : public EventSource {
public:
    explicit SourceGroup(std::vector<EventSource*> sources) : sources_(std::move(sources)) {}
    bpf_object* object() override { return sources_.front()->object(); }
    Status attach(Links& links) override;
    Status poll(std::chrono::milliseconds timeout) override;
    void sync() override;
    void finish() override;
    int output_error() const override;
    void summarise(Summary& summary) const override;
    const char* stopped() const override;

private:
    std::vector<EventSource*> sources_;
};

struct SessionOptions {
    std::string command;  // names the subcommand in messages and the summary
    std::optional<double> duration_seconds;
    std::string ready_file;
    std::string summary_json;  // empty: none
};

// The process exit code: 0, or 1 after an error (printed as one line).
int run_session(const SessionOptions& options, const Target& target, AttributionCore& core, EventSource& source);

// "vtscope: error: MESSAGE" on stderr, and the summary JSON (when asked for) carrying the error.
int fail(const SessionOptions& options, const std::string& message);

// libbpf's own messages only with VTSCOPE_DEBUG set: vtscope prints one line per error itself.
void quiet_libbpf();

}  // namespace vtscope
