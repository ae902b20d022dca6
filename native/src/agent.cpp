// The JVM boundary of libvtscope.so: entry points (JNI_OnLoad, Agent_OnLoad, the C ABI of
// vtscope_native.h) and the JVMTI callbacks. Nothing here throws (the library is built with
// -fno-exceptions), no callback allocates or locks, and every JVMTI/JNI failure becomes an error
// value, so the library cannot take the host JVM down.
//
// JVMTI facts this relies on (JDK 21+, checked on 25.0.3, see ../shared/FACTS.md):
// - can_support_virtual_threads enables VirtualThreadStart/End; the mount/unmount extension
//   events (com.sun.hotspot.events.VirtualThreadMount/Unmount) are found by id through
//   GetExtensionEvents and fire only after both SetExtensionEventCallback and
//   SetEventNotificationMode(JVMTI_ENABLE, index).
// - Those events are posted on the virtual thread itself (VirtualThread.mount/unmount call
//   notifyJvmtiMount/Unmount while it is the current thread), so "current thread" in a callback
//   is the virtual thread, and its JVMTI thread-local storage is the virtual thread's.
// - Enabling them is JVM-wide; per-thread enabling is globally synchronised in JDK 25 and
//   collapses throughput (../shared/seeds/001_*), so events are switched JVM-wide, and rarely.
// - Enabled mount/unmount events are the whole per-transition cost (bench/RESULTS.md: HotSpot's
//   JvmtiExport::post_vthread_mount/unmount, a JNI handle and a native transition per event),
//   and posting them creates a JvmtiThreadState (~280 bytes) per virtual thread. So the events
//   are on only while something needs them (EventDemand below): OTEP always; Virtual Thread Time
//   from the first registration on; the lifecycle probes while a tracer holds their semaphores,
//   which a watcher thread polls.
#include <dlfcn.h>
#include <stdarg.h>
#include <jni.h>
#include <jvmti.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <pthread.h>
#include <string>

#include "agent_options.h"
#include "otel_ctx.h"
#include "probes.h"
#include "record_table.h"
#include "vtscope_native.h"

extern "C" {
// 1 while the JVMTI events behind the lifecycle probes are enabled, so every start, mount,
// unmount and end fires its probe; 0 otherwise. Exported for tracers, which read it from outside
// (consumer/src/probe_modules.cpp) to know when their attach has taken effect.
__attribute__((visibility("default"))) volatile uint32_t vtscope_probe_events_active = 0;
// Incremented each time the probe events go on. A tracer that reads the same epoch before it
// attached and after it saw the events on knows they never went off in between (else mappings it
// learned before may be stale).
__attribute__((visibility("default"))) volatile uint32_t vtscope_probe_events_epoch = 0;

// USDT semaphores (see probes.h): incremented by tracers through the probe notes.
__attribute__((visibility("hidden"), section(".probes"))) unsigned short vtscope_vthread__start_semaphore = 0;
__attribute__((visibility("hidden"), section(".probes"))) unsigned short vtscope_vthread__end_semaphore = 0;
__attribute__((visibility("hidden"), section(".probes"))) unsigned short vtscope_vthread__mount_semaphore = 0;
__attribute__((visibility("hidden"), section(".probes"))) unsigned short vtscope_vthread__unmount_semaphore = 0;
}

