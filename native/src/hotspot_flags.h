// SPDX-License-Identifier: Apache-2.0
// A HotSpot -XX flag of this JVM, read in-process through the tables libjvm exports for the
// Serviceability Agent. JVMTI has no way to ask for a flag, and one of them decides whether the
// JVMTI virtual-thread events exist at all: -XX:-DoJVMTIVirtualThreadTransitions (experimental)
// takes HotSpot's notifying mount/unmount path away, so those events are never posted (HotSpot
// posts them only under "if (DoJVMTIVirtualThreadTransitions && ...)", src/hotspot/share/prims),
// although JVMTI still grants can_support_virtual_threads (seen on JDK 25.0.3: GetPotential-
// and AddCapabilities both succeed with the flag off).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#pragma GCC visibility push(hidden)

namespace vtscope::native {

// The boolean flag `name`, from JVMFlag::flags / numFlags / _name / _addr as gHotSpotVMStructs
// and gHotSpotVMTypes describe them (src/hotspot/share/runtime/vmStructs.cpp); nullopt when
// libjvm exports no such tables or has no such flag.
std::optional<bool> hotspot_bool_flag(std::string_view name);

// The JVM's options as HotSpot keeps them for `jcmd PID VM.command_line` (Arguments::_jvm_args_array
// and _num_jvm_args, in the same tables): every option the JVM was created with, whichever way it
// came (command line, JDK_JAVA_OPTIONS, JAVA_TOOL_OPTIONS, @argfiles), the launcher's
// "--patch-module java.base=DIR" as "--patch-module=java.base=DIR". Set before any agent is
// loaded (Arguments::parse, src/hotspot/share/runtime/arguments.cpp), so Agent_OnLoad can read
// them without a JVMTI environment. nullopt when libjvm exports no such tables.
std::optional<std::vector<std::string>> hotspot_jvm_args();

}  // namespace vtscope::native

#pragma GCC visibility pop
