// SPDX-License-Identifier: Apache-2.0
#include "output/diagnostics.h"

#include <cstdio>
#include <mutex>

#include "output/safe_text.h"

namespace vtscope::diagnostics {
namespace {

// Messages come from the session's thread and the OTLP exporter's.
std::mutex g_mutex;
Counts g_counts;

constexpr std::string_view kPrefix = "vtscope: ";

}  // namespace

const char* kind_name(Kind kind) {
    switch (kind) {
        case Kind::kNote: return "note";
        case Kind::kWarning: return "warning";
        case Kind::kError: return "error";
    }
    return "note";
}

std::string line(Kind kind, std::string_view text) {
    return std::string(kPrefix) + kind_name(kind) + ": " + terminal_safe(text) + "\n";
}

void count(Kind kind, std::string_view text) {
    std::lock_guard<std::mutex> lock(g_mutex);
    (kind == Kind::kNote ? g_counts.notes : kind == Kind::kWarning ? g_counts.warnings : g_counts.errors)++;
    if (g_counts.messages.size() < kMaxMessages)
        g_counts.messages.push_back({kind, terminal_safe(text)});
    else
        g_counts.messages_dropped++;
}

void print(Kind kind, std::string_view text) {
    std::fputs(line(kind, text).c_str(), stderr);
    count(kind, text);
}

void print_formatted(std::string_view formatted) {
    std::string_view text = formatted;
    if (text.substr(0, kPrefix.size()) == kPrefix) text.remove_prefix(kPrefix.size());
    for (Kind kind : {Kind::kNote, Kind::kWarning, Kind::kError}) {
        std::string tag = std::string(kind_name(kind)) + ": ";
        if (text.substr(0, tag.size()) == tag) return print(kind, text.substr(tag.size()));
    }
    print(Kind::kNote, text);
}

void count_lines(std::string_view text) {
    while (!text.empty()) {
        size_t end = text.find('\n');
        std::string_view one = text.substr(0, end);
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
        if (one.substr(0, kPrefix.size()) != kPrefix) continue;
        one.remove_prefix(kPrefix.size());
        for (Kind kind : {Kind::kNote, Kind::kWarning, Kind::kError}) {
            std::string tag = std::string(kind_name(kind)) + ": ";
            if (one.substr(0, tag.size()) == tag) count(kind, one.substr(tag.size()));
        }
    }
}

Counts counts() {
    std::lock_guard<std::mutex> lock(g_mutex);
    return g_counts;
}

void reset() {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_counts = Counts{};
}

}  // namespace vtscope::diagnostics
