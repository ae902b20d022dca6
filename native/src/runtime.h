// SPDX-License-Identifier: Apache-2.0
// What the parts of libvtscope.so share: the JVM handles and the features chosen at
// initialisation. The JVM boundary (agent.cpp) writes it once, under its init mutex, before any
// event is enabled; everything else only reads it, so no callback needs a lock.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <cstdint>

#include "record_table.h"
#include "vtscope_native.h"

#pragma GCC visibility push(hidden)  // also for the extern declarations: PC-relative, no GOT

namespace vtscope::native {

struct Runtime {
    JavaVM* vm = nullptr;
    jvmtiEnv* jvmti = nullptr;
    jfieldID tid_field = nullptr;
    uint32_t features = 0;
    bool paper_release = false;       // AgentOptions::paper_release
    bool otep_jvmti = false;          // AgentOptions::otep_jvmti
    bool otep_events = false;         // OTEP runs on the JVMTI events (not the mount hook), for good
    bool count_start_claims = false;  // the probe watcher may switch VirtualThreadEnd off
    bool on_java_base_patch = false;  // OTEP's calls come from a patched java.base (java_base_patch.h)
    RecordTable table;
};

extern Runtime g_rt;

// Thread.threadId(): the private final long tid of java.lang.Thread (Thread.java).
inline int64_t thread_id(JNIEnv* jni, jthread thread) { return jni->GetLongField(thread, g_rt.tid_field); }

// The features that keep a record per virtual thread (claimed at start, released at end).
inline bool wants_records() { return (g_rt.features & (VTSCOPE_FEATURE_PROBES | VTSCOPE_FEATURE_OTEP)) != 0; }

}  // namespace vtscope::native

#pragma GCC visibility pop
