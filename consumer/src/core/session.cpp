// SPDX-License-Identifier: Apache-2.0
#include "core/session.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <utility>

#include "output/diagnostics.h"
#include "output/output_file.h"
#include "output/safe_text.h"

namespace vtscope {
namespace {

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop.store(true); }

int libbpf_print(enum libbpf_print_level level, const char* format, va_list args) {
    if (level == LIBBPF_WARN && std::getenv("VTSCOPE_DEBUG")) return std::vfprintf(stderr, format, args);
    return 0;
}

// One line whatever the message names (a target's reply, path or symbol): terminal_safe.
void error_line(const std::string& message) { diagnostics::error(message); }

Status write_ready_file(const std::string& path) {
    std::string tmp = path + ".tmp";
    {
        auto file = OutputFile::open(tmp, "ready file " + path);  // no symbolic link followed, created 0600
        if (!file) return file.error();
        (*file)->write(std::to_string(getpid()) + "\n");
        (*file)->flush();
        if ((*file)->error())
            return make_error("cannot write ready file " + path + ": " + std::strerror((*file)->error()));
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
        return make_error("cannot write ready file " + path + ": " + std::strerror(errno));
    return ok_status();
}

// Opened as every output is (output_file.h: no symbolic link followed, created 0600).
// The diagnostics are taken here, last, so that they include every line printed before.
Status write_summary_json(const std::string& path, Summary summary) {
    summary.diagnostics = diagnostics::counts();
    auto file = OutputFile::open(path);
    if (!file) return make_error("cannot write summary: " + file.error().message);
    (*file)->write(render_summary_json(summary) + "\n");
    (*file)->flush();
    if ((*file)->error()) return make_error("cannot write summary " + path + ": " + std::strerror((*file)->error()));
    return ok_status();
}

// Polls the event source until a signal, the duration, the target's exit, an error (in *error) or
// a failed output ends the session; the stop reason.
std::string poll_until_stop(const SessionOptions& options, const Target& target, AttributionCore& core,
                            EventSource& source, std::string* error) {
    using Clock = std::chrono::steady_clock;
    auto start = Clock::now();
    auto next_sync = start + std::chrono::milliseconds(250);
    std::string stop_reason = "stopped";
    while (!g_stop.load()) {
        if (auto status = source.poll(std::chrono::milliseconds(50)); !status) {
            *error = status.error().message;
            break;
        }
        auto now = Clock::now();
        if (options.duration_seconds &&
            std::chrono::duration<double>(now - start).count() >= *options.duration_seconds) {
            stop_reason = "duration reached";
            break;
        }
        if (!target.alive()) {
            stop_reason = "target exited";
            break;
        }
        if (now >= next_sync) {
            core.sync(false);  // catches JNI-attached threads, a region created late, ...
            source.sync();
            next_sync = now + std::chrono::milliseconds(250);
        }
        if (source.output_error()) break;
        if (const char* reason = source.stopped()) {
            stop_reason = reason;
            break;
        }
    }
    if (g_stop.load()) stop_reason = "signal";
    return stop_reason;
}

}  // namespace

Status SourceGroup::attach(Links& links) {
    for (EventSource* source : sources_)
        if (auto status = source->attach(links); !status) return status;
    return ok_status();
}

Status SourceGroup::poll(std::chrono::milliseconds timeout) {
    for (size_t i = 0; i < sources_.size(); i++)
        if (auto status = sources_[i]->poll(i + 1 == sources_.size() ? timeout : std::chrono::milliseconds(0)); !status)
            return status;
    return ok_status();
}

void SourceGroup::sync() {
    for (EventSource* source : sources_) source->sync();
}

void SourceGroup::finish() {
    for (EventSource* source : sources_) source->finish();
}

int SourceGroup::output_error() const {
    for (const EventSource* source : sources_)
        if (int err = source->output_error()) return err;
    return 0;
}

// Each source sets (not adds) its counts by status and reason: they are summed here. The last
// source's section and lost cause stand.
void SourceGroup::summarise(Summary& summary) const {
    uint64_t delivered[VTSCOPE_STATUS_COUNT] = {}, reasons[VTSCOPE_REASON_COUNT] = {};
    for (const EventSource* source : sources_) {
        source->summarise(summary);
        for (unsigned s = 0; s < VTSCOPE_STATUS_COUNT; s++) delivered[s] += std::exchange(summary.delivered[s], 0);
        for (unsigned r = 0; r < VTSCOPE_REASON_COUNT; r++) reasons[r] += std::exchange(summary.reasons[r], 0);
    }
    std::copy(std::begin(delivered), std::end(delivered), std::begin(summary.delivered));
    std::copy(std::begin(reasons), std::end(reasons), std::begin(summary.reasons));
}

const char* SourceGroup::stopped() const {
    for (const EventSource* source : sources_)
        if (const char* reason = source->stopped()) return reason;
    return nullptr;
}

void quiet_libbpf() { libbpf_set_print(libbpf_print); }

int fail(const SessionOptions& options, const std::string& message) {
    error_line(message);
    if (!options.summary_json.empty()) {
        Summary summary;
        summary.command = options.command;
        summary.stop_reason = "error";
        summary.error = message;
        summary.exit_code = 1;
        (void)write_summary_json(options.summary_json, summary);
    }
    return 1;
}

int run_session(const SessionOptions& options, const Target& target, AttributionCore& core, EventSource& source) {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    // A closed output pipe must end in an error line and the summary, not a silent SIGPIPE death.
    signal(SIGPIPE, SIG_IGN);

    // The channel's probes, then what existed before them (the thread walk, the region), and only
    // then the event source: an event of a thread that existed at attach always finds it mapped,
    // and events before that are not seen at all rather than reported as unmapped.
    auto attach_failed = [&](const Error& error) {
        return fail(options, target.alive() ? error.message : exited_during_attach(target.pid).message);
    };
    // Two sets of links: the core's (its channel's probes) and the event source's. The source's go
    // first at the stop; the core's only once everything is written (below).
    Links core_links, source_links;
    if (auto status = core.attach(source.object(), core_links); !status) return attach_failed(status.error());
    core.sync(true);
    if (auto status = source.attach(source_links); !status) return attach_failed(status.error());
    if (!options.ready_file.empty())
        if (auto status = write_ready_file(options.ready_file); !status) return fail(options, status.error().message);

    std::string error;
    std::string stop_reason = poll_until_stop(options, target, core, source, &error);

    // The event source is detached first, so no event arrives after the final drain; then nothing
    // collected is lost. The core's probes keep only its thread maps current, which the drain does
    // not need, and they go last: removing a uprobe waits for an SRCU grace period
    // (probe_event_disable, kernel/trace/trace_uprobe.c; uprobe_unregister_sync,
    // kernel/events/uprobes.c), which took over 20 s here while the target kept a CPU busy
    // (bench/RESULTS.md), and the output and the summary must not wait for it.
    source_links.clear();
    source.finish();
    core.finish();

    Summary summary;
    summary.command = options.command;
    summary.stop_reason = error.empty() ? stop_reason : "error";
    core.summarise(summary);
    source.summarise(summary);
    if (!error.empty()) {
        error_line(error);
        summary.error = error;
    } else if (int err = source.output_error()) {
        summary.error = std::string("writing the output failed: ") + std::strerror(err);
    }
    summary.exit_code = summary.error.empty() ? 0 : 1;
    std::fputs(render_summary_text(summary).c_str(), stderr);
    for (const std::string& warning : summary_warnings(summary))
        diagnostics::count(diagnostics::Kind::kWarning, warning);
    diagnostics::count_lines(summary.section_text);
    if (error.empty() && !summary.error.empty()) error_line(summary.error);
    int exit_code = summary.exit_code;
    if (!options.summary_json.empty())
        if (auto status = write_summary_json(options.summary_json, summary); !status) {
            error_line(status.error().message);
            exit_code = 1;
        }
    core_links.clear();
    return exit_code;
}

}  // namespace vtscope
