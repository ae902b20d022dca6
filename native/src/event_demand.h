// SPDX-License-Identifier: Apache-2.0
// The event-demand state machine: which virtual-thread JVMTI events are enabled, and why.
//
// Enabled mount/unmount events are the whole per-transition cost (bench/RESULTS.md: HotSpot's
// JvmtiExport::post_vthread_mount/unmount, a JNI handle and a native transition per event), and
// posting them creates a JvmtiThreadState (~280 bytes) per virtual thread. Enabling is JVM-wide;
// per-thread enabling is globally synchronised in JDK 25 and collapses throughput
// (../shared/seeds/001_*), so events are switched JVM-wide, and rarely. They are on only while
// something needs them: OTEP always; Virtual Thread Time from the first registration on; the
// lifecycle probes while a tracer holds their semaphores (probe_watcher.cpp polls them).
//
// Switching takes a mutex (never on a callback path); callbacks read only the atomics below.
#pragma once

#include <jvmti.h>

#include <atomic>
#include <cstdint>

#pragma GCC visibility push(hidden)  // also for the extern declarations: PC-relative, no GOT

namespace vtscope::native {

// Read by the VirtualThreadStart callback: claim records at start. Set only once
// VirtualThreadEnd is enabled and cleared before VirtualThreadStart is disabled, so a start
// callback that sees it (however late it runs) always has its end seen too.
extern std::atomic<bool> g_record_demand;
// Slots claimed at VirtualThreadStart and not yet released at VirtualThreadEnd: while any is
// left, VirtualThreadEnd stays enabled, so no claimed slot outlives its thread.
extern std::atomic<int64_t> g_start_claims;

// Enables or disables one event JVM-wide; false if JVMTI refused.
bool set_event(jvmtiEvent event, bool enable);

// The indexes of the mount/unmount extension events (they differ between builds), found by id
// at initialisation, before any demand is applied.
void set_mount_event_indexes(jint mount_index, jint unmount_index);

// Whether records (and the start, mount, unmount and end events) are wanted: by OTEP for good
// from initialisation on, or by the probe watcher while a tracer is attached. Applies the
// demand; false if JVMTI refused a change.
bool set_records_wanted(bool wanted);
bool records_wanted();

// Whether the probe watcher, which sees a tracer attached or not, has events to switch: the
// demand differs, a failed switch-on waits for a retry, or VirtualThreadEnd outlives the demand
// until the start claims are released.
bool probe_events_switch_pending(bool tracer_attached);

// The first Virtual Thread Time registration switches the mount, unmount and end events on,
// JVM-wide and for good; later calls return at once. False if JVMTI refused.
bool demand_vtt_events();

// Initialisation failed after the events were touched: switch every virtual-thread event off
// and forget the demand, leaving nothing half-enabled (a start event without its end would claim
// slots forever).
void abandon_event_demand();

}  // namespace vtscope::native

#pragma GCC visibility pop
