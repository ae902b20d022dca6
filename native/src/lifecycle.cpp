// SPDX-License-Identifier: Apache-2.0
#include "lifecycle.h"

#include "event_demand.h"
#include "probes.h"
#include "runtime.h"

extern "C" {
// USDT semaphores (see probes.h): incremented by tracers through the probe notes.
__attribute__((visibility("hidden"), section(".probes"))) unsigned short vtscope_vthread__start_semaphore = 0;
__attribute__((visibility("hidden"), section(".probes"))) unsigned short vtscope_vthread__end_semaphore = 0;
__attribute__((visibility("hidden"), section(".probes"))) unsigned short vtscope_vthread__mount_semaphore = 0;
__attribute__((visibility("hidden"), section(".probes"))) unsigned short vtscope_vthread__unmount_semaphore = 0;
}

namespace vtscope::native {

void claim_record_at_start(JNIEnv* jni, jthread vthread) {
    // Only the watcher switches VirtualThreadEnd off, so only then are start claims counted.
    // Counted before demand is checked, and the watcher clears demand before it reads the count
    // (both sequentially consistent): either this claim is counted before the watcher decides
    // to disable VirtualThreadEnd, or the demand it reads is already gone and nothing is claimed.
    bool counted = g_rt.count_start_claims;
    if (counted) g_start_claims.fetch_add(1);
    if (!g_record_demand.load()) {
        if (counted) g_start_claims.fetch_sub(1);
        return;
    }
    int64_t vid = thread_id(jni, vthread);
    // Claimed at start so the address is known to a caching reader from the first mount on,
    // and stays valid until after vthread__end.
    bool newly_claimed = false;
    uint64_t record = g_rt.table.claim(vid, true, true, &newly_claimed);
    if (counted && !newly_claimed) g_start_claims.fetch_sub(1);
    // JDK 25 posts a VirtualThreadMount right after this start (and an unmount right before
    // VirtualThreadEnd), so every mount and unmount reaches the probes through the extension
    // events (per thread, mounts = unmounts), and on_mount/on_unmount set otel_thread_ctx_v1.
    if (VTSCOPE_PROBE_ENABLED(vthread__start)) DTRACE_PROBE2(vtscope, vthread__start, vid, record);
}

void release_record_at_end(JNIEnv* jni, jthread vthread) {
    int64_t vid = thread_id(jni, vthread);
    if (VTSCOPE_PROBE_ENABLED(vthread__end)) DTRACE_PROBE1(vtscope, vthread__end, vid);
    release_record(vid);  // after the probe: the record stays valid until vthread__end has fired
}

void release_record(int64_t vid) {
    if (g_rt.table.release(vid, g_rt.paper_release) && g_rt.count_start_claims) g_start_claims.fetch_sub(1);
}

bool probe_tracer_attached() {
    return __atomic_load_n(&vtscope_vthread__start_semaphore, __ATOMIC_RELAXED) != 0 ||
           __atomic_load_n(&vtscope_vthread__end_semaphore, __ATOMIC_RELAXED) != 0 ||
           __atomic_load_n(&vtscope_vthread__mount_semaphore, __ATOMIC_RELAXED) != 0 ||
           __atomic_load_n(&vtscope_vthread__unmount_semaphore, __ATOMIC_RELAXED) != 0;
}

}  // namespace vtscope::native
