// SPDX-License-Identifier: Apache-2.0
#include "probe_watcher.h"

#include <dlfcn.h>
#include <jni.h>
#include <pthread.h>
#include <time.h>

#include <atomic>
#include <cstdio>

#include "event_demand.h"
#include "lifecycle.h"
#include "runtime.h"
#include "vtscope_native.h"

namespace vtscope::native {

namespace {

constexpr long kProbeWatchPeriodNs = 50'000'000;  // a tracer's attach takes effect within 50 ms
std::atomic<bool> g_vm_dead{false};               // VMDeath was posted: the watcher stops

bool vm_is_live() { return !g_vm_dead.load(); }

// The watcher polls from a plain thread and attaches to the JVM only while it switches events
// (JVMTI calls need a Java thread): a thread attached for good would sit "in native" and make
// every JVM exit wait for it (HotSpot's VM_Exit::wait_for_threads_in_native_to_block, about
// 300 ms).
bool switch_events_attached(bool tracer_attached) {
    JavaVMAttachArgs args{JNI_VERSION_21, const_cast<char*>("vtscope probe watcher"), nullptr};
    JNIEnv* jni = nullptr;
    if (g_rt.vm->AttachCurrentThreadAsDaemon(reinterpret_cast<void**>(&jni), &args) != JNI_OK) return false;
    bool ok = set_records_wanted(tracer_attached);
    g_rt.vm->DetachCurrentThread();
    return ok;
}

void* watch_probe_tracers(void*) {
    bool reported = false;
    int idle_polls = 0;  // consecutive polls that found no tracer
    for (;;) {
        timespec period{0, kProbeWatchPeriodNs};
        nanosleep(&period, nullptr);
        if (!vm_is_live()) return nullptr;  // VMDeath: nothing to switch any more
        // Off only after two polls without a tracer, so a tracer that replaces another within a
        // period finds the events still on (and the epoch unchanged).
        bool present = probe_tracer_attached();
        idle_polls = present ? 0 : idle_polls + 1;
        bool attached = present || (records_wanted() && idle_polls < 2);
        if (!probe_events_switch_pending(attached)) continue;
        bool ok = switch_events_attached(attached);
        // A tracer that attached while the events were being switched off must not wait a period.
        if (ok && !attached && probe_tracer_attached()) ok = switch_events_attached(true);
        if (!ok && !reported && vm_is_live()) {
            std::fprintf(stderr,
                         "vtscope: switching the virtual-thread events failed; lifecycle probes may miss events\n");
            reported = true;
        }
    }
    return nullptr;
}

}  // namespace

bool needs_probe_watcher() { return (g_rt.features & VTSCOPE_FEATURE_PROBES) && !g_rt.otep_events; }

void pin_library() {
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(&pin_library), &info) && info.dli_fname)
        dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

void start_probe_watcher() {
    pthread_t thread;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&thread, &attr, watch_probe_tracers, nullptr) != 0)
        std::fprintf(stderr, "vtscope: cannot start the probe watcher thread; lifecycle probes stay off\n");
    pthread_attr_destroy(&attr);
}

void stop_probe_watcher() { g_vm_dead.store(true); }

}  // namespace vtscope::native
