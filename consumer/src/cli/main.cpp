// SPDX-License-Identifier: Apache-2.0
// vtscope: thin main over the library (bpftrace's shape): parse, dispatch, exit code.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/option_docs.h"
#include "cli/options.h"
#include "output/report.h"
#include "output/diagnostics.h"

#ifndef VTSCOPE_VERSION
#define VTSCOPE_VERSION "0.1.0"
#endif

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    auto options = vtscope::parse_options(args);
    if (!options) {
        vtscope::diagnostics::error(options.error().message);
        return 2;
    }
    if (auto selected = vtscope::select_target_by_name(*options); !selected) {
        vtscope::diagnostics::error(selected.error().message);
        return 1;
    }
    switch (options->command) {
        case vtscope::Command::kHelp: std::fputs(vtscope::usage(options->help_topic).c_str(), stdout); return 0;
        case vtscope::Command::kVersion: std::printf("vtscope %s\n", VTSCOPE_VERSION); return 0;
        case vtscope::Command::kMan: std::fputs(vtscope::man_page(options->help_topic).c_str(), stdout); return 0;
        case vtscope::Command::kMarkdown:
            std::fputs(vtscope::markdown_page(options->help_topic).c_str(), stdout);
            return 0;
        case vtscope::Command::kCompletion: std::fputs(vtscope::bash_completion().c_str(), stdout); return 0;
        case vtscope::Command::kTrace: return vtscope::run_trace(options->trace);
        case vtscope::Command::kStat: return vtscope::run_stat(options->trace);
        case vtscope::Command::kReport: return vtscope::run_report(options->report);
        case vtscope::Command::kProfile: return vtscope::run_profile(options->profile);
        case vtscope::Command::kBlock: return vtscope::run_block(options->block);
        case vtscope::Command::kList: return vtscope::run_list(options->list);
        case vtscope::Command::kTop: return vtscope::run_top(options->top);
    }
    return 2;
}
