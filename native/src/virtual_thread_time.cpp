// SPDX-License-Identifier: Apache-2.0
#include "virtual_thread_time.h"

#include <jni.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "event_demand.h"
#include "runtime.h"

namespace vtscope::native {

namespace {
std::atomic<int64_t> g_live_blocks{0};
}  // namespace

void free_block(jvmtiEnv* jvmti, vtscope_vtt_block* block) {
    jvmti->SetThreadLocalStorage(nullptr, nullptr);
    std::free(block);
    g_live_blocks.fetch_sub(1, std::memory_order_relaxed);
}

int32_t register_current_thread(vtscope_vtt_block** out) {
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
    } else if (!demand_vtt_events()) {
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

int32_t unregister_current_thread(vtscope_vtt_block* block) {
    if (!block || current_block(g_rt.jvmti) != block) return VTSCOPE_ERR_NOT_OWNER;
    free_block(g_rt.jvmti, block);
    return VTSCOPE_OK;
}

int64_t live_blocks() { return g_live_blocks.load(std::memory_order_relaxed); }

}  // namespace vtscope::native