namespace vtscope::native {
namespace {

constexpr uint32_t kDefaultCapacity = 16384;
constexpr const char* kMountEventId = "com.sun.hotspot.events.VirtualThreadMount";
constexpr const char* kUnmountEventId = "com.sun.hotspot.events.VirtualThreadUnmount";

// Written once under g_init_mutex during initialisation, read-only afterwards (callbacks are
// enabled only after every field is set).
struct Runtime {
    JavaVM* vm = nullptr;
    jvmtiEnv* jvmti = nullptr;
    jfieldID tid_field = nullptr;
    uint32_t features = 0;
    bool paper_release = false;  // AgentOptions::paper_release
    bool count_start_claims = false;  // the probe watcher may switch VirtualThreadEnd off
    RecordTable table;
};

Runtime g_rt;
std::mutex g_init_mutex;

// Which virtual-thread events are enabled, and why. Switching takes g_events_mutex (never on a
// callback path); callbacks read only the atomics.
constexpr uint32_t kStart = 1, kEnd = 2, kMountUnmount = 4;
std::mutex g_events_mutex;
uint32_t g_events_enabled = 0;           // kStart | kEnd | kMountUnmount, under g_events_mutex
jint g_mount_index = -1, g_unmount_index = -1;
std::atomic<bool> g_vtt_active{false};     // Virtual Thread Time wants its events (under the mutex)
std::atomic<bool> g_vtt_ready{false};      // ... and they are enabled: registration's fast path
std::atomic<bool> g_records_wanted{false}; // OTEP, or a probe tracer attached (under the mutex)
// Read by on_vthread_start: claim records at start. Set only once VirtualThreadEnd is enabled and
// cleared before VirtualThreadStart is disabled, so a start callback that sees it (however late it
// runs) always has its end seen too.
std::atomic<bool> g_record_demand{false};
// Slots claimed at VirtualThreadStart and not yet released at VirtualThreadEnd: while any is
// left, VirtualThreadEnd stays enabled, so no claimed slot outlives its thread.
std::atomic<int64_t> g_start_claims{0};
std::atomic<bool> g_vm_dead{false};  // VMDeath was posted: the watcher stops
constexpr long kProbeWatchPeriodNs = 50'000'000;  // a tracer's attach takes effect within 50 ms
bool g_init_done = false;
int32_t g_init_result = VTSCOPE_ERR_NOT_INITIALIZED;
char g_error[512] = "";
std::atomic<int64_t> g_live_blocks{0};

bool needs_probe_watcher();
void start_probe_watcher();

int32_t fail(int32_t code, const std::string& message) {
    std::snprintf(g_error, sizeof(g_error), "vtscope: %s", message.c_str());
    return code;
}

uint64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);  // the clock of System.nanoTime() on Linux
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

int64_t thread_id(JNIEnv* jni, jthread thread) { return jni->GetLongField(thread, g_rt.tid_field); }

bool wants_records() { return (g_rt.features & (VTSCOPE_FEATURE_PROBES | VTSCOPE_FEATURE_OTEP)) != 0; }

vtscope_vtt_block* current_block(jvmtiEnv* jvmti) {
    void* data = nullptr;
    if (jvmti->GetThreadLocalStorage(nullptr, &data) != JVMTI_ERROR_NONE) return nullptr;
    return static_cast<vtscope_vtt_block*>(data);
}

void free_block(jvmtiEnv* jvmti, vtscope_vtt_block* block) {
    jvmti->SetThreadLocalStorage(nullptr, nullptr);
    std::free(block);
    g_live_blocks.fetch_sub(1, std::memory_order_relaxed);
}

// ---- callbacks: run on the virtual thread; no allocation, no locks ----

void JNICALL on_vthread_start(jvmtiEnv*, JNIEnv* jni, jthread vthread) {
    if (!wants_records()) return;
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

void JNICALL on_vthread_end(jvmtiEnv* jvmti, JNIEnv* jni, jthread vthread) {
    if (g_rt.features & VTSCOPE_FEATURE_VTT) {
        if (vtscope_vtt_block* block = current_block(jvmti)) free_block(jvmti, block);
    }
    if (!wants_records()) return;
    int64_t vid = thread_id(jni, vthread);
    if (VTSCOPE_PROBE_ENABLED(vthread__end)) DTRACE_PROBE1(vtscope, vthread__end, vid);
    // After the probe: the record stays valid until vthread__end has fired.
    if (g_rt.table.release(vid, g_rt.paper_release) && g_rt.count_start_claims) g_start_claims.fetch_sub(1);
}

// Extension event callbacks are declared variadic by jvmti.h; HotSpot calls the mount and
// unmount ones with (jvmtiEnv*, JNIEnv*, jthread).
struct ExtensionEventArgs {
    JNIEnv* jni;
    jthread vthread;
};

ExtensionEventArgs extension_event_args(va_list args) {
    JNIEnv* jni = va_arg(args, JNIEnv*);
    return {jni, va_arg(args, jthread)};
}

void JNICALL on_mount(jvmtiEnv* jvmti, ...) {
    va_list args;
    va_start(args, jvmti);
    auto [jni, vthread] = extension_event_args(args);
    va_end(args);
    if (g_rt.features & VTSCOPE_FEATURE_VTT) {
        if (vtscope_vtt_block* block = current_block(jvmti)) {
            block->mount_start_ns = now_ns();
            block->mounts++;
        }
    }
    bool otep = (g_rt.features & VTSCOPE_FEATURE_OTEP) != 0;
    if (otep || VTSCOPE_PROBE_ENABLED(vthread__mount)) {
        int64_t vid = thread_id(jni, vthread);
        uint64_t record = g_rt.table.find(vid);
        if (VTSCOPE_PROBE_ENABLED(vthread__mount)) DTRACE_PROBE2(vtscope, vthread__mount, vid, record);
        if (otep) set_thread_context(record);
    }
}

void JNICALL on_unmount(jvmtiEnv* jvmti, ...) {
    va_list args;
    va_start(args, jvmti);
    auto [jni, vthread] = extension_event_args(args);
    va_end(args);
    if (g_rt.features & VTSCOPE_FEATURE_VTT) {
        if (vtscope_vtt_block* block = current_block(jvmti)) {
            block->mounted_ns += now_ns() - block->mount_start_ns;
            block->unmounts++;
        }
    }
    if (VTSCOPE_PROBE_ENABLED(vthread__unmount)) DTRACE_PROBE1(vtscope, vthread__unmount, thread_id(jni, vthread));
    if (g_rt.features & VTSCOPE_FEATURE_OTEP) set_thread_context(0);
}

bool resolve_tid_field(JNIEnv* jni) {
    jclass thread_class = jni->FindClass("java/lang/Thread");
    if (!thread_class) {
        jni->ExceptionClear();
        return false;
    }
    g_rt.tid_field = jni->GetFieldID(thread_class, "tid", "J");  // private final long tid (Thread.java)
    if (!g_rt.tid_field) jni->ExceptionClear();
    jni->DeleteLocalRef(thread_class);
    return g_rt.tid_field != nullptr;
}

void JNICALL on_vm_death(jvmtiEnv*, JNIEnv*) { g_vm_dead.store(true); }

void JNICALL on_vm_init(jvmtiEnv*, JNIEnv* jni, jthread) {
    // -agentpath: JNI is usable only from VMInit on; no virtual thread can start before it.
    resolve_tid_field(jni);
    if (needs_probe_watcher()) start_probe_watcher();  // threads can attach from VMInit on
}

// Finds the extension events by id; their indexes differ between builds.
bool find_extension_events(jvmtiEnv* jvmti, jint* mount_index, jint* unmount_index) {
    jint count = 0;
    jvmtiExtensionEventInfo* events = nullptr;
    if (jvmti->GetExtensionEvents(&count, &events) != JVMTI_ERROR_NONE) return false;
    *mount_index = *unmount_index = -1;
    for (jint i = 0; i < count; i++) {
        if (std::strcmp(events[i].id, kMountEventId) == 0) *mount_index = events[i].extension_event_index;
        if (std::strcmp(events[i].id, kUnmountEventId) == 0) *unmount_index = events[i].extension_event_index;
        for (jint p = 0; p < events[i].param_count; p++)
            jvmti->Deallocate(reinterpret_cast<unsigned char*>(events[i].params[p].name));
        jvmti->Deallocate(reinterpret_cast<unsigned char*>(events[i].params));
        jvmti->Deallocate(reinterpret_cast<unsigned char*>(events[i].id));
        jvmti->Deallocate(reinterpret_cast<unsigned char*>(events[i].short_description));
    }
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(events));
    return *mount_index >= 0 && *unmount_index >= 0;
}

bool set_event(jvmtiEvent event, bool enable) {
    return g_rt.jvmti->SetEventNotificationMode(enable ? JVMTI_ENABLE : JVMTI_DISABLE, event, nullptr) ==
           JVMTI_ERROR_NONE;
}

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

