// SPDX-License-Identifier: Apache-2.0
// `vtscope list`, and the JVM that `--pid NAME` selects.
#include <cstdio>

#include "cli/commands.h"
#include "jvm/jvm_discovery.h"
#include "output/diagnostics.h"
#include "output/jvm_list.h"

namespace vtscope {

int run_list(const ListOptions& options) {
    std::vector<JvmProcess> jvms = find_jvms();
    std::string text = options.json ? render_jvm_json_lines(jvms) : render_jvm_table(jvms);
    std::fputs(text.c_str(), stdout);
    return std::fflush(stdout) == 0 ? 0 : 1;
}

Status select_target_by_name(Options& options) {
    for (auto [pid, name] :
         {std::pair{&options.trace.pid, &options.trace.pid_name},
          std::pair{&options.profile.pid, &options.profile.pid_name},
          std::pair{&options.block.pid, &options.block.pid_name}, std::pair{&options.top.pid, &options.top.pid_name}}) {
        if (name->empty()) continue;
        auto selected = select_jvm(*name, find_jvms());
        if (!selected) return selected.error();
        *pid = *selected;
    }
    return ok_status();
}

}  // namespace vtscope
