// SPDX-License-Identifier: Apache-2.0
// `vtscope block`'s options (its table is block_options.cpp; no BPF or JVM dependency, unit-tested).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "core/identity.h"
#include "otlp/otlp_options.h"

namespace vtscope {

struct BlockOptions {
    pid_t pid = 0;
    std::string pid_name;  // --pid NAME: the JVM a name selects, resolved before the command runs
    IdentityChannel identity = IdentityChannel::kVmStructs;
    double threshold_ms = 20;  // intervals at least this long are JSON lines; shorter are counted
    bool all_threads = false;  // also threads with no virtual thread mounted (vthread null)
    bool jfr = false;          // join the target's own jdk.VirtualThreadPinned events (JFR)
    std::string jfr_jdk;       // --jfr-jdk: the root-owned JDK whose jfr prints the recording
    bool stacks = false;       // the kernel and user stacks at switch-out, symbolised
    std::optional<double> duration_seconds;
    std::string output = "-";
    std::string perfetto;  // --perfetto FILE: the intervals as a Perfetto trace too (empty: none)
    std::string ready_file;
    std::string summary_json;
    int top = 10;  // traces and virtual threads shown in the summary
    OtlpOptions otlp;
};

}  // namespace vtscope
