// SPDX-License-Identifier: Apache-2.0
// The JVM boundary of libvtscope.so: entry points (JNI_OnLoad, Agent_OnLoad, Agent_OnAttach, the C ABI of
// vtscope_native.h), initialisation with the JVMTI callbacks' registration, and the callbacks
// themselves, which hand each event to the features: Virtual Thread Time
// (virtual_thread_time.h), the lifecycle records and probes (lifecycle.h, probes.h) and the OTEP
// 4947 thread context (otel_ctx.h). Which events are on is event_demand.h's business; the probe
// watcher (probe_watcher.h) switches them for tracers. Nothing here throws (the library is built
// with -fno-exceptions), no callback allocates or locks, and every JVMTI/JNI failure becomes an
// error value, so the library cannot take the host JVM down.
//
// JVMTI facts this relies on (JDK 21+, checked on 25.0.3, see ../shared/FACTS.md):
// - can_support_virtual_threads enables VirtualThreadStart/End; the mount/unmount extension
//   events (com.sun.hotspot.events.VirtualThreadMount/Unmount) are found by id through
//   GetExtensionEvents and fire only after both SetExtensionEventCallback and
//   SetEventNotificationMode(JVMTI_ENABLE, index).
// - Those events are posted on the virtual thread itself (VirtualThread.mount/unmount call
//   notifyJvmtiMount/Unmount while it is the current thread), so "current thread" in a callback
//   is the virtual thread, and its JVMTI thread-local storage is the virtual thread's.
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdarg.h>
#include <jni.h>
#include <jvmti.h>

#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../../common/vtscope_record.h"
#include "agent_options.h"
#include "event_demand.h"
#include "hotspot_flags.h"
#include "java_base_patch.h"
#include "lifecycle.h"
#include "mount_hook.h"
#include "mount_hook_classes.h"  // generated: the class files a written patch holds (CMakeLists.txt)
#include "otel_ctx.h"
#include "probe_watcher.h"
#include "probes.h"
#include "runtime.h"
#include "virtual_thread_time.h"
#include "vtscope_native.h"

extern "C" {
// Written by the event demand (event_demand.cpp), read by tracers from outside through the ELF
// symbols (consumer/src/core/probe_modules.cpp); see vtscope_native.h.
__attribute__((visibility("default"))) volatile uint32_t vtscope_probe_events_active = 0;
__attribute__((visibility("default"))) volatile uint32_t vtscope_probe_events_epoch = 0;
}

