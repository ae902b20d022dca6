// SPDX-License-Identifier: Apache-2.0
#include "output/event_format.h"

#include <gtest/gtest.h>

#include "output/json_io.h"
#include "output/report.h"

namespace {
vtscope_syscall_event base_event() {
    vtscope_syscall_event e{};
    e.ts_ns = 123;
    e.pid = 10;
    e.tid = 11;
    e.args[0] = 5;
    e.args[2] = 1007;
    e.nargs = 3;
    return e;
}
}  // namespace

TEST(EventFormat, AttributedVirtualThread) {
    vtscope_syscall_event e = base_event();
    e.attribution.status = VTSCOPE_STATUS_OK;
    e.attribution.java_id = 77;
    e.attribution.mounted_virtual = 1;
    e.attribution.trace_flags = 1;
    for (int i = 0; i < 16; i++) e.attribution.trace_id[i] = static_cast<__u8>(0xa0 + i);
    for (int i = 0; i < 8; i++) e.attribution.span_id[i] = static_cast<__u8>(i);
    EXPECT_EQ(vtscope::format_syscall_event(e, "write"),
              "{\"ts_ns\":123,\"pid\":10,\"tid\":11,\"vthread\":77,\"java_thread\":77,"
              "\"trace_id\":\"a0a1a2a3a4a5a6a7a8a9aaabacadaeaf\",\"span_id\":\"0001020304050607\","
              "\"trace_flags\":1,\"status\":\"ok\",\"syscall\":\"write\",\"fd\":5,\"count\":1007}");
}

TEST(EventFormat, PlatformThreadWithoutContext) {
    vtscope_syscall_event e = base_event();
    e.attribution.status = VTSCOPE_STATUS_NO_CONTEXT;
    e.attribution.java_id = 3;
    e.attribution.mounted_virtual = 0;
    std::string line = vtscope::format_syscall_event(e, "futex");
    auto parsed = vtscope::parse_event_line(line);
    ASSERT_TRUE(parsed);
    EXPECT_FALSE(parsed->vthread.has_value());
    EXPECT_EQ(parsed->java_thread, 3);
    EXPECT_TRUE(parsed->trace_id.empty());
    EXPECT_EQ(parsed->status, "no_context");
    EXPECT_FALSE(parsed->fd.has_value());  // futex's first argument is not a descriptor
    EXPECT_FALSE(parsed->count.has_value());
}

TEST(EventFormat, UnmappedCarriesReasonAndNoIdentity) {
    vtscope_syscall_event e = base_event();
    e.attribution.status = VTSCOPE_STATUS_UNMAPPED;
    e.attribution.reason = VTSCOPE_REASON_AMBIGUOUS;
    e.attribution.java_id = 99;  // never shown for an unmapped event
    e.attribution.mounted_virtual = 1;
    auto parsed = vtscope::parse_event_line(vtscope::format_syscall_event(e, "read"));
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->status, "unmapped");
    EXPECT_EQ(parsed->reason, "ambiguous_identity");
    EXPECT_FALSE(parsed->vthread.has_value());
    EXPECT_FALSE(parsed->java_thread.has_value());
}

// JDK 21-23: a read a collection may have raced leaves the identity unknown: context_unknown with
// a GC reason and no thread, in both encodings (the direct line and the JSON object).
TEST(EventFormat, GcRaceIsContextUnknownWithoutIdentity) {
    vtscope_syscall_event e = base_event();
    e.attribution.status = VTSCOPE_STATUS_CONTEXT_UNKNOWN;
    for (auto [reason, name] : {std::pair{VTSCOPE_REASON_GC_PAUSE, "gc_pause"},
                                std::pair{VTSCOPE_REASON_GC_POINTER_NOT_GOOD, "gc_pointer_not_good"},
                                std::pair{VTSCOPE_REASON_GC_PHASE_CHANGED, "gc_phase_changed"}}) {
        e.attribution.reason = reason;
        std::string line = vtscope::format_syscall_event(e, "write");
        auto parsed = vtscope::parse_event_line(line);
        ASSERT_TRUE(parsed) << line;
        EXPECT_EQ(parsed->status, "context_unknown");
        EXPECT_EQ(parsed->reason, name);
        EXPECT_FALSE(parsed->vthread.has_value()) << line;
        EXPECT_FALSE(parsed->java_thread.has_value()) << line;
        EXPECT_EQ(vtscope::syscall_event_json(e, "write").dump(), line);
    }
}

TEST(EventFormat, NegativeDescriptor) {
    vtscope_syscall_event e = base_event();
    e.attribution.status = VTSCOPE_STATUS_NO_CONTEXT;
    e.args[0] = 0xffffffffu;
    EXPECT_EQ(vtscope::parse_event_line(vtscope::format_syscall_event(e, "close"))->fd, -1);
}

// The trace line is written directly for speed (event_format.cpp); it must be the JSON object
// syscall_event_json builds, byte for byte, for every status, reason and argument count.
TEST(EventFormat, DirectLineIsTheJsonObjectsText) {
    for (unsigned status = 0; status <= VTSCOPE_STATUS_CONTEXT_UNKNOWN + 1; status++)
        for (unsigned reason = 0; reason <= VTSCOPE_REASON_NO_CONTEXT_WRITER + 1; reason++)
            for (unsigned nargs : {0u, 1u, 3u}) {
                vtscope_syscall_event e = base_event();
                e.nargs = nargs;
                e.attribution.status = status;
                e.attribution.reason = reason;
                e.attribution.java_id = 40 + status;
                e.attribution.mounted_virtual = reason % 2;
                e.attribution.trace_flags = 1;
                e.attribution.trace_id[15] = 0xab;
                e.attribution.span_id[0] = 0x0c;
                std::string direct;
                vtscope::append_syscall_event(direct, e, "write");
                EXPECT_EQ(direct, vtscope::json_text(vtscope::syscall_event_json(e, "write")))
                    << "status " << status << " reason " << reason << " nargs " << nargs;
            }
}
