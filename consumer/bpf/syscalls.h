/* SPDX-License-Identifier: GPL-2.0-only OR Apache-2.0 */
/*
 * The syscall event source (syscalls.bpf.c) and its user side: the event streamed per syscall
 * entry (vtscope trace) and the key and value it is counted under in the kernel (vtscope stat).
 */
#ifndef VTSCOPE_SYSCALLS_H
#define VTSCOPE_SYSCALLS_H

#include "attribution.h"

/* Events per ring-buffer record: staged per CPU, written together (syscalls.bpf.c). */
#define VTSCOPE_SYSCALL_BATCH 64 /* a power of two (the staging index is masked) */

/* One syscall entry (vtscope trace); a ring-buffer record holds 1 to VTSCOPE_SYSCALL_BATCH of them. */
struct vtscope_syscall_event {
	__u64 ts_ns; /* bpf_ktime_get_ns (CLOCK_MONOTONIC) */
	__u32 pid;   /* tgid */
	__u32 tid;   /* kernel tid */
	struct vtscope_attribution attribution;
	__u32 syscall_index; /* index into the user's --syscalls list (attach cookie) */
	__u32 nargs;	     /* how many of args the syscall has (at most 3 are taken) */
	__u64 args[3];	     /* first syscall arguments, 0 past nargs */
};

/*
 * Key of the "stats" maps (vtscope stat): what one syscall entry is counted under. Only what the
 * per-trace report needs, so that keys stay few: for a status other than ok, java_id, trace_id
 * and mounted_virtual are 0 (the report counts those events per status only).
 */
struct vtscope_stat_key {
	__s64 java_id;
	__u8 trace_id[16];
	__u32 syscall_index;
	__u8 status;
	__u8 mounted_virtual;
	__u8 pad[2];
};

/* Value of the "stats" maps, shared by all CPUs (atomic adds). */
struct vtscope_stat_value {
	__u64 calls;
	__u64 arg2_sum; /* sum of the third argument: bytes requested by read/write-like calls */
};

#ifdef __cplusplus
static_assert(sizeof(struct vtscope_syscall_event) == 88, "event layout shared with BPF");
static_assert(sizeof(struct vtscope_stat_key) == 32, "map key layout shared with BPF");
static_assert(sizeof(struct vtscope_stat_value) == 16, "map value layout shared with BPF");
#endif

#endif /* VTSCOPE_SYSCALLS_H */
