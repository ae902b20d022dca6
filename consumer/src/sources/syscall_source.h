// SPDX-License-Identifier: Apache-2.0
// The syscall event source (consumer/bpf/syscalls.bpf.c): syscall entries of the target,
// attributed by the core, either streamed as JSON lines (vtscope trace) or counted in the kernel
// per thread, trace, syscall and status and reported per trace at the end (vtscope stat).
#pragma once

#include <memory>

#include "core/attribution_core.h"
#include "cli/options.h"
#include "output/output_file.h"
#include "core/session.h"
#include "core/source_observer.h"

namespace vtscope {

enum class SyscallSink { kJsonLines, kCounts };

// Opens, configures and loads the BPF object (libbpf-tools order; attaching is the session's).
// Errors name the syscall or the step that failed. An observer (kCounts only) is handed every
// drained count too.
Expected<std::unique_ptr<EventSource>> open_syscall_source(const TraceOptions& options, SyscallSink sink,
                                                           const AttributionCore& core, OutputFile& output,
                                                           SourceObserver* observer = nullptr);

}  // namespace vtscope
