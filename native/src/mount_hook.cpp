// SPDX-License-Identifier: Apache-2.0
#include "mount_hook.h"

#include <atomic>
#include <cstdio>
#include <cstring>

#include "event_demand.h"
#include "lifecycle.h"
#include "mount_hook_classes.h"  // generated: the class files of hook/io/vtscope/otep (CMakeLists.txt)
#include "otel_ctx.h"
#include "runtime.h"

namespace vtscope::native {

namespace {

std::atomic<bool> g_installed{false};
// Set from install_mount_hook's RetransformClasses on: the ClassFileLoadHook rewrites every
// (re)definition of VirtualThread from then on.
std::atomic<bool> g_hooking{false};
// A java.base patched by this library runs the calls itself (java_base_patch.h); they resolve to
// the exported natives below, and PatchLink asks linked() whether they may be made.
std::atomic<bool> g_patch_live{false};
jclass g_transformer = nullptr;          // global ref, kept
jmethodID g_transform = nullptr;         // VirtualThreadTransformer.transform([B)[B
std::atomic<bool> g_transformed{false};  // the hook handed back rewritten bytes
const char* g_transform_error = nullptr;

// ---- MountHook's natives: called from VirtualThread's mount, unmount, run and afterDone (see
// VirtualThreadTransformer); no allocation, no locks, no JNI call, nothing thrown ----

// No claim here: the Java writer claims a virtual thread's record at its first publication and
// points the carrier's thread-local at it then (RecordRegion.claim, vtscope_thread_context_attach),
// so a thread that never publishes costs neither a claim nor a release, and mounts with a null
// thread-local (OTEP 4947 readers: no context, which it has none of).
void JNICALL hook_mounted(JNIEnv*, jclass, jlong tid) { set_thread_context(g_rt.table.find(tid)); }

void JNICALL hook_unmounted(JNIEnv*, jclass) { set_thread_context(0); }

void JNICALL hook_terminated(JNIEnv*, jclass, jlong tid) { release_record(tid); }

// JNI DefineClass in the boot loader (null loader); null with a pending exception cleared.
jclass define_boot_class(JNIEnv* jni, const char* name, const unsigned char* bytes, size_t size) {
    jclass defined = jni->DefineClass(name, nullptr, reinterpret_cast<const jbyte*>(bytes), static_cast<jsize>(size));
    if (!defined) jni->ExceptionClear();
    return defined;
}

bool fail(std::string* error, const char* message) {
    *error = message;
    return false;
}

}  // namespace

void set_java_base_patch_live() { g_patch_live.store(true, std::memory_order_release); }

bool write_java_base_patch(JNIEnv* jni, const std::string& dir, std::string* error) {
    jclass transformer =
        define_boot_class(jni, "io/vtscope/otep/VirtualThreadTransformer", hook_classes::kVirtualThreadTransformer,
                          sizeof(hook_classes::kVirtualThreadTransformer));
    if (!transformer) return fail(error, "cannot define io.vtscope.otep.VirtualThreadTransformer in the boot loader");
    jmethodID write = jni->GetStaticMethodID(transformer, "writePatch", "(Ljava/lang/String;[B[B)Ljava/lang/String;");
    if (!write) {
        jni->ExceptionClear();
        return fail(error, "io.vtscope.otep.VirtualThreadTransformer has no writePatch");
    }
    auto bytes = [jni](const unsigned char* data, size_t size) {
        jbyteArray array = jni->NewByteArray(static_cast<jsize>(size));
        if (array) jni->SetByteArrayRegion(array, 0, static_cast<jsize>(size), reinterpret_cast<const jbyte*>(data));
        return array;
    };
    jstring path = jni->NewStringUTF(dir.c_str());
    jbyteArray mount_hook = bytes(hook_classes::kMountHook, sizeof(hook_classes::kMountHook));
    jbyteArray patch_link = bytes(hook_classes::kPatchLink, sizeof(hook_classes::kPatchLink));
    if (!path || !mount_hook || !patch_link) {
        jni->ExceptionClear();
        return fail(error, "no memory for the patch's class files");
    }
    auto why = static_cast<jstring>(jni->CallStaticObjectMethod(transformer, write, path, mount_hook, patch_link));
    if (jni->ExceptionCheck()) {
        jni->ExceptionClear();
        return fail(error, "writing the patch threw");
    }
    if (why) {
        const char* chars = jni->GetStringUTFChars(why, nullptr);
        *error = chars ? chars : "writing the patch failed";
        if (chars) jni->ReleaseStringUTFChars(why, chars);
        return false;
    }
    return true;
}

bool install_mount_hook(jvmtiEnv* jvmti, JNIEnv* jni, std::string* error) {
    // 1. The classes, in the boot loader: VirtualThread's loader must resolve MountHook by name.
    jclass hook =
        define_boot_class(jni, "io/vtscope/otep/MountHook", hook_classes::kMountHook, sizeof(hook_classes::kMountHook));
    if (!hook) return fail(error, "cannot define io.vtscope.otep.MountHook in the boot loader");
    jclass transformer =
        define_boot_class(jni, "io/vtscope/otep/VirtualThreadTransformer", hook_classes::kVirtualThreadTransformer,
                          sizeof(hook_classes::kVirtualThreadTransformer));
    if (!transformer) return fail(error, "cannot define io.vtscope.otep.VirtualThreadTransformer in the boot loader");

    // 2. Natives bound and the class initialised (GetStaticMethodID initialises it; it has no
    // static initialiser) before any VirtualThread code can call it, so the injected
    // invokestatic neither looks up a native nor initialises a class.
    JNINativeMethod natives[] = {
        {const_cast<char*>("mounted"), const_cast<char*>("(J)V"), reinterpret_cast<void*>(hook_mounted)},
        {const_cast<char*>("unmounted"), const_cast<char*>("()V"), reinterpret_cast<void*>(hook_unmounted)},
        {const_cast<char*>("terminated"), const_cast<char*>("(J)V"), reinterpret_cast<void*>(hook_terminated)},
    };
    if (jni->RegisterNatives(hook, natives, sizeof(natives) / sizeof(natives[0])) != JNI_OK) {
        jni->ExceptionClear();
        return fail(error, "RegisterNatives on io.vtscope.otep.MountHook failed");
    }
    if (!jni->GetStaticMethodID(hook, "mounted", "(J)V")) {
        jni->ExceptionClear();
        return fail(error, "io.vtscope.otep.MountHook cannot be initialised");
    }
    g_transform = jni->GetStaticMethodID(transformer, "transform", "([B)[B");
    if (!g_transform) {
        jni->ExceptionClear();
        return fail(error, "io.vtscope.otep.VirtualThreadTransformer has no transform([B)[B");
    }

    // 3. java.base must read the boot loader's unnamed module, or resolving MountHook from
    // VirtualThread fails its access check (a named module reads no unnamed module by default).
    jclass virtual_thread = jni->FindClass("java/lang/VirtualThread");
    if (!virtual_thread) {
        jni->ExceptionClear();
        return fail(error, "no java.lang.VirtualThread");
    }
    jobject java_base = jni->GetModule(virtual_thread);
    jobject hook_module = jni->GetModule(hook);
    if (!java_base || !hook_module || jvmti->AddModuleReads(java_base, hook_module) != JVMTI_ERROR_NONE)
        return fail(error, "java.base cannot be made to read the hook's module (JVMTI AddModuleReads)");

    // 4. Retransform VirtualThread through on_class_file_load. can_retransform_classes and the
    // ClassFileLoadHook stay on for good: a later RetransformClasses or RedefineClasses of
    // VirtualThread by another agent starts again from the original bytes, and without this
    // hook taking part it would silently drop the calls, leaving the last mounted thread's
    // record in a carrier's thread-local (a reader would give the carrier's events to it).
    jvmtiCapabilities caps{};
    caps.can_retransform_classes = 1;
    if (jvmti->AddCapabilities(&caps) != JVMTI_ERROR_NONE)
        return fail(error, "the JVM does not grant can_retransform_classes");
    g_transformer = static_cast<jclass>(jni->NewGlobalRef(transformer));
    if (!g_transformer || !set_event(JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, true))
        return fail(error, "the ClassFileLoadHook cannot be enabled");
    g_hooking.store(true);
    jvmtiError retransformed = jvmti->RetransformClasses(1, &virtual_thread);
    if (jni->ExceptionCheck()) jni->ExceptionClear();
    if (!g_transformed.load() || retransformed != JVMTI_ERROR_NONE) {
        g_hooking.store(false);
        set_event(JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, false);
        jvmti->RelinquishCapabilities(&caps);
        if (!g_transformed.load())
            return fail(error, g_transform_error ? g_transform_error : "VirtualThread was not rewritten");
        return fail(error, "RetransformClasses(java.lang.VirtualThread) failed");
    }
    g_installed.store(true, std::memory_order_release);
    return true;
}

void JNICALL on_class_file_load(jvmtiEnv* jvmti, JNIEnv* jni, jclass class_being_redefined, jobject loader,
                                const char* name, jobject, jint class_data_len, const unsigned char* class_data,
                                jint* new_class_data_len, unsigned char** new_class_data) {
    if (!g_hooking.load() || !class_being_redefined || loader || !name ||
        std::strcmp(name, "java/lang/VirtualThread") != 0)
        return;
    jbyteArray input = jni->NewByteArray(class_data_len);
    if (!input) {
        jni->ExceptionClear();
        g_transform_error = "no memory for VirtualThread's class file";
        return;
    }
    jni->SetByteArrayRegion(input, 0, class_data_len, reinterpret_cast<const jbyte*>(class_data));
    auto output = static_cast<jbyteArray>(jni->CallStaticObjectMethod(g_transformer, g_transform, input));
    jni->DeleteLocalRef(input);
    if (jni->ExceptionCheck() || !output) {
        jni->ExceptionClear();
        g_transform_error = "VirtualThread does not have the shape the hook rewrites (mount, unmount, run, afterDone)";
        // Another agent's redefinition after installation: nothing can reach the carriers'
        // thread-locals now, so at least say so.
        if (g_installed.load())
            std::fprintf(stderr,
                         "vtscope: otep: java.lang.VirtualThread was redefined into a shape the mount hook "
                         "cannot rewrite; otel_thread_ctx_v1 may be stale from now on\n");
        return;
    }
    jsize size = jni->GetArrayLength(output);
    unsigned char* bytes = nullptr;
    if (jvmti->Allocate(size, &bytes) != JVMTI_ERROR_NONE) {
        g_transform_error = "JVMTI Allocate failed";
        return;
    }
    jni->GetByteArrayRegion(output, 0, size, reinterpret_cast<jbyte*>(bytes));
    jni->DeleteLocalRef(output);
    *new_class_data_len = size;
    *new_class_data = bytes;
    g_transformed.store(true);
}

}  // namespace vtscope::native

