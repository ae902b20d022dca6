// SPDX-License-Identifier: Apache-2.0
#include "output/event_format.h"

#include "output/json_io.h"

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
        case VTSCOPE_REASON_GC_PAUSE: return "gc_pause";
        case VTSCOPE_REASON_GC_POINTER_NOT_GOOD: return "gc_pointer_not_good";
        case VTSCOPE_REASON_GC_PHASE_CHANGED: return "gc_phase_changed";
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
}  // namespace

std::string hex_string(const unsigned char* bytes, size_t n) {
    std::string out;
    out.reserve(2 * n);
    append_hex_digits(out, bytes, n);
    return out;
}

OrderedJson syscall_event_json(const vtscope_syscall_event& e, std::string_view syscall) {
    OrderedJson j = OrderedJson::object();
    j["ts_ns"] = uint64_t{e.ts_ns};
    j["pid"] = uint32_t{e.pid};
    j["tid"] = uint32_t{e.tid};
    add_attribution(j, e.attribution);
    j["syscall"] = syscall;  // validated [a-z0-9_] by the option parser
    if (e.nargs > 0 && syscall_has_fd(syscall)) {
        j["fd"] = static_cast<int32_t>(static_cast<uint32_t>(e.args[0]));
    } else {
        j["fd"] = nullptr;
    }
    if (e.nargs > 2 && syscall_has_count(syscall)) {
        j["count"] = uint64_t{e.args[2]};
    } else {
        j["count"] = nullptr;
    }
    return j;
}

void add_attribution(OrderedJson& j, const vtscope_attribution& a) {
    bool identity = a.status == VTSCOPE_STATUS_OK || a.status == VTSCOPE_STATUS_NO_CONTEXT ||
                    (a.status == VTSCOPE_STATUS_CONTEXT_UNKNOWN && a.java_id > 0) ||
                    (a.status == VTSCOPE_STATUS_INVALID && a.java_id > 0);
    j["vthread"] = identity && a.mounted_virtual ? OrderedJson(a.java_id) : OrderedJson(nullptr);
    j["java_thread"] = identity ? OrderedJson(a.java_id) : OrderedJson(nullptr);
    if (a.status == VTSCOPE_STATUS_OK) {
        j["trace_id"] = hex_string(a.trace_id, sizeof(a.trace_id));
        j["span_id"] = hex_string(a.span_id, sizeof(a.span_id));
        j["trace_flags"] = unsigned{a.trace_flags};
    } else {
        j["trace_id"] = nullptr;
        j["span_id"] = nullptr;
        j["trace_flags"] = nullptr;
    }
    j["status"] = status_name(a.status);
    if (const char* reason = reason_name(a.reason)) j["reason"] = reason;
}

// The hot path: `vtscope trace` formats every event of a write storm (thousands a second), and
// nlohmann's dump, which escapes every key and string byte by byte, cost 6 times the line written
// directly (11 times with a new object per event). The fields of these lines are fixed keys,
// numbers, hex digits and names from fixed tables: nothing to escape. So the lines are written
// directly with the keys' JSON text made once by nlohmann, and tests check them equal to
// json_text of the objects above (event_format_test).
namespace {
std::string key_text(std::string_view name, bool first = false) {
    return (first ? "" : ",") + json_text(OrderedJson(name)) + ":";
}

struct Keys {
    std::string ts_ns = key_text("ts_ns", true), pid = key_text("pid"), tid = key_text("tid");
    std::string vthread = key_text("vthread", true), java_thread = key_text("java_thread");
    std::string trace_id = key_text("trace_id"), span_id = key_text("span_id");
    std::string trace_flags = key_text("trace_flags"), status = key_text("status"), reason = key_text("reason");
    std::string syscall = key_text("syscall"), fd = key_text("fd"), count = key_text("count");
};
const Keys& keys() {
    static const Keys k;
    return k;
}

// Numbers without a temporary string.
template <typename T>
void append_number(std::string& out, T value) {
    char buffer[24];
    auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
    out.append(buffer, result.ptr);
}

// A name from a fixed table ([a-z0-9_]) or hex digits: a JSON string as it is.
void append_plain_string(std::string& out, std::string_view text) {
    out.push_back('"');
    out += text;
    out.push_back('"');
}

void append_hex(std::string& out, const unsigned char* bytes, size_t n) {
    out.push_back('"');
    append_hex_digits(out, bytes, n);
    out.push_back('"');
}
}  // namespace

void append_attribution(std::string& out, const vtscope_attribution& a) {
    const Keys& k = keys();
    bool identity = a.status == VTSCOPE_STATUS_OK || a.status == VTSCOPE_STATUS_NO_CONTEXT ||
                    (a.status == VTSCOPE_STATUS_CONTEXT_UNKNOWN && a.java_id > 0) ||
                    (a.status == VTSCOPE_STATUS_INVALID && a.java_id > 0);
    out += k.vthread;
    identity&& a.mounted_virtual ? append_number(out, a.java_id) : void(out += "null");
    out += k.java_thread;
    identity ? append_number(out, a.java_id) : void(out += "null");
    bool ok = a.status == VTSCOPE_STATUS_OK;
    out += k.trace_id;
    ok ? append_hex(out, a.trace_id, sizeof(a.trace_id)) : void(out += "null");
    out += k.span_id;
    ok ? append_hex(out, a.span_id, sizeof(a.span_id)) : void(out += "null");
    out += k.trace_flags;
    ok ? append_number(out, unsigned{a.trace_flags}) : void(out += "null");
    out += k.status;
    append_plain_string(out, status_name(a.status));
    if (const char* reason = reason_name(a.reason)) {
        out += k.reason;
        append_plain_string(out, reason);
    }
}

void append_syscall_event(std::string& out, const vtscope_syscall_event& e, std::string_view syscall,
                          std::string_view after_tid) {
    const Keys& k = keys();
    out.push_back('{');
    out += k.ts_ns;
    append_number(out, uint64_t{e.ts_ns});
    out += k.pid;
    append_number(out, uint32_t{e.pid});
    out += k.tid;
    append_number(out, uint32_t{e.tid});
    out += after_tid;
    out.push_back(',');
    append_attribution(out, e.attribution);
    out += k.syscall;
    append_plain_string(out, syscall);  // validated [a-z0-9_] by the option parser
    out += k.fd;
    bool fd = e.nargs > 0 && syscall_has_fd(syscall);
    fd ? append_number(out, static_cast<int32_t>(static_cast<uint32_t>(e.args[0]))) : void(out += "null");
    out += k.count;
    e.nargs > 2 && syscall_has_count(syscall) ? append_number(out, uint64_t{e.args[2]}) : void(out += "null");
    out.push_back('}');
}

std::string format_syscall_event(const vtscope_syscall_event& e, std::string_view syscall) {
    std::string out;
    out.reserve(320);
    append_syscall_event(out, e, syscall);
    return out;
}

}  // namespace vtscope
