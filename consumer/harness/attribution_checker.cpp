// SPDX-License-Identifier: Apache-2.0
#include "attribution_checker.h"

#include <algorithm>
#include <optional>
#include <sstream>

#include "output/json_io.h"
#include "output/report.h"

namespace vtscope::testing {

namespace {
struct Expected {
    int64_t sender = 0, seq = 0, thread_id = 0, fd = 0, count = 0;
    std::optional<int64_t> vthread;
    std::string trace_id, span_id;
    int64_t trace_flags = 0;
};
}  // namespace

std::string CheckResult::summary() const {
    std::ostringstream s;
    s << "expected " << expected << ", observed " << observed << ", correct " << correct << ", misattributed "
      << misattributed << ", unattributed " << unattributed << ", missing " << missing << ", extra " << extra
      << ", failures after a first marker " << failures_after_first;
    for (const auto& [cause, n] : unattributed_causes) s << "\n  unattributed " << cause << ": " << n;
    for (const auto& example : misattribution_examples) s << "\n  misattributed: " << example;
    return s.str();
}

CheckResult check_markers(const std::vector<std::string>& expected_lines, const std::vector<std::string>& trace_lines) {
    CheckResult r;
    std::map<int64_t, std::vector<Expected>> by_count;  // marker length -> that sender's markers
    int64_t marker_fd = -1;
    for (const std::string& line : expected_lines) {
        Expected e;
        Json j = parse_json(line);
        auto get = [&](const char* key) { return json_int_member(j, key); };
        auto sender = get("sender"), seq = get("seq"), count = get("count"), fd = get("fd"),
             thread_id = get("thread_id");
        if (!sender || !seq || !count || !fd || !thread_id) continue;
        e.sender = *sender;
        e.seq = *seq;
        e.count = *count;
        e.fd = *fd;
        e.thread_id = *thread_id;
        e.vthread = get("vthread");
        e.trace_id = json_string_member(j, "trace_id").value_or("");
        e.span_id = json_string_member(j, "span_id").value_or("");
        e.trace_flags = get("trace_flags").value_or(-1);
        marker_fd = e.fd;
        by_count[e.count].push_back(e);
        r.expected++;
    }
    for (auto& [count, list] : by_count)
        std::sort(list.begin(), list.end(), [](const Expected& a, const Expected& b) { return a.seq < b.seq; });

    std::vector<std::pair<uint64_t, ParsedEvent>> ordered;
    for (const std::string& line : trace_lines) {
        auto e = parse_event_line(line);
        if (!e || e->syscall != "write" || e->fd != marker_fd || !e->count) continue;
        ordered.emplace_back(static_cast<uint64_t>(json_int_field(line, "ts_ns").value_or(0)), *e);
    }
    std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first < b.first; });

    std::map<int64_t, size_t> next_seq;
    for (const auto& [ts, e] : ordered) {
        auto it = by_count.find(static_cast<int64_t>(*e.count));
        if (it == by_count.end()) {
            r.extra++;
            continue;
        }
        size_t index = next_seq[it->first]++;
        if (index >= it->second.size()) {
            r.extra++;
            continue;
        }
        const Expected& want = it->second[index];
        r.observed++;
        if (e.status != "ok" && e.status != "no_context" && e.status != "context_unknown" && e.status != "invalid" &&
            e.status != "unmapped") {
            r.misattributed++;
            if (want.seq != 0) r.failures_after_first++;
            continue;
        }
        // Identity plane: whatever vtscope names must be the sender (a null vthread for a
        // platform sender counts only when java_thread is the sender's own id).
        bool identity_given = e.java_thread.has_value();
        bool identity_right = identity_given && *e.java_thread == want.thread_id && e.vthread == want.vthread;
        bool content_given = e.status == "ok";
        bool content_right = content_given && e.trace_id == want.trace_id && e.span_id == want.span_id &&
                             e.trace_flags == want.trace_flags;
        // Per plane, independently (the paper's dual-channel classification).
        if (!identity_given)
            r.identity.unmapped++;
        else if (identity_right)
            r.identity.correct++;
        else
            r.identity.misattributed++;
        if (e.status == "invalid") {
            r.content.invalid++;
        } else if (!content_given) {
            r.content.unmapped++;
        } else if (content_right) {
            r.content.correct++;
        } else {
            r.content.misattributed++;
            (e.trace_id == want.trace_id ? r.content_wrong_span : r.content_foreign)++;
        }
        bool failed = !(identity_right && content_right);
        if (failed && want.seq != 0) r.failures_after_first++;
        if ((identity_given && !identity_right) || (content_given && !content_right)) {
            r.misattributed++;
            if (r.misattribution_examples.size() < 5) {
                std::ostringstream s;
                s << "sender " << want.sender << " seq " << want.seq << ": expected thread " << want.thread_id
                  << " trace " << want.trace_id << " span " << want.span_id << ", got java_thread "
                  << (e.java_thread ? std::to_string(*e.java_thread) : "null") << " vthread "
                  << (e.vthread ? std::to_string(*e.vthread) : "null") << " trace " << e.trace_id << " span "
                  << e.span_id << " status " << e.status;
                r.misattribution_examples.push_back(s.str());
            }
        } else if (identity_right && content_right) {
            r.correct++;
        } else {
            r.unattributed++;
            r.unattributed_causes[e.status + (e.reason.empty() ? "" : "/" + e.reason)]++;
        }
    }
    r.missing = r.expected - r.observed;
    return r;
}

}  // namespace vtscope::testing
