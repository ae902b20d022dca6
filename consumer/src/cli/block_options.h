// SPDX-License-Identifier: Apache-2.0
// `vtscope block`'s options, parsed on their own (no BPF or JVM dependency, unit-tested).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "otlp/otlp_options.h"

namespace vtscope {

enum class IdentityChannel;  // options.h

struct BlockOptions {
    bool help = false;  // --help: print block_usage()
    pid_t pid = 0;
    IdentityChannel identity{};  // set by the parser (default vmstructs)
    double threshold_ms = 20;    // intervals at least this long are JSON lines; shorter are counted
    bool all_threads = false;    // also threads with no virtual thread mounted (vthread null)
    bool jfr = false;            // join the target's own jdk.VirtualThreadPinned events (JFR)
    std::string jfr_jdk;         // --jfr-jdk: the root-owned JDK whose jfr prints the recording
    bool stacks = false;         // the kernel and user stacks at switch-out, symbolised
    std::optional<double> duration_seconds;
    std::string output = "-";
    std::string ready_file;
    std::string summary_json;
    int top = 10;  // traces and virtual threads shown in the summary
    OtlpOptions otlp;
};

// args: what follows "block" on the command line.
Expected<BlockOptions> parse_block_options(const std::vector<std::string>& args);
std::string block_usage();

}  // namespace vtscope
