// SPDX-License-Identifier: Apache-2.0
// The record of each virtual thread over its life, for the lifecycle probes (probes.h) and OTEP:
// claimed at VirtualThreadStart so a caching reader knows its address from the first mount on,
// released at VirtualThreadEnd after vthread__end has fired.
#pragma once

#include <jvmti.h>  // jthread

#include <cstdint>

#pragma GCC visibility push(hidden)

namespace vtscope::native {

// From the VirtualThreadStart callback, on the new virtual thread: claims its record while the
// demand wants records and fires vthread__start. No allocation, no locks.
void claim_record_at_start(JNIEnv* jni, jthread vthread);

// From the VirtualThreadEnd callback, on the ending virtual thread: fires vthread__end, then
// releases its record. No allocation, no locks.
void release_record_at_end(JNIEnv* jni, jthread vthread);

// Releases virtual thread vid's record, if it holds one (keeping the start-claim count right).
// Shared by VirtualThreadEnd and the mount hook's afterDone (mount_hook.h). No allocation, no locks.
void release_record(int64_t vid);

// Whether a tracer holds any of the probe semaphores (which the kernel increments when it
// attaches a uprobe with a reference counter, and decrements when it detaches).
bool probe_tracer_attached();

}  // namespace vtscope::native

#pragma GCC visibility pop