// MountHook's natives by name, for a java.base patched by this library (java_base_patch.h): the
// JVM looks a boot class's unregistered native up in the agent libraries too (NativeLookup::
// lookup_style, src/hotspot/share/prims/nativeLookup.cpp), so the patched VirtualThread reaches
// these with no JVMTI environment and no RegisterNatives. Each is only called under
// PatchLink.LIVE, which linked() decides once; on the JVMTI route RegisterNatives binds the same
// functions and linked() is never called.
using namespace vtscope::native;

extern "C" {

__attribute__((visibility("default"))) jboolean JNICALL Java_io_vtscope_otep_MountHook_linked(JNIEnv*, jclass) {
    return g_patch_live.load(std::memory_order_acquire) ? JNI_TRUE : JNI_FALSE;
}

__attribute__((visibility("default"))) void JNICALL Java_io_vtscope_otep_MountHook_mounted(JNIEnv* jni, jclass hook,
                                                                                           jlong tid) {
    hook_mounted(jni, hook, tid);
}

__attribute__((visibility("default"))) void JNICALL Java_io_vtscope_otep_MountHook_unmounted(JNIEnv* jni, jclass hook) {
    hook_unmounted(jni, hook);
}

__attribute__((visibility("default"))) void JNICALL Java_io_vtscope_otep_MountHook_terminated(JNIEnv* jni, jclass hook,
                                                                                              jlong tid) {
    hook_terminated(jni, hook, tid);
}

}  // extern "C"
