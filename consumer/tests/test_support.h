// SPDX-License-Identifier: Apache-2.0
// What the end-to-end tests share: where the built binaries and jars are (the JDK and the run
// itself: e2e_fixture.h), and the loud skip when a privilege or a file they need is missing (never
// a silent pass).
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "cli/privilege.h"
#include "e2e_fixture.h"

namespace vtscope::testing {

inline std::string env_or(const char* name, const char* fallback) {
    const char* v = std::getenv(name);
    return v && *v ? v : fallback;
}

inline const std::string kVtscope = VTSCOPE_BIN;
inline const std::string kJavaDir = VTSCOPE_JAVA_DIR;

inline constexpr const char* kNoPrivilege =
    "needs root (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN) to load BPF programs and read the target";

// Why user nobody (uid 65534) cannot read path, or "" when it can: tests that run a JVM as another
// user need the jars readable by it (a checkout in a private folder is not).
inline std::string unreadable_by_nobody(const std::string& path) {
    std::string command = "/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/test -r '" + path + "'";
    return std::system(command.c_str()) == 0 ? "" : "user nobody cannot read " + path + " (a private checkout folder?)";
}

}  // namespace vtscope::testing

// Skips the test with the reason on stderr, where a reader of the CI log sees it.
#define SKIP_LOUDLY(why)                                                    \
    do {                                                                    \
        std::string reason_ = (why);                                        \
        std::fprintf(stderr, "\n*** SKIPPED: %s ***\n\n", reason_.c_str()); \
        GTEST_SKIP() << "SKIPPED: " << reason_;                             \
    } while (0)

#define REQUIRE_READABLE_BY_NOBODY(path)                                               \
    do {                                                                               \
        std::string why_ = vtscope::testing::unreadable_by_nobody(path);               \
        if (!why_.empty()) SKIP_LOUDLY("a JVM of another user is needed and " + why_); \
    } while (0)

#define REQUIRE_BPF()                                                                    \
    do {                                                                                 \
        if (!vtscope::have_bpf_privilege()) SKIP_LOUDLY(vtscope::testing::kNoPrivilege); \
    } while (0)
