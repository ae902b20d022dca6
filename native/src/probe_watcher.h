// SPDX-License-Identifier: Apache-2.0
// The probe watcher: a thread that follows the lifecycle probes' semaphores and switches the
// virtual-thread events on while a tracer is attached (event_demand.h). Nothing else tells the
// library that a tracer came or went.
#pragma once

#pragma GCC visibility push(hidden)

namespace vtscope::native {

// The watcher runs when the probes are on, unless OTEP runs on the JVMTI events, which it then
// keeps on for good (with the mount hook, OTEP needs no event).
bool needs_probe_watcher();

// Keeps the library mapped for the watcher, which runs its code forever, even if a class
// loader's SymbolLookup arena is closed (dlclose).
void pin_library();

// Starts the detached watcher thread (reports on stderr if it cannot).
void start_probe_watcher();

// VMDeath was posted: the watcher stops at its next poll.
void stop_probe_watcher();

}  // namespace vtscope::native

#pragma GCC visibility pop
