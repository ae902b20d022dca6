// SPDX-License-Identifier: Apache-2.0
// What `trace` and `stat` share: the target, the attribution core and the syscall source, run
// by one session; they differ only in the sink.
#pragma once

#include "cli/options.h"
#include "sources/syscall_source.h"

namespace vtscope {

int run_syscall_command(const TraceOptions& options, SyscallSink sink, const char* command);

}  // namespace vtscope
