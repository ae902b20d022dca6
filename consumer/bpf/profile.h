/* SPDX-License-Identifier: GPL-2.0-only OR Apache-2.0 */
/*
 * The CPU-sample event source (profile.bpf.c) and its user side (vtscope profile): the key a
 * sample is counted under in the kernel and the count it adds to.
 */
#ifndef VTSCOPE_PROFILE_H
#define VTSCOPE_PROFILE_H

#include "attribution.h"

/*
 * Key of the "samples" maps: one sample of a task of the target, attributed by the core. The
 * kernel tid names the OS thread (the report names non-virtual threads by it); java_id, the
 * trace and span ids are what the core resolved (zero when it resolved nothing). The stack ids
 * index the stack map of the key's generation, "stacks0" or "stacks1" (negative: no stack, an
 * errno from bpf_get_stackid, or VTSCOPE_PROFILE_NO_STACK).
 */
struct vtscope_profile_key {
	__s64 java_id;
	__u8 trace_id[16];
	__u8 span_id[8];
	__u32 tid;
	__s32 user_stack_id;
	__s32 kernel_stack_id;
	__u8 status;
	__u8 reason;
	__u8 mounted_virtual;
	__u8 generation; /* which stack map the ids index (the count table's generation bit) */
};

/* Stack id of a sample taken without --stacks. */
#define VTSCOPE_PROFILE_NO_STACK (-1)

/* Value of the "samples" maps, shared by all CPUs (atomic adds). */
struct vtscope_profile_value {
	__u64 samples;
	__u64 period_sum; /* sum of the samples' periods (ns for cpu-clock) */
};

/* Deepest stack kept per sample (the kernel's default perf_event_max_stack). */
#define VTSCOPE_PROFILE_STACK_DEPTH 127

#ifdef __cplusplus
static_assert(sizeof(struct vtscope_profile_key) == 48, "map key layout shared with BPF");
static_assert(sizeof(struct vtscope_profile_value) == 16, "map value layout shared with BPF");
#endif

#endif /* VTSCOPE_PROFILE_H */
