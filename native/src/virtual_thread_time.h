// SPDX-License-Identifier: Apache-2.0
// Virtual Thread Time: the mounted time and mount counts of each registered virtual thread, in
// a block (vtscope_native.h) that the thread's JVMTI thread-local storage points at. The
// mount/unmount hooks are inline because they run inside every transition's callback.
#pragma once

#include <jvmti.h>
#include <time.h>

#include <cstdint>

#include "vtscope_native.h"

#pragma GCC visibility push(hidden)

namespace vtscope::native {

inline uint64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);  // the clock of System.nanoTime() on Linux
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// The calling thread's block, or null. Called from the callbacks, which run on the virtual thread
// itself, so the storage is the virtual thread's (see agent.cpp).
inline vtscope_vtt_block* current_block(jvmtiEnv* jvmti) {
    void* data = nullptr;
    if (jvmti->GetThreadLocalStorage(nullptr, &data) != JVMTI_ERROR_NONE) return nullptr;
    return static_cast<vtscope_vtt_block*>(data);
}

inline void vtt_on_mount(jvmtiEnv* jvmti) {
    if (vtscope_vtt_block* block = current_block(jvmti)) {
        block->mount_start_ns = now_ns();
        block->mounts++;
    }
}

inline void vtt_on_unmount(jvmtiEnv* jvmti) {
    if (vtscope_vtt_block* block = current_block(jvmti)) {
        block->mounted_ns += now_ns() - block->mount_start_ns;
        block->unmounts++;
    }
}

// Clears the calling thread's storage and frees its block.
void free_block(jvmtiEnv* jvmti, vtscope_vtt_block* block);

// From the VirtualThreadEnd callback: frees the ending thread's block, if it registered.
inline void vtt_on_end(jvmtiEnv* jvmti) {
    if (vtscope_vtt_block* block = current_block(jvmti)) free_block(jvmti, block);
}

// vtscope_vtt_register and vtscope_vtt_unregister once the feature is known to be on.
int32_t register_current_thread(vtscope_vtt_block** out);
int32_t unregister_current_thread(vtscope_vtt_block* block);

int64_t live_blocks();

}  // namespace vtscope::native

#pragma GCC visibility pop