    struct Step { uint32_t bit; jvmtiEvent events[2]; int count; };
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

bool apply_event_demand() {
    std::lock_guard<std::mutex> lock(g_events_mutex);
    return apply_event_demand_locked();
}

bool probe_tracer_attached() {
    return __atomic_load_n(&vtscope_vthread__start_semaphore, __ATOMIC_RELAXED) != 0 ||
           __atomic_load_n(&vtscope_vthread__end_semaphore, __ATOMIC_RELAXED) != 0 ||
           __atomic_load_n(&vtscope_vthread__mount_semaphore, __ATOMIC_RELAXED) != 0 ||
           __atomic_load_n(&vtscope_vthread__unmount_semaphore, __ATOMIC_RELAXED) != 0;
}

// The watcher follows the probe semaphores, which the kernel increments when a tracer attaches a
// uprobe with a reference counter and decrements when it detaches; nothing else tells the library.
// It polls from a plain thread and attaches to the JVM only while it switches events (JVMTI calls
// need a Java thread): a thread attached for good would sit "in native" and make every JVM exit
// wait for it (HotSpot's VM_Exit::wait_for_threads_in_native_to_block, about 300 ms).
bool switch_events_attached(bool tracer_attached) {
    JavaVMAttachArgs args{JNI_VERSION_21, const_cast<char*>("vtscope probe watcher"), nullptr};
    JNIEnv* jni = nullptr;
    if (g_rt.vm->AttachCurrentThreadAsDaemon(reinterpret_cast<void**>(&jni), &args) != JNI_OK) return false;
    bool ok;
    {
        std::lock_guard<std::mutex> lock(g_events_mutex);
        g_records_wanted.store(tracer_attached);
        ok = apply_event_demand_locked();
    }
    g_rt.vm->DetachCurrentThread();
    return ok;
}

bool vm_is_live() { return !g_vm_dead.load(); }

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
        bool attached = present || (g_records_wanted.load() && idle_polls < 2);
        bool work;
        {
            std::lock_guard<std::mutex> lock(g_events_mutex);
            work = attached != g_records_wanted.load() ||
                   // a failed switch is retried while a tracer waits for it
                   (attached && !vtscope_probe_events_active) ||
                   // VirtualThreadEnd outlives the demand until the start claims are released
                   (!attached && (g_events_enabled & kEnd) && !g_vtt_active.load());
        }
        if (!work) continue;
        bool ok = switch_events_attached(attached);
        // A tracer that attached while the events were being switched off must not wait a period.
        if (ok && !attached && probe_tracer_attached()) ok = switch_events_attached(true);
        if (!ok && !reported && vm_is_live()) {
            std::fprintf(stderr, "vtscope: switching the virtual-thread events failed; lifecycle probes may miss events\n");
            reported = true;
        }
    }
    return nullptr;
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

