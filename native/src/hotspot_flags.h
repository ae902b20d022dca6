// A HotSpot -XX flag of this JVM, read in-process through the tables libjvm exports for the
// Serviceability Agent. JVMTI has no way to ask for a flag, and one of them decides whether the
// JVMTI virtual-thread events exist at all: -XX:-DoJVMTIVirtualThreadTransitions (experimental)
// takes HotSpot's notifying mount/unmount path away, so those events are never posted although
// the capability is still granted (src/hotspot/share/runtime/javaThread.cpp and
// prims/jvmtiThreadState.cpp, JDK 25: every posting is under "if (DoJVMTIVirtualThreadTransitions
// && ...)").
#pragma once

#include <optional>
#include <string_view>

#pragma GCC visibility push(hidden)

namespace vtscope::native {

// The boolean flag `name`, from JVMFlag::flags / numFlags / _name / _addr as gHotSpotVMStructs
// and gHotSpotVMTypes describe them (src/hotspot/share/runtime/vmStructs.cpp); nullopt when
// libjvm exports no such tables or has no such flag.
std::optional<bool> hotspot_bool_flag(std::string_view name);

}  // namespace vtscope::native

#pragma GCC visibility pop
