/* SPDX-License-Identifier: GPL-2.0-only OR Apache-2.0 */
/*
 * The block event source (block.bpf.c) and its user side (src/block_source.cpp): an interval
 * during which a thread of the target was off-CPU, opened when it switched out with a virtual
 * thread mounted and closed when it switched in again.
 */
#ifndef VTSCOPE_BLOCK_H
#define VTSCOPE_BLOCK_H

#include "attribution.h"

/* Why the task was off-CPU (JSON "block_reason"). */
enum vtscope_block_reason {
	VTSCOPE_BLOCK_SYSCALL = 0,   /* it slept inside a syscall (named by syscall_nr) */
	VTSCOPE_BLOCK_PREEMPTED = 1, /* it was still runnable: run-queue wait, not blocking */
	VTSCOPE_BLOCK_OTHER = 2,     /* it slept outside a syscall (a page fault, ...) */
	VTSCOPE_BLOCK_REASON_COUNT = 3,
};

/*
 * The "block_anomalies" counters, read by the summary. Some kernels switch to a task without
 * firing sched_switch: on this project's Firecracker guests (6.18), no switch away from the guest
 * agent's threads is traced, by ftrace or by BPF. Such a switch-in is found later from the kernel's
 * own per-task scheduling statistics (struct vtscope_block_task).
 */
enum vtscope_block_anomaly {
	VTSCOPE_BLOCK_SWITCH_IN_UNSEEN = 0, /* its interval closed at the arrival the kernel recorded */
	VTSCOPE_BLOCK_END_UNKNOWN = 1,	    /* more than one arrival unseen: the interval is dropped */
	VTSCOPE_BLOCK_ANOMALY_COUNT = 2,
};

/* An open interval (the "open_intervals" map, keyed by tid) and a closed one (the ring buffer). */
struct vtscope_block_event {
	__u64 ts_ns;				/* switch-out, bpf_ktime_get_ns (CLOCK_MONOTONIC) */
	__u64 duration_ns;			/* switch-in - switch-out; 0 while the interval is open */
	__u32 pid;				/* tgid */
	__u32 tid;				/* kernel tid of the carrier (or platform thread) */
	struct vtscope_attribution attribution; /* resolved on the task at switch-out */
	__s32 syscall_nr;			/* x86_64 syscall number the task slept in, -1 when none */
	__u32 prev_state;			/* the task's state at switch-out (sched_switch's prev_state) */
	__u8 block_reason;			/* enum vtscope_block_reason */
	__u8 pad[7];
};

/*
 * What intervals shorter than the threshold are summed under, in the kernel. For a status other
 * than ok, trace_id is 0; java_id stays (the summary counts per virtual thread).
 */
struct vtscope_block_key {
	__s64 java_id;
	__u8 trace_id[16];
	__s32 syscall_nr;
	__u8 status;
	__u8 block_reason;
	__u8 mounted_virtual;
	__u8 pad;
};

struct vtscope_block_value {
	__u64 count;
	__u64 total_ns;
};

/*
 * A ring-buffer record of short intervals: value.count intervals of value.total_ns in all, summed
 * in a task's entry while their key stayed (vtscope_block_task). The ring buffer carries three
 * record types, told apart by size: this one, vtscope_block_event and vtscope_block_record.
 */
struct vtscope_block_summary {
	struct vtscope_block_key key;
	struct vtscope_block_value value;
};

/* Deepest stack kept per interval with --stacks (the kernel's default perf_event_max_stack). */
#define VTSCOPE_BLOCK_STACK_DEPTH 127

/*
 * The stacks of a task at its switch-out (--stacks; the "open_stacks" map, keyed by tid, and the
 * tail of a reported interval's ring-buffer record), leaf first. Each *_bytes is what
 * bpf_get_stack returned: the bytes written (8 per frame), or a negative errno (-ENOENT: no stack
 * was taken for this interval).
 */
struct vtscope_block_stacks {
	__s32 user_bytes;
	__s32 kernel_bytes;
	__u64 user[VTSCOPE_BLOCK_STACK_DEPTH];
	__u64 kernel[VTSCOPE_BLOCK_STACK_DEPTH];
};

/* A reported interval's ring-buffer record with --stacks (without: the event alone). */
struct vtscope_block_record {
	struct vtscope_block_event event;
	struct vtscope_block_stacks stacks;
};

/*
 * A task's entry of the "open_intervals" map: its interval (open while interval.ts_ns != 0) and
 * the intervals shorter than the threshold it closed since, all with one key (consecutive short
 * intervals of a carrier usually have one: the same thread blocking the same way), summed here
 * and handed to user space (a vtscope_block_summary) only when the key changes, when the task
 * exits and (read by user space, after the detach) at the end.
 */
struct vtscope_block_task {
	struct vtscope_block_event interval;
	struct vtscope_block_key pending_key;
	struct vtscope_block_value pending; /* pending.count 0: nothing pending */
	/* At the switch-out that opened the interval: the task's sched_info.pcount (the kernel's count
	 * of its arrivals on a CPU, /proc/TID/schedstat's third field) and its CPU's rq clock (the
	 * clock of sched_info.last_arrival). A switch-in the program did not see shows as a larger
	 * pcount, and its time as last_arrival (block.bpf.c, closing an interval late). */
	__u64 out_runs;
	__u64 out_sched_clock_ns;
};

#ifdef __cplusplus
static_assert(sizeof(struct vtscope_block_task) == 144, "map value layout shared with BPF");
static_assert(sizeof(struct vtscope_block_event) == 80, "event layout shared with BPF");
static_assert(sizeof(struct vtscope_block_key) == 32, "map key layout shared with BPF");
static_assert(sizeof(struct vtscope_block_value) == 16, "map value layout shared with BPF");
static_assert(sizeof(struct vtscope_block_summary) == 48, "record layout shared with BPF");
static_assert(sizeof(struct vtscope_block_summary) != sizeof(struct vtscope_block_event) &&
		      sizeof(struct vtscope_block_summary) != sizeof(struct vtscope_block_record),
	      "ring-buffer records are told apart by size");
static_assert(sizeof(struct vtscope_block_stacks) == 8 + 2 * 8 * VTSCOPE_BLOCK_STACK_DEPTH, "shared with BPF");
static_assert(sizeof(struct vtscope_block_record) == 80 + sizeof(struct vtscope_block_stacks), "shared with BPF");
#endif

#endif /* VTSCOPE_BLOCK_H */
