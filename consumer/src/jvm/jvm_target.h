// SPDX-License-Identifier: Apache-2.0
// Everything vtscope learns about a target JVM before tracing it: that the pid exists, that it
// runs HotSpot 21+, where libjvm.so is, and the VMStructs layout.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/expected.h"
#include "process/process_memory.h"
#include "process/target_files.h"
#include "jvm/oop_identity.h"
#include "jvm/vmstructs.h"

namespace vtscope {

struct JvmTarget {
    pid_t pid = 0;
    std::string libjvm_path;  // as the target sees it (from its maps)
    // libjvm.so as vtscope opened it (open_module: the mapped inode through /proc/PID/map_files,
    // else its path inside the target's root), held for the session. Its symbols are read from
    // this descriptor and the uprobes are attached through it (libjvm_attach_path,
    // /proc/self/fd/N), so both name the same inode, never a path the host would resolve, and
    // without the CAP_DAC_READ_SEARCH that walking another user's /proc/PID/map_files needs.
    std::shared_ptr<const UniqueFd> libjvm_file;
    std::string libjvm_attach_path;
    uint64_t load_bias = 0;
    uint64_t java_thread_run_offset = 0;  // file offset of JavaThread::run()
    uint64_t threads_remove_offset = 0;   // file offset of Threads::remove(JavaThread*, bool)
    HotSpotLayout layout;
    // JDK 21-23 (no _monitor_owner_id): how thread ids are read from the thread objects.
    std::optional<OopIdentity> oop_identity;
};

// One-line errors: no such process, not a JVM, unsupported JVM, missing symbols.
Expected<JvmTarget> inspect_jvm(pid_t pid, const MemoryReader& memory);

bool process_alive(pid_t pid);

}  // namespace vtscope
