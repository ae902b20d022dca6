// SPDX-License-Identifier: Apache-2.0
// `vtscope stat`: the same attribution as trace, counted in the kernel, reported per trace.
#include "cli/commands.h"
#include "cli/syscall_command.h"

namespace vtscope {

int run_stat(const TraceOptions& options) { return run_syscall_command(options, SyscallSink::kCounts, "stat"); }

}  // namespace vtscope
