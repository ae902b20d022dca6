// SPDX-License-Identifier: Apache-2.0
// The checker must be able to fail: feed it wrong attributions and see them classified.
#include "attribution_checker.h"

#include <gtest/gtest.h>

using vtscope::testing::check_markers;

namespace {
const std::vector<std::string> kExpected = {
    R"({"sender":0,"seq":0,"platform":false,"vthread":40,"thread_id":40,"trace_id":"aa","span_id":"01","trace_flags":3,"fd":9,"count":1000})",
    R"({"sender":0,"seq":1,"platform":false,"vthread":40,"thread_id":40,"trace_id":"aa","span_id":"02","trace_flags":3,"fd":9,"count":1000})",
    R"({"sender":1,"seq":0,"platform":true,"vthread":null,"thread_id":7,"trace_id":"bb","span_id":"03","trace_flags":3,"fd":9,"count":1001})",
};

std::string event(int ts, const char* vthread, const char* java_thread, const char* trace, const char* span,
                  const char* status, int count, int fd = 9) {
    char buf[400];
    std::snprintf(
        buf, sizeof(buf),
        R"({"ts_ns":%d,"pid":1,"tid":2,"vthread":%s,"java_thread":%s,"trace_id":%s,"span_id":%s,"trace_flags":3,"status":"%s","syscall":"write","fd":%d,"count":%d})",
        ts, vthread, java_thread, trace, span, status, fd, count);
    return buf;
}
}  // namespace

TEST(AttributionChecker, AllCorrect) {
    auto r = check_markers(kExpected, {event(1, "40", "40", "\"aa\"", "\"01\"", "ok", 1000),
                                       event(2, "40", "40", "\"aa\"", "\"02\"", "ok", 1000),
                                       event(3, "null", "7", "\"bb\"", "\"03\"", "ok", 1001)});
    EXPECT_EQ(r.correct, 3) << r.summary();
    EXPECT_EQ(r.misattributed, 0);
}

TEST(AttributionChecker, DetectsEachKindOfFailure) {
    auto r = check_markers(kExpected, {
                                          event(1, "41", "41", "\"aa\"", "\"01\"", "ok", 1000),  // wrong thread
                                          event(2, "40", "40", "\"aa\"", "\"01\"", "ok", 1000),  // wrong span
                                          event(3, "7", "7", "\"bb\"", "\"03\"", "ok", 1001),  // platform named virtual
                                          event(4, "40", "40", "null", "null", "ok", 1000),    // extra marker write
                                          event(5, "40", "40", "\"aa\"", "\"01\"", "ok", 1000, 8),  // other fd: ignored
                                      });
    EXPECT_EQ(r.misattributed, 3) << r.summary();
    EXPECT_EQ(r.extra, 1);
    EXPECT_EQ(r.correct, 0);
}

TEST(AttributionChecker, HonestFailuresAreUnattributedAndMissingIsCounted) {
    auto r = check_markers(kExpected, {event(1, "null", "null", "null", "null", "unmapped", 1000),
                                       event(2, "40", "40", "null", "null", "no_context", 1000)});
    EXPECT_EQ(r.unattributed, 2) << r.summary();
    EXPECT_EQ(r.missing, 1);
    EXPECT_EQ(r.misattributed, 0);
}
