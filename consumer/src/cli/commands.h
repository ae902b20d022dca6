// SPDX-License-Identifier: Apache-2.0
// The attaching subcommands, one file each (trace_command.cpp, stat_command.cpp); `vtscope
// report` is in report.h. Each returns the process exit code; errors are one line on stderr.
#pragma once

#include "cli/options.h"

namespace vtscope {

int run_trace(const TraceOptions& options);
int run_stat(const TraceOptions& options);
int run_profile(const ProfileOptions& options);  // profile_command.cpp
int run_block(const BlockOptions& options);      // block_command.cpp
int run_list(const ListOptions& options);        // list_command.cpp
// --pid NAME: the one JVM of the host the name selects, as the command's pid; an error names the
// candidates when none or several match (list_command.cpp).
Status select_target_by_name(Options& options);
int run_top(const TopOptions& options);          // top_command.cpp

}  // namespace vtscope