// The watcher runs code of this library forever: keep it mapped even if a class loader's
// SymbolLookup arena is closed (dlclose).
void pin_library() {
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(&pin_library), &info) && info.dli_fname)
        dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

bool needs_probe_watcher() {
    return (g_rt.features & VTSCOPE_FEATURE_PROBES) && !(g_rt.features & VTSCOPE_FEATURE_OTEP);
}

// Called with g_init_mutex held. in_onload: from Agent_OnLoad (no JNI yet).
int32_t initialize_locked(JavaVM* vm, uint32_t features, uint64_t region_base, uint64_t region_size,
                          uint32_t capacity, bool in_onload) {
    g_rt.vm = vm;
    jvmtiEnv* jvmti = nullptr;
    if (vm->GetEnv(reinterpret_cast<void**>(&jvmti), JVMTI_VERSION_21) != JNI_OK || !jvmti)
        return fail(VTSCOPE_ERR_JVMTI, "no JVMTI 21 environment (JDK 21 or later needed)");
    g_rt.jvmti = jvmti;
    jvmtiCapabilities caps{};
    caps.can_support_virtual_threads = 1;
    if (jvmti->AddCapabilities(&caps) != JVMTI_ERROR_NONE)
        return fail(VTSCOPE_ERR_UNSUPPORTED, "the JVM does not grant can_support_virtual_threads");

    if (!in_onload) {
        JNIEnv* jni = nullptr;
        if (vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_21) != JNI_OK || !resolve_tid_field(jni))
            return fail(VTSCOPE_ERR_JVMTI, "cannot resolve java.lang.Thread.tid");
    }
    if (features & (VTSCOPE_FEATURE_PROBES | VTSCOPE_FEATURE_OTEP)) {
        std::string error;
        bool ok = region_base ? g_rt.table.adopt(region_base, region_size, &error)
                              : g_rt.table.create(capacity ? capacity : kDefaultCapacity, &error);
        if (!ok) return fail(VTSCOPE_ERR_REGION, error);
    }
    if (features & VTSCOPE_FEATURE_OTEP) {
        std::string error;
        set_thread_context_region(g_rt.table.base(), g_rt.table.size());  // platform threads (otel_ctx.h)
        if (!publish_process_context(&error)) return fail(VTSCOPE_ERR_REGION, error);
    }

    jint mount_index = -1, unmount_index = -1;
    if (!find_extension_events(jvmti, &mount_index, &unmount_index))
        return fail(VTSCOPE_ERR_UNSUPPORTED, "the JVM has no VirtualThreadMount/Unmount extension events");
    g_mount_index = mount_index;
    g_unmount_index = unmount_index;
    g_rt.features = features;
    g_rt.count_start_claims = needs_probe_watcher();

    jvmtiEventCallbacks callbacks{};
    callbacks.VirtualThreadStart = on_vthread_start;
    callbacks.VirtualThreadEnd = on_vthread_end;
    callbacks.VMInit = on_vm_init;
    callbacks.VMDeath = on_vm_death;
    if (jvmti->SetEventCallbacks(&callbacks, sizeof(callbacks)) != JVMTI_ERROR_NONE ||
        jvmti->SetExtensionEventCallback(mount_index, reinterpret_cast<jvmtiExtensionEvent>(on_mount)) != JVMTI_ERROR_NONE ||
        jvmti->SetExtensionEventCallback(unmount_index, reinterpret_cast<jvmtiExtensionEvent>(on_unmount)) != JVMTI_ERROR_NONE)
        return fail(VTSCOPE_ERR_JVMTI, "setting the JVMTI callbacks failed");

    if (in_onload && !set_event(JVMTI_EVENT_VM_INIT, true))
        return fail(VTSCOPE_ERR_JVMTI, "enabling VMInit failed");
    if (needs_probe_watcher() && !set_event(JVMTI_EVENT_VM_DEATH, true))
        return fail(VTSCOPE_ERR_JVMTI, "enabling VMDeath failed");
    // OTEP readers cannot be detected, so OTEP keeps the records and events on from here. The
    // probes and Virtual Thread Time switch them on when first needed.
    g_records_wanted.store((features & VTSCOPE_FEATURE_OTEP) != 0);
    if (!apply_event_demand()) {
        // Leave nothing half-enabled: a start event without its end would claim slots forever.
        g_records_wanted.store(false);
        g_record_demand.store(false);
        for (jvmtiEvent event : {JVMTI_EVENT_VIRTUAL_THREAD_START, JVMTI_EVENT_VIRTUAL_THREAD_END,
                                 static_cast<jvmtiEvent>(mount_index), static_cast<jvmtiEvent>(unmount_index)})
            set_event(event, false);
        g_events_enabled = 0;
        g_rt.features = 0;
        return fail(VTSCOPE_ERR_JVMTI, "enabling the virtual-thread events failed");
    }
    if (needs_probe_watcher()) {
        pin_library();
        if (!in_onload) start_probe_watcher();  // -agentpath: from VMInit
    }
    return VTSCOPE_OK;
}

