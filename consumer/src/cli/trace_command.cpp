// SPDX-License-Identifier: Apache-2.0
// `vtscope trace`: one JSON line per syscall entry of the target, attributed by the core.
#include "cli/commands.h"
#include "cli/syscall_command.h"

namespace vtscope {

int run_trace(const TraceOptions& options) { return run_syscall_command(options, SyscallSink::kJsonLines, "trace"); }

}  // namespace vtscope
