// SPDX-License-Identifier: Apache-2.0
#include "cli/syscall_command.h"

#include "core/attribution_core.h"
#include "output/output_file.h"
#include "core/session.h"
#include "process/target.h"

namespace vtscope {

int run_syscall_command(const TraceOptions& options, SyscallSink sink, const char* command) {
    SessionOptions session{command, options.duration_seconds, options.ready_file, options.summary_json};
    auto output = OutputFile::open(options.output);
    if (!output) return fail(session, output.error().message);
    auto target = open_target(options.pid, options.identity, command);
    if (!target) return fail(session, target.error().message);
    quiet_libbpf();
    AttributionCore core(*target, options.identity);
    auto source = open_syscall_source(options, sink, core, **output);
    if (!source) return fail(session, source.error().message);
    return run_session(session, *target, core, **source);
}

}  // namespace vtscope
