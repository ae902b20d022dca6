// SPDX-License-Identifier: Apache-2.0
#include "event_demand.h"

#include <mutex>

#include "runtime.h"
#include "vtscope_native.h"

namespace vtscope::native {

std::atomic<bool> g_record_demand{false};
std::atomic<int64_t> g_start_claims{0};

namespace {

constexpr uint32_t kStart = 1, kEnd = 2, kMountUnmount = 4;
std::mutex g_events_mutex;
uint32_t g_events_enabled = 0;  // kStart | kEnd | kMountUnmount, under g_events_mutex
jint g_mount_index = -1, g_unmount_index = -1;
std::atomic<bool> g_vtt_active{false};      // Virtual Thread Time wants its events (under the mutex)
std::atomic<bool> g_vtt_ready{false};       // ... and they are enabled: registration's fast path
std::atomic<bool> g_records_wanted{false};  // OTEP, or a probe tracer attached (under the mutex)

// Brings the enabled events in line with the demand; with g_events_mutex held. Enables in the
// order end, mount/unmount, start and disables in the reverse, so a thread whose start was seen
// always has its end seen. Returns false if JVMTI refused a change (g_events_enabled still says
// what is on).
bool apply_event_demand_locked() {
    bool records = wants_records() && g_records_wanted.load();
    bool vtt = g_vtt_active.load();
    uint32_t wanted = 0;
    if (records) wanted |= kStart;
    if (records || vtt) wanted |= kMountUnmount;
    if (!records) {
        vtscope_probe_events_active = 0;  // going off, or never on: tracers must not trust it now
        g_record_demand.store(false);     // before start goes off (see g_record_demand)
    }
    if (records || vtt || g_start_claims.load() > 0) wanted |= kEnd;

    struct Step {
        uint32_t bit;
        jvmtiEvent events[2];
        int count;
    };
    const Step steps[] = {
        {kEnd, {JVMTI_EVENT_VIRTUAL_THREAD_END}, 1},
        {kMountUnmount, {static_cast<jvmtiEvent>(g_mount_index), static_cast<jvmtiEvent>(g_unmount_index)}, 2},
        {kStart, {JVMTI_EVENT_VIRTUAL_THREAD_START}, 1},
    };
    bool ok = true;
    for (const Step& step : steps) {  // enabling: end first
        if (!(wanted & step.bit) || (g_events_enabled & step.bit)) continue;
        bool step_ok = true;
        for (int i = 0; i < step.count; i++) step_ok &= set_event(step.events[i], true);
        if (!step_ok) {
            for (int i = 0; i < step.count; i++) set_event(step.events[i], false);
            ok = false;
            break;  // never enable a later step (start) without the earlier ones (end)
        }
        g_events_enabled |= step.bit;
        if (step.bit == kEnd && records) g_record_demand.store(true);  // end is on: claims may start
    }
    for (int s = 2; s >= 0; s--) {  // disabling: start first
        const Step& step = steps[s];
        if ((wanted & step.bit) || !(g_events_enabled & step.bit)) continue;
        for (int i = 0; i < step.count; i++) ok &= set_event(step.events[i], false);
        g_events_enabled &= ~step.bit;
    }
    constexpr uint32_t kAll = kStart | kEnd | kMountUnmount;
    bool probes_live = (g_rt.features & VTSCOPE_FEATURE_PROBES) && records && (g_events_enabled & kAll) == kAll;
    if (probes_live && !vtscope_probe_events_active) {
        vtscope_probe_events_epoch = vtscope_probe_events_epoch + 1;
        vtscope_probe_events_active = 1;
    }
    return ok;
}

}  // namespace

bool set_event(jvmtiEvent event, bool enable) {
    return g_rt.jvmti->SetEventNotificationMode(enable ? JVMTI_ENABLE : JVMTI_DISABLE, event, nullptr) ==
           JVMTI_ERROR_NONE;
}

void set_mount_event_indexes(jint mount_index, jint unmount_index) {
    g_mount_index = mount_index;
    g_unmount_index = unmount_index;
}

bool set_records_wanted(bool wanted) {
    std::lock_guard<std::mutex> lock(g_events_mutex);
    g_records_wanted.store(wanted);
    return apply_event_demand_locked();
}

bool records_wanted() { return g_records_wanted.load(); }

bool probe_events_switch_pending(bool tracer_attached) {
    std::lock_guard<std::mutex> lock(g_events_mutex);
    return tracer_attached != g_records_wanted.load() ||
           // a failed switch is retried while a tracer waits for it
           (tracer_attached && !vtscope_probe_events_active) ||
           // VirtualThreadEnd outlives the demand until the start claims are released
           (!tracer_attached && (g_events_enabled & kEnd) && !g_vtt_active.load());
}

// Switching per registration is what collapses throughput on JDK 25 (the seed), and the events
// are enabled before the registering thread's block exists, so its next unmount is always seen.
bool demand_vtt_events() {
    if (g_vtt_ready.load(std::memory_order_acquire)) return true;
    std::lock_guard<std::mutex> lock(g_events_mutex);
    if (g_vtt_ready.load(std::memory_order_relaxed)) return true;  // another thread got here first
    g_vtt_active.store(true);
    if (apply_event_demand_locked()) {
        g_vtt_ready.store(true, std::memory_order_release);
        return true;
    }
    g_vtt_active.store(false);
    apply_event_demand_locked();
    return false;
}

void abandon_event_demand() {
    std::lock_guard<std::mutex> lock(g_events_mutex);
    g_records_wanted.store(false);
    g_record_demand.store(false);
    for (jvmtiEvent event : {JVMTI_EVENT_VIRTUAL_THREAD_START, JVMTI_EVENT_VIRTUAL_THREAD_END,
                             static_cast<jvmtiEvent>(g_mount_index), static_cast<jvmtiEvent>(g_unmount_index)})
        set_event(event, false);
    g_events_enabled = 0;
}

}  // namespace vtscope::native
