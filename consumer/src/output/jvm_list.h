// SPDX-License-Identifier: Apache-2.0
// `vtscope list`'s output: a table for the terminal, or one JSON object per JVM. Every string in
// it came from a target (its command line, environment, JDK), so each is made safe for where it
// is written.
#pragma once

#include <string>
#include <vector>

#include "jvm/jvm_discovery.h"

namespace vtscope {

std::string render_jvm_table(const std::vector<JvmProcess>& jvms);
std::string render_jvm_json_lines(const std::vector<JvmProcess>& jvms);
// "42s", "12m03s", "3h07m", "2d04h".
std::string uptime_text(double seconds);

}  // namespace vtscope
