// SPDX-License-Identifier: Apache-2.0
// The CPU-sample event source (consumer/bpf/profile.bpf.c): perf events (hardware cycles where
// the machine has a PMU, else the software cpu-clock), one per CPU, or with --per-thread one per
// thread of the target, inherited by the threads they create (a thread is then sampled every 1/hz
// of its own CPU time, at a cost to each of its context switches); their program attributes each
// sample through the core and counts it in the kernel per (thread, trace, span, status, stack ids);
// drained every sync round like vtscope stat, reported at the end.
#pragma once

#include <memory>

#include "core/attribution_core.h"
#include "cli/options.h"
#include "output/output_file.h"
#include "core/session.h"
#include "core/source_observer.h"

namespace vtscope {

// What profile writes, all opened before it samples (a path that cannot be written fails at once,
// not after the session): the report, and the --folded and --flamegraph files (null when not
// asked for).
struct ProfileOutputs {
    OutputFile& report;
    std::unique_ptr<OutputFile> folded, flamegraph;
};

// Opens, configures and loads the BPF object; the perf events are opened at attach. An observer
// is handed every drained count too.
Expected<std::unique_ptr<EventSource>> open_profile_source(const ProfileOptions& options, const Target& target,
                                                           const AttributionCore& core, ProfileOutputs outputs,
                                                           SourceObserver* observer = nullptr);

}  // namespace vtscope
