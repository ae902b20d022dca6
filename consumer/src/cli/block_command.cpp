// SPDX-License-Identifier: Apache-2.0
// `vtscope block`: off-CPU intervals of the target's carriers with a virtual thread mounted.
#include "core/attribution_core.h"
#include "sources/block_source.h"
#include "cli/commands.h"
#include "output/output_file.h"
#include "core/session.h"
#include "process/target.h"

namespace vtscope {

int run_block(const BlockOptions& options) {
    SessionOptions session{"block", options.duration_seconds, options.ready_file, options.summary_json};
    auto output = OutputFile::open(options.output);
    if (!output) return fail(session, output.error().message);
    auto target = open_target(options.pid, options.identity, "block");
    if (!target) return fail(session, target.error().message);
    quiet_libbpf();
    AttributionCore core(*target, options.identity);
    auto source = open_block_source(options, *target, core, **output);
    if (!source) return fail(session, source.error().message);
    return run_session(session, *target, core, **source);
}

}  // namespace vtscope
