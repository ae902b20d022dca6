// SPDX-License-Identifier: GPL-2.0-only
/*
 * CPU samples of one JVM (vtscope profile): a program on perf events (software cpu-clock here,
 * hardware cycles where present; one per CPU, or with --per-thread one per thread of the target,
 * inherited by the threads they create) that attributes each sample of the target's tasks
 * through the core (attribution.bpf.h) and counts it in the kernel per (thread, trace, span,
 * status, stack ids), drained like vtscope stat.
 *
 * Soundness: a perf_event program runs in the context of the interrupted task (current), which
 * cannot execute user code while the program runs, so what the core reads of its mounted thread
 * and its record is stable for the duration of the reads.
 */
#include "attribution.bpf.h"
#include "profile.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by user space before load: 1 with --stacks. */
const volatile __u32 collect_stacks = 0;

/*
 * One stack map per count table (the same generation bit picks both), sized by user space (1
 * entry without --stacks). A stack id is its hash bucket, so user space reads a table's stacks
 * when it drains the table and empties that map before the table is written again: a map only
 * holds the stacks of one round (fewer collisions), and an id never names another stack than the
 * one it was taken for. A collision gives the sample a negative id (-EEXIST), never another stack.
 */
struct stack_map {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, VTSCOPE_PROFILE_STACK_DEPTH * sizeof(__u64));
};
struct stack_map stacks0 SEC(".maps");
struct stack_map stacks1 SEC(".maps");

/* The samples per key (65,536 keys a table between two drains). */
VTSCOPE_COUNT_TABLES(samples, struct vtscope_profile_key, struct vtscope_profile_value, 65536);

SEC("perf_event")
int on_cpu_sample(struct bpf_perf_event_data *ctx)
{
	if (!vtscope_is_target())
		return 0;
	__u32 tid = vtscope_current_tid();
	struct vtscope_attribution a;
	vtscope_attribute(&a, tid);

	struct vtscope_profile_key key = {};
	key.tid = tid;
	key.java_id = a.java_id;
	key.status = a.status;
	key.reason = a.reason;
	key.mounted_virtual = a.mounted_virtual;
	if (a.status == VTSCOPE_STATUS_OK) {
		__builtin_memcpy(key.trace_id, a.trace_id, sizeof(key.trace_id));
		__builtin_memcpy(key.span_id, a.span_id, sizeof(key.span_id));
	}
	__u32 generation = samples_generation & 1;
	key.generation = generation;
	key.user_stack_id = VTSCOPE_PROFILE_NO_STACK;
	key.kernel_stack_id = VTSCOPE_PROFILE_NO_STACK;
	if (collect_stacks) {
		if (generation) {
			key.user_stack_id = bpf_get_stackid(ctx, &stacks1, BPF_F_USER_STACK);
			key.kernel_stack_id = bpf_get_stackid(ctx, &stacks1, 0);
		} else {
			key.user_stack_id = bpf_get_stackid(ctx, &stacks0, BPF_F_USER_STACK);
			key.kernel_stack_id = bpf_get_stackid(ctx, &stacks0, 0);
		}
	}

	void *table = generation ? (void *)&samples1 : (void *)&samples0;
	struct vtscope_profile_value zero = {};
	struct vtscope_profile_value *value = vtscope_count_entry(table, &key, &zero);
	if (!value)
		return 0;
	__sync_fetch_and_add(&value->samples, 1);
	__sync_fetch_and_add(&value->period_sum, ctx->sample_period);
	return 0;
}
