// `vtscope trace`: open, configure, load and attach the BPF programs (libbpf-tools order), then
// stream attributed events as JSON lines until stopped.
#pragma once

#include "options.h"

namespace vtscope {

// Returns the process exit code; errors are printed as one line on stderr.
int run_trace(const TraceOptions& options);

}  // namespace vtscope
