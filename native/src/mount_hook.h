// SPDX-License-Identifier: Apache-2.0
// The cheaper way to keep otel_thread_ctx_v1 current (OTEP feature): calls injected into
// java.lang.VirtualThread's mount path instead of the JVMTI mount/unmount events.
//
// The JVMTI path needs can_support_virtual_threads, and that capability alone turns on HotSpot's
// notifying transition path for every mount and unmount (JDK 25 JvmtiVTMSTransitionDisabler:
// VirtualThread.notifyJvmtiMount/Unmount leave their intrinsic fast path once
// set_VTMS_notify_jvmti_events(true) ran), before any event is posted (bench/RESULTS.md:
// `vtt`, the capability alone, +63 ns per transition; `otep`, with the events, +121 ns). The hook
// needs neither: libvtscope.so defines two classes it carries (hook/io/vtscope/otep, compiled at
// build time and embedded) in the boot loader, binds MountHook's natives, lets java.base read
// their module, and retransforms VirtualThread through its ClassFileLoadHook, which hands the
// class file to VirtualThreadTransformer (the JDK's java.lang.classfile API). From then on:
//   mount() end: the thread's record, if it has one, is the thread-local;
//   unmount() start: the thread-local is cleared;
//   afterDone(boolean) start: the record, if any, is released (the JVMTI path's VirtualThreadEnd).
// Unlike the JVMTI path, nothing claims a record at the thread's start: the Java writer claims it
// at the thread's first publication and points the carrier's thread-local at it (RecordRegion),
// so threads that never publish a context pay no claim and no release.
// The same calls can also come from a java.base this library patched (java_base_patch.h), which
// needs no JVMTI environment at all; MountHook's natives are then found by their exported names.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <string>

#pragma GCC visibility push(hidden)

namespace vtscope::native {

// Installs the hook; JNI must be usable (VMInit on, live phase). False with *error when it
// cannot be installed, and then nothing of it is active: the caller falls back to the JVMTI
// events. Takes can_retransform_classes and needs the ClassFileLoadHook callback below in the
// environment's callbacks. Called at most once per process.
bool install_mount_hook(jvmtiEnv* jvmti, JNIEnv* jni, std::string* error);

// A java.base patched by this library (java_base_patch.h) may call into it from now on:
// MountHook.linked() answers true, so PatchLink.LIVE is true once VirtualThread initialises.
// Called once, at the end of a successful initialisation with OTEP on the patch.
void set_java_base_patch_live();

// write-patch=DIR: VirtualThreadTransformer.writePatch (defined in the boot loader) writes the
// patched java.base and its stamp into dir. JNI must be usable (VMInit). False with *error.
bool write_java_base_patch(JNIEnv* jni, const std::string& dir, std::string* error);

// The environment's ClassFileLoadHook (enabled by install_mount_hook, for good): rewrites every
// redefinition of java/lang/VirtualThread, install_mount_hook's and any other agent's later
// ones; every other class load returns at once.
void JNICALL on_class_file_load(jvmtiEnv* jvmti, JNIEnv* jni, jclass class_being_redefined, jobject loader,
                                const char* name, jobject protection_domain, jint class_data_len,
                                const unsigned char* class_data, jint* new_class_data_len,
                                unsigned char** new_class_data);

}  // namespace vtscope::native

#pragma GCC visibility pop
