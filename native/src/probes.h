// SPDX-License-Identifier: Apache-2.0
// USDT lifecycle probes, provider "vtscope" (the paper's four-probe protocol, Appendix B shape):
//   vthread__start(vid, record)   a virtual thread starts (JDK 25 then posts its first mount)
//   vthread__end(vid)             a virtual thread ends; its record stays valid until after this
//   vthread__mount(vid, record)   a virtual thread is mounted on the current carrier
//   vthread__unmount(vid)         it is unmounted from the current carrier
// vid is Thread.threadId(); record the address of its OTEP 4947 record in the region, or 0.
//
// The probes use USDT semaphores: a tracer that attaches increments the semaphore, and the
// arguments (a JNI field read, a table lookup) are computed only while one is attached. Unlike
// HotSpot's own build (the paper, section 6.2), our library defines the semaphore variables.
#pragma once

#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

// Defined in lifecycle.cpp; hidden here too, so every callback reads them PC-relative (no GOT).
extern "C" {
#pragma GCC visibility push(hidden)
extern unsigned short vtscope_vthread__start_semaphore;
extern unsigned short vtscope_vthread__end_semaphore;
extern unsigned short vtscope_vthread__mount_semaphore;
extern unsigned short vtscope_vthread__unmount_semaphore;
#pragma GCC visibility pop
}

#define VTSCOPE_PROBE_ENABLED(name) __builtin_expect(vtscope_##name##_semaphore != 0, 0)
