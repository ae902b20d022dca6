// SPDX-License-Identifier: Apache-2.0
// `vtscope profile`: CPU samples of the target, attributed by the core to the virtual thread
// mounted at each sample and its trace context, reported per trace, span or virtual thread.
#include "core/attribution_core.h"
#include "cli/commands.h"
#include "output/output_file.h"
#include "sources/profile_source.h"
#include "core/session.h"
#include "process/target.h"

namespace vtscope {

int run_profile(const ProfileOptions& options) {
    SessionOptions session{"profile", options.duration_seconds, options.ready_file, options.summary_json};
    auto output = OutputFile::open(options.output);
    if (!output) return fail(session, output.error().message);
    ProfileOutputs outputs{**output, nullptr, nullptr};
    // Opened now, so a path that cannot be written fails before the session, not after it.
    for (auto [path, file] :
         {std::pair{&options.folded, &outputs.folded}, {&options.flamegraph, &outputs.flamegraph}}) {
        if (path->empty()) continue;
        auto opened = OutputFile::open(*path);
        if (!opened) return fail(session, opened.error().message);
        *file = std::move(*opened);
    }
    auto target = open_target(options.pid, options.identity, "profile");
    if (!target) return fail(session, target.error().message);
    quiet_libbpf();
    AttributionCore core(*target, options.identity);
    auto source = open_profile_source(options, *target, core, std::move(outputs));
    if (!source) return fail(session, source.error().message);
    return run_session(session, *target, core, **source);
}

}  // namespace vtscope