namespace vtscope::native {

Runtime g_rt;

namespace {

constexpr const char* kMountEventId = "com.sun.hotspot.events.VirtualThreadMount";
constexpr const char* kUnmountEventId = "com.sun.hotspot.events.VirtualThreadUnmount";

std::mutex g_init_mutex;
bool g_init_done = false;
int32_t g_init_result = VTSCOPE_ERR_NOT_INITIALIZED;
char g_error[512] = "";

int32_t fail(int32_t code, const std::string& message) {
    std::snprintf(g_error, sizeof(g_error), "vtscope: %s", message.c_str());
    return code;
}

// ---- callbacks: run on the virtual thread; no allocation, no locks ----

void JNICALL on_vthread_start(jvmtiEnv*, JNIEnv* jni, jthread vthread) {
    if (wants_records()) claim_record_at_start(jni, vthread);
}

void JNICALL on_vthread_end(jvmtiEnv* jvmti, JNIEnv* jni, jthread vthread) {
    if (g_rt.features & VTSCOPE_FEATURE_VTT) vtt_on_end(jvmti);
    if (wants_records()) release_record_at_end(jni, vthread);
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
    if (g_rt.features & VTSCOPE_FEATURE_VTT) vtt_on_mount(jvmti);
    // The probe and OTEP share one lookup of the record claimed at start.
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
    if (g_rt.features & VTSCOPE_FEATURE_VTT) vtt_on_unmount(jvmti);
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

void JNICALL on_vm_death(jvmtiEnv*, JNIEnv*) { stop_probe_watcher(); }

jint g_mount_index = -1, g_unmount_index = -1;

// What the JVMTI mount/unmount path needs: can_support_virtual_threads (VirtualThreadStart/End,
// and HotSpot posts the mount/unmount extension events only with it) and the extension event
// callbacks. Holding the capability alone costs every transition (mount_hook.h), so it is taken
// only by the features that need the events: Virtual Thread Time, the probes, and OTEP when the
// mount hook cannot be installed.
int32_t take_virtual_thread_events(jvmtiEnv* jvmti) {
    // Granted or not, the capability would give no event under this flag (hotspot_flags.h): the
    // features would run on silently with nothing, so they fail instead.
    if (hotspot_bool_flag("DoJVMTIVirtualThreadTransitions") == false)
        return fail(VTSCOPE_ERR_UNSUPPORTED,
                    "the JVM runs with -XX:-DoJVMTIVirtualThreadTransitions, so it posts no virtual-thread "
                    "events: vtt, probes and otep-jvmti need them (otep's mount hook does not)");
    jvmtiCapabilities caps{};
    caps.can_support_virtual_threads = 1;
    if (jvmti->AddCapabilities(&caps) != JVMTI_ERROR_NONE)
        return fail(VTSCOPE_ERR_UNSUPPORTED, "the JVM does not grant can_support_virtual_threads");
    if (jvmti->SetExtensionEventCallback(g_mount_index, reinterpret_cast<jvmtiExtensionEvent>(on_mount)) !=
            JVMTI_ERROR_NONE ||
        jvmti->SetExtensionEventCallback(g_unmount_index, reinterpret_cast<jvmtiExtensionEvent>(on_unmount)) !=
            JVMTI_ERROR_NONE)
        return fail(VTSCOPE_ERR_JVMTI, "setting the JVMTI mount/unmount callbacks failed");
    return VTSCOPE_OK;
}

// OTEP, once JNI is usable: otel_thread_ctx_v1 follows mounts through the mount hook
// (mount_hook.h), else through the JVMTI events, which then stay on for good (OTEP readers cannot
// be detected). Says on stderr which path runs, and why not the hook.
int32_t start_thread_context(jvmtiEnv* jvmti, JNIEnv* jni) {
    if (g_rt.on_java_base_patch) {  // the calls are in VirtualThread already (java_base_patch.h)
        std::fprintf(stderr, "vtscope: otep: otel_thread_ctx_v1 follows mounts through the patched java.base\n");
        return VTSCOPE_OK;
    }
    std::string why = "otep-jvmti requested";
    if (!g_rt.otep_jvmti && install_mount_hook(jvmti, jni, &why)) {
        pin_library();  // VirtualThread calls into this library from now on
        std::fprintf(stderr, "vtscope: otep: otel_thread_ctx_v1 follows mounts through the VirtualThread mount hook\n");
        return VTSCOPE_OK;
    }
    std::fprintf(stderr, "vtscope: otep: otel_thread_ctx_v1 follows mounts through the JVMTI mount events (%s)\n",
                 why.c_str());
    if (int32_t taken = take_virtual_thread_events(jvmti); taken != VTSCOPE_OK) return taken;
    g_rt.otep_events = true;  // the probe watcher must not switch them off (needs_probe_watcher)
    if (!set_records_wanted(true)) {
        abandon_event_demand();
        return fail(VTSCOPE_ERR_JVMTI, "enabling the virtual-thread events failed");
    }
    return VTSCOPE_OK;
}

void JNICALL on_vm_init(jvmtiEnv* jvmti, JNIEnv* jni, jthread) {
    // -agentpath: JNI is usable only from VMInit on; no virtual thread can start before it.
    resolve_tid_field(jni);
    if ((g_rt.features & VTSCOPE_FEATURE_OTEP) && start_thread_context(jvmti, jni) != VTSCOPE_OK)
        std::fprintf(stderr, "%s; otel_thread_ctx_v1 is not kept\n", g_error);
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

// The resource the Java side published before this library was loaded (otel_ctx.h,
// kResourceProperty): read through JNI (java.lang.System.getProperty), because JVMTI's
// GetSystemProperty sees only the properties of the VM's start-up, not System.setProperty
// (JVMTI spec, GetSystemProperty). A system property and not a Java field: it is one per
// process whatever class loader set it (the agent extension's loader is not the application's,
// and neither is visible to this library's FindClass). Failures only cost the resource, so they
// are reported on stderr and initialisation goes on.
void adopt_handed_over_resource(JNIEnv* jni) {
    jclass system = jni->FindClass("java/lang/System");
    jmethodID get =
        system ? jni->GetStaticMethodID(system, "getProperty", "(Ljava/lang/String;)Ljava/lang/String;") : nullptr;
    jstring key = get ? jni->NewStringUTF(kResourceProperty) : nullptr;
    auto value = key ? static_cast<jstring>(jni->CallStaticObjectMethod(system, get, key)) : nullptr;
    if (jni->ExceptionCheck()) {
        jni->ExceptionClear();
        value = nullptr;
    }
    const char* chars = value ? jni->GetStringUTFChars(value, nullptr) : nullptr;
    if (chars) {
        std::vector<ContextAttribute> resource;
        std::string error;
        if (!decode_resource_property(chars, &resource))
            std::fprintf(stderr,
                         "vtscope: otep: the system property %s is malformed; the process context has no resource\n",
                         kResourceProperty);
        else if (!adopt_process_resource(resource, nullptr, &error))
            std::fprintf(stderr, "vtscope: otep: the application's resource is not in the process context: %s\n",
                         error.c_str());
        jni->ReleaseStringUTFChars(value, chars);
    }
    for (jobject ref : {static_cast<jobject>(value), static_cast<jobject>(key), static_cast<jobject>(system)})
        if (ref) jni->DeleteLocalRef(ref);
}

// Loaded while Java code already ran: tells the Java writer, which may have found no library when
// it first looked, that otel_thread_ctx_v1 is kept now (otel_ctx.h, kThreadContextProperty).
// Failures only leave threads' thread-locals to their next mount; reported, not fatal.
void announce_thread_context(JNIEnv* jni) {
    jclass system = jni->FindClass("java/lang/System");
    jmethodID set = system ? jni->GetStaticMethodID(system, "setProperty",
                                                    "(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;")
                           : nullptr;
    jstring key = set ? jni->NewStringUTF(kThreadContextProperty) : nullptr;
    jstring value = key ? jni->NewStringUTF("1") : nullptr;
    jobject previous = value ? jni->CallStaticObjectMethod(system, set, key, value) : nullptr;
    if (!value || jni->ExceptionCheck()) {
        jni->ExceptionClear();
        std::fprintf(stderr,
                     "vtscope: otep: the system property %s cannot be set; threads that publish first "
                     "now get their otel_thread_ctx_v1 at their next mount\n",
                     kThreadContextProperty);
    }
    for (jobject ref : {previous, static_cast<jobject>(value), static_cast<jobject>(key), static_cast<jobject>(system)})
        if (ref) jni->DeleteLocalRef(ref);
}

// The service.name of the application's OpenTelemetry configuration (otel_ctx.h,
// configured_service_name), for the process context's first publication, from the
// otel.service.name and otel.resource.attributes system properties of the VM's start-up (-D, where
// they are given) and the OTEL_* environment.
std::vector<ContextAttribute> configured_resource(const std::optional<std::string>& name,
                                                  const std::optional<std::string>& attributes) {
    std::string service =
        configured_service_name(name ? name->c_str() : nullptr, std::getenv("OTEL_SERVICE_NAME"),
                                attributes ? attributes->c_str() : nullptr, std::getenv("OTEL_RESOURCE_ATTRIBUTES"));
    if (service.empty()) return {};
    ContextAttribute attribute;
    attribute.key = "service.name";
    attribute.string_value = service;
    return {attribute};
}

// The same through JVMTI's GetSystemProperty, which sees the properties of the VM's start-up and
// works in the OnLoad and the live phase.
std::vector<ContextAttribute> configured_resource(jvmtiEnv* jvmti) {
    auto property = [jvmti](const char* key) {
        char* value = nullptr;
        std::string out;
        bool set = jvmti->GetSystemProperty(key, &value) == JVMTI_ERROR_NONE && value;
        if (set) out = value;
        if (value) jvmti->Deallocate(reinterpret_cast<unsigned char*>(value));
        return set ? std::optional<std::string>(out) : std::nullopt;
    };
    return configured_resource(property("otel.service.name"), property("otel.resource.attributes"));
}

// The record region this process already maps, if any: the Java writer's memfd (its name and
// shared read-write mapping from offset 0, as io.vtscope.internal.RecordRegion creates it and
// adopts one), with a header that validates. A library loaded into a running JVM adopts it
// rather than creating a second one, as the Java writer adopts the -agentpath library's: readers
// take one region per process, and OTEP's thread-locals must point at the records the writer
// fills.
bool find_mapped_region(uint64_t* base, uint64_t* size) {
    std::FILE* maps = std::fopen("/proc/self/maps", "re");
    if (!maps) return false;
    const std::string name = std::string("/memfd:") + VTSCOPE_REGION_NAME;
    char line[4096];
    bool found = false;
    while (!found && std::fgets(line, sizeof(line), maps)) {
        unsigned long start = 0, end = 0, offset = 0;
        char perms[8] = "";
        int path_at = 0;
        // "start-end perms offset dev inode path" (proc(5))
        if (std::sscanf(line, "%lx-%lx %7s %lx %*s %*s %n", &start, &end, perms, &offset, &path_at) < 4 || !path_at)
            continue;
        std::string_view path(line + path_at);
        while (!path.empty() && (path.back() == '\n' || path.back() == ' ')) path.remove_suffix(1);
        if (path != name && path != name + " (deleted)") continue;
        if (std::strlen(perms) < 4 || perms[0] != 'r' || perms[1] != 'w' || perms[3] != 's' || offset != 0) continue;
        std::string error;
        found = validate_region_header(start, end - start, getpid(), &error);
        if (found) {
            *base = start;
            *size = end - start;
        }
    }
    std::fclose(maps);
    return found;
}

// OTEP alone on a java.base this library patched, from Agent_OnLoad: no JVMTI environment at
// all (java_base_patch.h says why), so nothing but the record region, the platform threads'
// thread-local region and the process context is set up here; the patched VirtualThread calls
// MountHook's exported natives once PatchLink has asked linked().
int32_t initialize_on_java_base_patch(JavaVM* vm, uint32_t capacity, const std::vector<std::string>& jvm_args,
                                      const std::string& dir) {
    g_rt.vm = vm;
    std::string error;
    if (!g_rt.table.create(capacity ? capacity : VTSCOPE_DEFAULT_CAPACITY, &error))
        return fail(VTSCOPE_ERR_REGION, error);
    set_thread_context_region(g_rt.table.base(), g_rt.table.size());
    seed_process_resource(configured_resource(jvm_arg_property(jvm_args, "otel.service.name"),
                                              jvm_arg_property(jvm_args, "otel.resource.attributes")));
    if (!publish_process_context(&error)) return fail(VTSCOPE_ERR_REGION, error);
    g_rt.features = VTSCOPE_FEATURE_OTEP;
    g_rt.on_java_base_patch = true;
    pin_library();  // VirtualThread calls into this library from its first mount on
    set_java_base_patch_live();
    std::fprintf(stderr,
                 "vtscope: otep: otel_thread_ctx_v1 follows mounts through the patched java.base in %s (libvtscope "
                 "takes no JVMTI environment)\n",
                 dir.c_str());
    return VTSCOPE_OK;
}

// The record region (adopted from the Java writer, or created) for the probes and OTEP, and for
// OTEP the platform threads' thread-local region and the process context.
int32_t set_up_records(jvmtiEnv* jvmti, JNIEnv* jni, uint32_t features, uint64_t region_base, uint64_t region_size,
                       uint32_t capacity) {
    if (features & (VTSCOPE_FEATURE_PROBES | VTSCOPE_FEATURE_OTEP)) {
        std::string error;
        bool ok = region_base ? g_rt.table.adopt(region_base, region_size, &error)
                              : g_rt.table.create(capacity ? capacity : VTSCOPE_DEFAULT_CAPACITY, &error);
        if (!ok) return fail(VTSCOPE_ERR_REGION, error);
    }
    if (features & VTSCOPE_FEATURE_OTEP) {
        std::string error;
        set_thread_context_region(g_rt.table.base(), g_rt.table.size());  // platform threads (otel_ctx.h)
        // Loaded after the application's OpenTelemetry started (dynamic attach, or the Java side's
        // own late load): its resource is waiting in a system property. With -agentpath there is
        // nothing to fetch: the library is mapped before any Java code runs, so the Java side
        // finds it and passes its resource through the C ABI.
        if (jni) adopt_handed_over_resource(jni);
        seed_process_resource(configured_resource(jvmti));
        if (!publish_process_context(&error)) return fail(VTSCOPE_ERR_REGION, error);
    }
    return VTSCOPE_OK;
}

// The JVMTI callbacks, then the events each feature needs from the start. Runs with g_rt.features
// set, which a failure to start the thread context or the events clears again.
int32_t enable_events(jvmtiEnv* jvmti, JNIEnv* jni, uint32_t features, bool in_onload) {
    bool probes = (features & VTSCOPE_FEATURE_PROBES) != 0;
    jvmtiEventCallbacks callbacks{};
    callbacks.VirtualThreadStart = on_vthread_start;
    callbacks.VirtualThreadEnd = on_vthread_end;
    callbacks.VMInit = on_vm_init;
    callbacks.VMDeath = on_vm_death;
    callbacks.ClassFileLoadHook = on_class_file_load;  // enabled by the mount hook, for good
    if (jvmti->SetEventCallbacks(&callbacks, sizeof(callbacks)) != JVMTI_ERROR_NONE)
        return fail(VTSCOPE_ERR_JVMTI, "setting the JVMTI callbacks failed");

    if (in_onload && !set_event(JVMTI_EVENT_VM_INIT, true)) return fail(VTSCOPE_ERR_JVMTI, "enabling VMInit failed");
    if (probes && !set_event(JVMTI_EVENT_VM_DEATH, true)) return fail(VTSCOPE_ERR_JVMTI, "enabling VMDeath failed");
    // OTEP readers cannot be detected, so OTEP keeps otel_thread_ctx_v1 current from here (from
    // VMInit with -agentpath). The probes and Virtual Thread Time switch the events on when first
    // needed.
    if (features & VTSCOPE_FEATURE_OTEP) {
        if (!in_onload) {
            if (int32_t started = start_thread_context(jvmti, jni); started != VTSCOPE_OK) {
                g_rt.features = 0;
                return started;
            }
            announce_thread_context(jni);
        }
    } else if (!set_records_wanted(false)) {
        abandon_event_demand();
        g_rt.features = 0;
        return fail(VTSCOPE_ERR_JVMTI, "enabling the virtual-thread events failed");
    }
    return VTSCOPE_OK;
}

// Called with g_init_mutex held. in_onload: from Agent_OnLoad (no JNI yet).
int32_t initialize_locked(JavaVM* vm, uint32_t features, uint64_t region_base, uint64_t region_size, uint32_t capacity,
                          bool in_onload) {
    // A java.base patched by this library is trusted only for the JDK it was written from; for
    // another one the JVM must not run on it (at -agentpath it then does not start).
    std::vector<std::string> jvm_args = hotspot_jvm_args().value_or(std::vector<std::string>{});
    JavaBasePatch patch =
        check_java_base_patch(jvm_args, running_java_home(), {hook_classes::kMountHook, hook_classes::kPatchLink});
    if (patch.kind == JavaBasePatch::Kind::kMismatch) return fail(VTSCOPE_ERR_UNSUPPORTED, patch.error);
    // From the start only: loaded later, PatchLink may have been initialised without it, and the
    // JVMTI route's retransformation adds its own calls beside the patch's (which stay off).
    bool on_patch =
        patch.kind == JavaBasePatch::Kind::kOurs && in_onload && (features & VTSCOPE_FEATURE_OTEP) && !g_rt.otep_jvmti;
    if (on_patch && features == VTSCOPE_FEATURE_OTEP)
        return initialize_on_java_base_patch(vm, capacity, jvm_args, patch.dir);
    g_rt.on_java_base_patch = on_patch;  // with vtt or probes: their JVMTI environment, OTEP on the patch

    g_rt.vm = vm;
    jvmtiEnv* jvmti = nullptr;
    if (vm->GetEnv(reinterpret_cast<void**>(&jvmti), JVMTI_VERSION_21) != JNI_OK || !jvmti)
        return fail(VTSCOPE_ERR_JVMTI, "no JVMTI 21 environment (JDK 21 or later needed)");
    g_rt.jvmti = jvmti;

    JNIEnv* jni = nullptr;
    if (!in_onload) {
        if (vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_21) != JNI_OK || !resolve_tid_field(jni))
            return fail(VTSCOPE_ERR_JVMTI, "cannot resolve java.lang.Thread.tid");
    }
    if (int32_t set_up = set_up_records(jvmti, jni, features, region_base, region_size, capacity); set_up != VTSCOPE_OK)
        return set_up;

    if (!find_extension_events(jvmti, &g_mount_index, &g_unmount_index))
        return fail(VTSCOPE_ERR_UNSUPPORTED, "the JVM has no VirtualThreadMount/Unmount extension events");
    set_mount_event_indexes(g_mount_index, g_unmount_index);
    if (features & (VTSCOPE_FEATURE_VTT | VTSCOPE_FEATURE_PROBES))
        if (int32_t taken = take_virtual_thread_events(jvmti); taken != VTSCOPE_OK) return taken;
    g_rt.features = features;
    // The probe watcher runs unless OTEP keeps the events on for good, which is known only once
    // OTEP has started (VMInit with -agentpath); what it needs before is taken for the probes
    // either way (counting start claims and VMDeath are harmless without it).
    bool probes = (features & VTSCOPE_FEATURE_PROBES) != 0;
    g_rt.count_start_claims = probes;

    if (int32_t enabled = enable_events(jvmti, jni, features, in_onload); enabled != VTSCOPE_OK) return enabled;
    if (probes) pin_library();
    if (!in_onload && needs_probe_watcher()) start_probe_watcher();  // -agentpath: from VMInit
    if (on_patch) {
        pin_library();
        set_java_base_patch_live();
    }
    return VTSCOPE_OK;
}

int32_t initialize(JavaVM* vm, uint32_t features, uint64_t region_base, uint64_t region_size, uint32_t capacity,
                   bool in_onload) {
    std::lock_guard<std::mutex> lock(g_init_mutex);
    if (g_init_done) {
        if (g_init_result == VTSCOPE_OK && (features & ~g_rt.features) != 0)
            return fail(VTSCOPE_ERR_FEATURES, "features " + feature_names(features) +
                                                  " requested, but the library was "
                                                  "initialised with " +
                                                  feature_names(g_rt.features));
        return g_init_result;
    }
    g_init_result = initialize_locked(vm, features, region_base, region_size, capacity, in_onload);
    g_init_done = true;
    return g_init_result;
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

std::string g_patch_out;  // write-patch=DIR

void JNICALL on_vm_init_write_patch(jvmtiEnv*, JNIEnv* jni, jthread) {
    std::string error;
    // The directory first: writePatch's Files.write follows symbolic links, so DIR must be one
    // nobody else can plant them in (java_base_patch.h). What it writes must be writable by
    // neither group nor others, or the JVMs run on it refuse it: this JVM was started only to
    // write the patch, so its umask may be raised for good.
    umask(umask(0) | S_IWGRP | S_IWOTH);
    if (prepare_patch_directory(g_patch_out, &error) && write_java_base_patch(jni, g_patch_out, &error)) {
        std::fprintf(stderr,
                     "vtscope: wrote a patched java.base for OTEP to %s; run the JVM with --patch-module java.base=%s "
                     "-agentpath:libvtscope.so=otep\n",
                     g_patch_out.c_str(), g_patch_out.c_str());
        return;
    }
    std::fprintf(stderr, "vtscope: write-patch: %s\n", error.c_str());
    // The JVM was started to write the patch: it must not exit 0 without one.
    jclass system = jni->FindClass("java/lang/System");
    jmethodID exit = system ? jni->GetStaticMethodID(system, "exit", "(I)V") : nullptr;
    if (exit) jni->CallStaticVoidMethod(system, exit, 1);
    jni->ExceptionClear();
}

// write-patch=DIR (java_base_patch.h): JNI is needed, so at VMInit, through a JVMTI environment
// that only this JVM, started to write the patch, ever has.
jint start_patch_writer(JavaVM* vm, const std::string& dir, bool in_onload) {
    if (!in_onload) {
        std::fprintf(stderr,
                     "vtscope: write-patch=DIR is for -agentpath (a JVM started to write it), not agent_load\n");
        return JNI_ERR;
    }
    jvmtiEnv* jvmti = nullptr;
    jvmtiEventCallbacks callbacks{};
    callbacks.VMInit = on_vm_init_write_patch;
    g_patch_out = dir;
    if (vm->GetEnv(reinterpret_cast<void**>(&jvmti), JVMTI_VERSION_21) != JNI_OK || !jvmti ||
        jvmti->SetEventCallbacks(&callbacks, sizeof(callbacks)) != JVMTI_ERROR_NONE ||
        jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, nullptr) != JVMTI_ERROR_NONE) {
        std::fprintf(stderr, "vtscope: write-patch: no JVMTI 21 environment for VMInit (JDK 21 or later needed)\n");
        return JNI_ERR;
    }
    return JNI_OK;
}

// Agent_OnLoad (in_onload) and Agent_OnAttach: the options, then initialisation; every failure
// is one line on the JVM's stderr and JNI_ERR (-agentpath: the JVM does not start; attach: the
// command reports the failure and the JVM runs on).
jint load_agent(JavaVM* vm, const char* options, bool in_onload) {
    AgentOptions parsed;
    std::string error;
    if (!parse_agent_options(options ? options : "", &parsed, &error)) {
        std::fprintf(stderr, "vtscope: %s options: %s\n", in_onload ? "-agentpath" : "agent_load", error.c_str());
        return JNI_ERR;
    }
    if (!parsed.write_patch_dir.empty()) return start_patch_writer(vm, parsed.write_patch_dir, in_onload);
    uint64_t base = 0, size = 0;
    if (!in_onload) find_mapped_region(&base, &size);
    {
        std::lock_guard<std::mutex> lock(g_init_mutex);
        if (!g_init_done) {  // a second load keeps the first one's choices
            g_rt.paper_release = parsed.paper_release;
            g_rt.otep_jvmti = parsed.otep_jvmti;
        }
    }
    int32_t result = initialize(vm, parsed.features, base, size, parsed.capacity, in_onload);
    if (result != VTSCOPE_OK) {
        std::fprintf(stderr, "%s\n", g_error);
        return JNI_ERR;
    }
    return JNI_OK;
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
    return load_agent(vm, options, true);
}

// Loaded into a running JVM (jcmd PID JVMTI.agent_load /path/libvtscope.so otep, or the attach
// API's loadAgentPath): the same options as -agentpath; initialised at once, in the live phase
// (JNI works: the attach listener is a Java thread), with the record region the process already
// maps, if any.
__attribute__((visibility("default"))) jint Agent_OnAttach(JavaVM* vm, char* options, void*) {
    return load_agent(vm, options, false);
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
    return register_current_thread(out);
}

__attribute__((visibility("default"))) int32_t vtscope_vtt_unregister(vtscope_vtt_block* block) {
    if (!(vtscope_native_features() & VTSCOPE_FEATURE_VTT)) return VTSCOPE_ERR_NOT_INITIALIZED;
    return unregister_current_thread(block);
}

__attribute__((visibility("default"))) int64_t vtscope_vtt_live_blocks(void) { return live_blocks(); }

}  // extern "C"