int32_t initialize(JavaVM* vm, uint32_t features, uint64_t region_base, uint64_t region_size, uint32_t capacity,
                   bool in_onload) {
    std::lock_guard<std::mutex> lock(g_init_mutex);
    if (g_init_done) {
        if (g_init_result == VTSCOPE_OK && (features & ~g_rt.features) != 0)
            return fail(VTSCOPE_ERR_FEATURES, "features " + feature_names(features) + " requested, but the library was "
                                              "initialised with " + feature_names(g_rt.features));
        return g_init_result;
    }
    g_init_result = initialize_locked(vm, features, region_base, region_size, capacity, in_onload);
    g_init_done = true;
    return g_init_result;
}

// The first registration switches the mount, unmount and end events on, JVM-wide and for good:
// switching per registration is what collapses throughput on JDK 25 (the seed), and the events
// are enabled before this thread's block exists, so its next unmount is always seen.
bool activate_vtt() {
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

JavaVM* find_java_vm() {
    if (g_rt.vm) return g_rt.vm;
    // Loaded through FFM (dlopen) rather than System.load: JNI_OnLoad did not run. libjvm
    // exports JNI_GetCreatedJavaVMs.
    using GetVMs = jint (*)(JavaVM**, jsize, jsize*);
    auto get_vms = reinterpret_cast<GetVMs>(dlsym(RTLD_DEFAULT, "JNI_GetCreatedJavaVMs"));
    JavaVM* vm = nullptr;
    jsize count = 0;
    if (!get_vms || get_vms(&vm, 1, &count) != JNI_OK || count < 1) return nullptr;
    return vm;
}

}  // namespace
}  // namespace vtscope::native

using namespace vtscope::native;

