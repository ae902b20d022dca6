// SPDX-License-Identifier: Apache-2.0
// Running a tool as the target's user (block --jfr prints the recording with jfr this way): with
// its uid and gid, a clean environment, no descriptor of vtscope's, bounded output and time.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "core/expected.h"

namespace vtscope {

// A program run with a user's identity, a clean environment and bounded output.
struct UnprivilegedRun {
    std::vector<std::string> argv;  // argv[0]: the absolute path of the program
    uid_t uid = 0;
    gid_t gid = 0;
    int cwd_fd = -1;  // entered before the identity is dropped (may be a directory it cannot reach)
    size_t max_stdout = 0;
    size_t max_stderr = 0;
    std::chrono::milliseconds timeout{0};
};
struct RunResult {
    int exit_code = 0;  // 128 + the signal when killed by one
    std::string out, err;
};
// Runs it (stdin /dev/null, no supplementary groups, environment PATH and LANG only) and reads
// its output; more than the caps or longer than the timeout kills it and is an error.
Expected<RunResult> run_unprivileged(const UnprivilegedRun& run);

}  // namespace vtscope
