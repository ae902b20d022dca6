// SPDX-License-Identifier: Apache-2.0
// The target JVM's live JavaThreads, read through ThreadsSMRSupport::_java_thread_list.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <vector>

#include "core/expected.h"
#include "process/process_memory.h"
#include "jvm/vmstructs.h"

namespace vtscope {

struct JavaThreadInfo {
    uint32_t tid = 0;          // kernel tid (OSThread::_thread_id)
    uint64_t java_thread = 0;  // JavaThread*
};

// One consistent snapshot of the thread list. The list is replaced (not edited) on every thread
// start and exit (ThreadsSMRSupport), so the list pointer is read before and after the walk and
// the walk is retried if it changed. Threads whose OSThread has no tid yet are skipped: they
// will pass through JavaThread::run, where the uprobe records them. The walk runs every round of a
// session, so it reads the target in a constant number of batches (read_batch: one system call
// each for ProcessMemory), not per thread, and what only some threads need (sample_own_id) is
// left to the caller.
Expected<std::vector<JavaThreadInfo>> walk_java_threads(const MemoryReader& memory, const HotSpotLayout& layout);

// The OS thread's own Java id, when it can be proven: _vthread and _threadObj hold the same
// object exactly when no virtual thread is mounted (javaThread.hpp), and then _monitor_owner_id
// is the thread's own id. One sample reads the id, _cont_entry (null while no continuation is
// mounted), both handles, _cont_entry and the id again; two consecutive samples must agree. A
// mount-unmount-remount of one virtual thread between the reads (an ABA on the id) would have to
// happen twice, each time exactly around the _cont_entry reads. Returns 0 when not proven. Three
// batches per sample, six in all.
int64_t sample_own_id(const MemoryReader& memory, const HotSpotLayout& layout, uint64_t java_thread);

}  // namespace vtscope
