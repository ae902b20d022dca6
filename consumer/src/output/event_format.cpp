// SPDX-License-Identifier: Apache-2.0
#include "output/event_format.h"

#include <array>
#include <charconv>
#include <cstdint>
#include <cstdio>

namespace vtscope {

const char* status_name(unsigned status) {
    switch (status) {
        case VTSCOPE_STATUS_OK: return "ok";
        case VTSCOPE_STATUS_NO_CONTEXT: return "no_context";
        case VTSCOPE_STATUS_INVALID: return "invalid";
        case VTSCOPE_STATUS_UNMAPPED: return "unmapped";
        case VTSCOPE_STATUS_CONTEXT_UNKNOWN: return "context_unknown";
        default: return "unknown";
    }
}

const char* reason_name(unsigned reason) {
    switch (reason) {
        case VTSCOPE_REASON_NOT_JAVA_THREAD: return "not_java_thread";
        case VTSCOPE_REASON_READ_FAULT: return "read_fault";
        case VTSCOPE_REASON_BAD_ID: return "bad_id";
        case VTSCOPE_REASON_AMBIGUOUS: return "ambiguous_identity";
        case VTSCOPE_REASON_TORN: return "torn_record";
        case VTSCOPE_REASON_OWNER_CHANGED: return "owner_changed";
        case VTSCOPE_REASON_KIND_MISMATCH: return "kind_mismatch";
        case VTSCOPE_REASON_NO_THREAD_CONTEXT: return "no_thread_context";
        case VTSCOPE_REASON_OUTSIDE_REGION: return "outside_region";
        case VTSCOPE_REASON_NO_LIFECYCLE_MAPPING: return "no_lifecycle_mapping";
        case VTSCOPE_REASON_NO_RECORD_REGION: return "no_record_region";
        case VTSCOPE_REASON_RECORD_TABLE_FULL: return "record_table_full";
        case VTSCOPE_REASON_NO_LIFECYCLE_RECORD: return "no_lifecycle_record";
        case VTSCOPE_REASON_NO_CONTEXT_WRITER: return "no_context_writer";
        default: return nullptr;
    }
}

bool syscall_has_fd(std::string_view name) {
    static constexpr std::array<std::string_view, 26> kNames = {
        "read",     "write",  "pread64",  "pwrite64", "readv",   "writev",  "preadv",   "pwritev",   "preadv2",
        "pwritev2", "sendto", "recvfrom", "sendmsg",  "recvmsg", "close",   "fsync",    "fdatasync", "fstat",
        "lseek",    "ioctl",  "fcntl",    "connect",  "accept",  "accept4", "shutdown", "getdents64"};
    for (auto n : kNames)
        if (n == name) return true;
    return false;
}

bool syscall_has_count(std::string_view name) {
    static constexpr std::array<std::string_view, 7> kNames = {"read",   "write",    "pread64",   "pwrite64",
                                                               "sendto", "recvfrom", "getdents64"};
    for (auto n : kNames)
        if (n == name) return true;
    return false;
}

namespace {
void append_hex_digits(std::string& out, const unsigned char* bytes, size_t n) {
    static constexpr char kDigits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out.push_back(kDigits[bytes[i] >> 4]);
        out.push_back(kDigits[bytes[i] & 15]);
    }
}

void append_hex(std::string& out, const unsigned char* bytes, size_t n) {
    out.push_back('"');
    append_hex_digits(out, bytes, n);
    out.push_back('"');
}

// Numbers without a temporary string: the consumer formats every event of a write storm.
template <typename T>
void append_number(std::string& out, T value) {
    char buffer[24];
    auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
    out.append(buffer, result.ptr);
}
}  // namespace

std::string hex_string(const unsigned char* bytes, size_t n) {
    std::string out;
    out.reserve(2 * n);
    append_hex_digits(out, bytes, n);
    return out;
}

void append_attribution(std::string& out, const vtscope_attribution& a) {
    out += "\"vthread\":";
    bool identity = a.status == VTSCOPE_STATUS_OK || a.status == VTSCOPE_STATUS_NO_CONTEXT ||
                    a.status == VTSCOPE_STATUS_CONTEXT_UNKNOWN || (a.status == VTSCOPE_STATUS_INVALID && a.java_id > 0);
    if (identity && a.mounted_virtual) {
        append_number(out, a.java_id);
    } else {
        out += "null";
    }
    out += ",\"java_thread\":";
    if (identity) {
        append_number(out, a.java_id);
    } else {
        out += "null";
    }
    out += ",\"trace_id\":";
    if (a.status == VTSCOPE_STATUS_OK) {
        append_hex(out, a.trace_id, sizeof(a.trace_id));
        out += ",\"span_id\":";
        append_hex(out, a.span_id, sizeof(a.span_id));
        out += ",\"trace_flags\":";
        append_number(out, unsigned{a.trace_flags});
    } else {
        out += "null,\"span_id\":null,\"trace_flags\":null";
    }
    out += ",\"status\":\"";
    out += status_name(a.status);
    out += '"';
    if (const char* reason = reason_name(a.reason)) {
        out += ",\"reason\":\"";
        out += reason;
        out += '"';
    }
}

void append_syscall_event(std::string& out, const vtscope_syscall_event& e, std::string_view syscall) {
    out += "{\"ts_ns\":";
    append_number(out, uint64_t{e.ts_ns});
    out += ",\"pid\":";
    append_number(out, uint32_t{e.pid});
    out += ",\"tid\":";
    append_number(out, uint32_t{e.tid});
    out += ',';
    append_attribution(out, e.attribution);
    out += ",\"syscall\":\"";
    out += syscall;  // validated [a-z0-9_] by the option parser
    out += "\",\"fd\":";
    if (e.nargs > 0 && syscall_has_fd(syscall)) {
        append_number(out, static_cast<int32_t>(static_cast<uint32_t>(e.args[0])));
    } else {
        out += "null";
    }
    out += ",\"count\":";
    if (e.nargs > 2 && syscall_has_count(syscall)) {
        append_number(out, uint64_t{e.args[2]});
    } else {
        out += "null";
    }
    out += '}';
}

std::string format_syscall_event(const vtscope_syscall_event& e, std::string_view syscall) {
    std::string out;
    out.reserve(320);
    append_syscall_event(out, e, syscall);
    return out;
}

}  // namespace vtscope
