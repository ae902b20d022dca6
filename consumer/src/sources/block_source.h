// SPDX-License-Identifier: Apache-2.0
// The block event source (consumer/bpf/block.bpf.c): off-CPU intervals of the target's threads
// with a virtual thread mounted, attributed by the core at switch-out; intervals at least the
// threshold long are JSON lines (output/block_format.h), shorter ones are counted in the kernel.
// Both kinds go into the summary's model (core/block_model.h, rendered by output/block_summary.h);
// with --jfr the intervals are joined to the recording's jdk.VirtualThreadPinned events
// (sources/block_jfr.h; the join: sources/jfr_join.h) before they are written.
#pragma once

#include <memory>

#include "cli/block_options.h"
#include "core/attribution_core.h"
#include "core/session.h"
#include "core/source_observer.h"
#include "output/output_file.h"
#include "process/target.h"

namespace vtscope {

// An observer is handed every interval as it is added to the summary's model, and the open ones
// every sync round.
Expected<std::unique_ptr<EventSource>> open_block_source(const BlockOptions& options, const Target& target,
                                                         const AttributionCore& core, OutputFile& output,
                                                         SourceObserver* observer = nullptr);

}  // namespace vtscope
