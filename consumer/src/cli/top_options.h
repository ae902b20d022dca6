// SPDX-License-Identifier: Apache-2.0
// `vtscope top`'s options (its table is top_options.cpp; no BPF or JVM dependency, unit-tested).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "core/identity.h"

namespace vtscope {

struct TopOptions {
    pid_t pid = 0;
    std::string pid_name;  // --pid NAME: the JVM a name selects, resolved before the command runs
    IdentityChannel identity = IdentityChannel::kVmStructs;
    double interval_seconds = 1;
    long iterations = 0;       // 0: until q, a signal, --duration or the target's exit
    bool batch = false;        // -b; also when standard output is no terminal
    std::string by = "trace";  // the rows at start: trace, span or vthread (keys t, s, v)
    std::string sort = "cpu";  // cpu, blocked, pinned or syscalls (keys c, b, p, y)
    int top = 20;              // rows in each batch object
    int hz = 99;               // CPU samples per second of each CPU, as profile
    std::optional<double> duration_seconds;
    std::string ready_file;
    std::string summary_json;
};

}  // namespace vtscope
