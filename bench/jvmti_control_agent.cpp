// SPDX-License-Identifier: Apache-2.0
// A control for the benchmark matrix (configuration "jvmti"), not part of vtscope: a JVMTI agent
// that holds can_support_virtual_threads and enables VirtualThreadStart/End with empty callbacks,
// the paper's "Agent" variant without its allocation. It shows what a JVM pays for running a
// virtual-thread-aware JVMTI agent at all, the reference against which libvtscope's own callbacks
// are judged ("over a JVM that already runs a JVMTI agent").
#include <jni.h>
#include <jvmti.h>

#include <cstdio>

namespace {
void JNICALL on_start(jvmtiEnv*, JNIEnv*, jthread) {}
void JNICALL on_end(jvmtiEnv*, JNIEnv*, jthread) {}
}  // namespace

extern "C" __attribute__((visibility("default"))) jint Agent_OnLoad(JavaVM* vm, char*, void*) {
    jvmtiEnv* jvmti = nullptr;
    if (vm->GetEnv(reinterpret_cast<void**>(&jvmti), JVMTI_VERSION_21) != JNI_OK || !jvmti) {
        std::fprintf(stderr, "vtscope-bench-agent: no JVMTI 21 environment\n");
        return JNI_ERR;
    }
    jvmtiCapabilities caps{};
    caps.can_support_virtual_threads = 1;
    jvmtiEventCallbacks callbacks{};
    callbacks.VirtualThreadStart = on_start;
    callbacks.VirtualThreadEnd = on_end;
    if (jvmti->AddCapabilities(&caps) != JVMTI_ERROR_NONE ||
        jvmti->SetEventCallbacks(&callbacks, sizeof(callbacks)) != JVMTI_ERROR_NONE ||
        jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_VIRTUAL_THREAD_START, nullptr) != JVMTI_ERROR_NONE ||
        jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_VIRTUAL_THREAD_END, nullptr) != JVMTI_ERROR_NONE) {
        std::fprintf(stderr, "vtscope-bench-agent: JVMTI set-up failed\n");
        return JNI_ERR;
    }
    return JNI_OK;
}