extern "C" {

__attribute__((visibility("default"))) jint JNI_OnLoad(JavaVM* vm, void*) {
    std::lock_guard<std::mutex> lock(g_init_mutex);
    if (!g_rt.vm) g_rt.vm = vm;
    return JNI_VERSION_21;
}

__attribute__((visibility("default"))) jint Agent_OnLoad(JavaVM* vm, char* options, void*) {
    AgentOptions parsed;
    std::string error;
    if (!parse_agent_options(options ? options : "", &parsed, &error)) {
        std::fprintf(stderr, "vtscope: -agentpath options: %s\n", error.c_str());
        return JNI_ERR;
    }
    g_rt.paper_release = parsed.paper_release;
    int32_t result = initialize(vm, parsed.features, 0, 0, parsed.capacity, true);
    if (result != VTSCOPE_OK) {
        std::fprintf(stderr, "%s\n", g_error);
        return JNI_ERR;
    }
    return JNI_OK;
}

__attribute__((visibility("default"))) int32_t vtscope_native_init(uint32_t features, uint64_t region_base,
                                                                   uint64_t region_size) {
    if (features == 0 || (features & ~(VTSCOPE_FEATURE_VTT | VTSCOPE_FEATURE_PROBES | VTSCOPE_FEATURE_OTEP)) != 0)
        return fail(VTSCOPE_ERR_FEATURES, "invalid feature bits");
    JavaVM* vm = find_java_vm();
    if (!vm) return fail(VTSCOPE_ERR_NO_JVM, "no Java VM in this process");
    return initialize(vm, features, region_base, region_size, 0, false);
}

__attribute__((visibility("default"))) const char* vtscope_native_error(void) { return g_error; }

__attribute__((visibility("default"))) uint32_t vtscope_native_features(void) {
    std::lock_guard<std::mutex> lock(g_init_mutex);
    return g_init_result == VTSCOPE_OK ? g_rt.features : 0;
}

__attribute__((visibility("default"))) int32_t vtscope_vtt_register(vtscope_vtt_block** out) {
    if (!out) return VTSCOPE_ERR_NOT_OWNER;
    *out = nullptr;
    if (!(vtscope_native_features() & VTSCOPE_FEATURE_VTT)) return VTSCOPE_ERR_NOT_INITIALIZED;
    JNIEnv* jni = nullptr;
    if (g_rt.vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_21) != JNI_OK) return VTSCOPE_ERR_NO_JVM;
    if (jni->PushLocalFrame(4) != JNI_OK) return VTSCOPE_ERR_JVMTI;
    int32_t result = VTSCOPE_OK;
    jthread current = nullptr;
    if (g_rt.jvmti->GetCurrentThread(&current) != JVMTI_ERROR_NONE || !current) {
        result = VTSCOPE_ERR_JVMTI;
    } else if (!jni->IsVirtualThread(current)) {
        result = VTSCOPE_ERR_NOT_VIRTUAL;
    } else if (current_block(g_rt.jvmti)) {
        result = VTSCOPE_ERR_ALREADY;
    } else if (!activate_vtt()) {
        result = VTSCOPE_ERR_JVMTI;
    } else {
        void* memory = std::aligned_alloc(64, sizeof(vtscope_vtt_block));
        if (!memory) {
            result = VTSCOPE_ERR_JVMTI;
        } else {
            auto* block = static_cast<vtscope_vtt_block*>(std::memset(memory, 0, sizeof(vtscope_vtt_block)));
            block->thread_id = thread_id(jni, current);
            block->mount_start_ns = now_ns();  // registering from the thread: it is mounted now
            if (g_rt.jvmti->SetThreadLocalStorage(nullptr, block) != JVMTI_ERROR_NONE) {
                std::free(block);
                result = VTSCOPE_ERR_JVMTI;
            } else {
                g_live_blocks.fetch_add(1, std::memory_order_relaxed);
                *out = block;
            }
        }
    }
    jni->PopLocalFrame(nullptr);
    return result;
}

__attribute__((visibility("default"))) int32_t vtscope_vtt_unregister(vtscope_vtt_block* block) {
    if (!(vtscope_native_features() & VTSCOPE_FEATURE_VTT)) return VTSCOPE_ERR_NOT_INITIALIZED;
    if (!block || current_block(g_rt.jvmti) != block) return VTSCOPE_ERR_NOT_OWNER;
    free_block(g_rt.jvmti, block);
    return VTSCOPE_OK;
}

__attribute__((visibility("default"))) int64_t vtscope_vtt_live_blocks(void) {
    return g_live_blocks.load(std::memory_order_relaxed);
}

}  // extern "C"
