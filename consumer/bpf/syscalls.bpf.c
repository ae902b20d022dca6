// SPDX-License-Identifier: GPL-2.0-only
/*
 * Syscall entries of one JVM, attributed by the core (attribution.bpf.h): vtscope trace streams
 * one event per entry through the ring buffer, vtscope stat counts them in place.
 *
 * A classic syscalls:sys_enter_NAME tracepoint hands the program a record whose size depends on
 * the syscall's argument count, and perf refuses to attach a program that may read past it
 * (kernel/trace/bpf_trace.c, perf_event_attach_bpf_prog: max_ctx_offset > the event's size gives
 * EACCES). So there is one program per argument count read (0 to 3), and user space attaches the
 * one that fits the syscall's format.
 */
#include "attribution.bpf.h"
#include "syscalls.h"

char LICENSE[] SEC("license") = "GPL";

/* Layout of every syscalls:sys_enter_* tracepoint record (its "format" file in tracefs). */
struct syscall_enter_args {
	__u64 common;
	__s32 syscall_nr;
	__u32 pad;
	__u64 args[6];
};

#define RINGBUF_BYTES	 (16 * 1024 * 1024)
#define WAKEUP_THRESHOLD (RINGBUF_BYTES / 16)

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, RINGBUF_BYTES);
} events SEC(".maps");

/*
 * Events are staged per CPU and written to the ring buffer VTSCOPE_SYSCALL_BATCH at a time: a
 * reservation takes the ring buffer's lock and touches the cache line the consumer updates after
 * every record, which cost about 96 ns per event when done per event; batches of 32 instead of 8
 * still saved about 30 ns per event, side by side on one write storm (a flush costs some 600 ns:
 * the consumer on the other CPU owns those lines), and 64 measured as 32 (bench/RESULTS.md). A
 * staging buffer is only touched by programs on its own CPU, and the kernel never runs a
 * tracing program while another is active on the same CPU (bpf_prog_active in trace_call_bpf and
 * in the perf-event overflow handler, kernel/trace/bpf_trace.c, kernel/events/core.c), so neither
 * the syscall programs nor the flush timer below can see a half-written batch. A partial batch is
 * flushed by that timer (a per-CPU software clock, every 50 ms) and by user space after the
 * detach, so an event waits at most 50 ms and none is left behind.
 */
struct syscall_staging {
	__u32 count;
	__u32 pad;
	struct vtscope_syscall_event events[VTSCOPE_SYSCALL_BATCH];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct syscall_staging);
} staging SEC(".maps");

/* Writes the staged events; the ones that do not fit are counted as lost, never delivered twice. */
static __always_inline void flush_staging(struct syscall_staging *st)
{
	__u32 n = st->count;
	if (n == 0)
		return;
	if (n > VTSCOPE_SYSCALL_BATCH)
		n = VTSCOPE_SYSCALL_BATCH;
	/* Wake the consumer only once data piles up: it drains at least every 50 ms anyway. */
	__u64 pending = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
	__u64 flags = pending >= WAKEUP_THRESHOLD ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
	if (bpf_ringbuf_output(&events, st->events, n * sizeof(st->events[0]), flags) != 0) {
		__u32 lost = VTSCOPE_COUNTER_LOST;
		__u64 *value = bpf_map_lookup_elem(&counters, &lost);
		if (value)
			*value += n;
	}
	st->count = 0;
}

SEC("perf_event")
int on_flush_timer(void *ctx)
{
	__u32 zero = 0;
	struct syscall_staging *st = bpf_map_lookup_elem(&staging, &zero);
	if (st)
		flush_staging(st);
	return 0;
}

/* vtscope stat: counts per key (65,536 keys a table between two drains). */
VTSCOPE_COUNT_TABLES(stats, struct vtscope_stat_key, struct vtscope_stat_value, 65536);

/* Only the first `nargs` arguments are read: the record is no longer than that (see above). */
static __always_inline void read_args(const struct syscall_enter_args *ctx, __u64 *args, int nargs)
{
	args[0] = nargs > 0 ? ctx->args[0] : 0;
	args[1] = nargs > 1 ? ctx->args[1] : 0;
	args[2] = nargs > 2 ? ctx->args[2] : 0;
}

/* vtscope trace: one event per syscall entry. */
static __always_inline int trace_entry(struct syscall_enter_args *ctx, int nargs)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	if ((pid_tgid >> 32) != attribution_config.target_tgid)
		return 0;
	__u32 zero = 0;
	struct syscall_staging *st = bpf_map_lookup_elem(&staging, &zero);
	if (!st)
		return 0;
	__u32 slot = st->count;
	if (slot >= VTSCOPE_SYSCALL_BATCH) { /* cannot happen: a full batch is flushed at once */
		flush_staging(st);
		slot = 0;
	}
	struct vtscope_syscall_event *e = &st->events[slot & (VTSCOPE_SYSCALL_BATCH - 1)];
	__u32 tid = (__u32)pid_tgid;
	e->ts_ns = bpf_ktime_get_ns();
	e->pid = pid_tgid >> 32;
	e->tid = tid;
	e->syscall_index = (__u32)bpf_get_attach_cookie(ctx);
	e->nargs = nargs;
	read_args(ctx, e->args, nargs);
	vtscope_attribute(&e->attribution, tid);
	st->count = slot + 1;
	if (slot + 1 >= VTSCOPE_SYSCALL_BATCH)
		flush_staging(st);
	return 0;
}

/*
 * vtscope stat: the same attribution, counted in place. No event leaves the kernel, so there is
 * no ring buffer and no timestamp (on this VM the clock read alone costs about 50 ns).
 */
static __always_inline int count_entry(struct syscall_enter_args *ctx, int nargs)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	if ((pid_tgid >> 32) != attribution_config.target_tgid)
		return 0;
	struct vtscope_attribution a;
	vtscope_attribute(&a, (__u32)pid_tgid);
	struct vtscope_stat_key key = {};
	key.syscall_index = (__u32)bpf_get_attach_cookie(ctx);
	key.status = a.status;
	if (a.status == VTSCOPE_STATUS_OK) {
		key.java_id = a.java_id;
		__builtin_memcpy(key.trace_id, a.trace_id, sizeof(key.trace_id));
		key.mounted_virtual = a.mounted_virtual;
	}
	void *table = (stats_generation & 1) ? (void *)&stats1 : (void *)&stats0;
	struct vtscope_stat_value zero = {};
	struct vtscope_stat_value *value = vtscope_count_entry(table, &key, &zero);
	if (!value)
		return 0;
	__sync_fetch_and_add(&value->calls, 1);
	if (nargs > 2)
		__sync_fetch_and_add(&value->arg2_sum, ctx->args[2]);
	return 0;
}

#define SYSCALL_PROGRAMS(nargs)                                                                                        \
	SEC("tracepoint")                                                                                              \
	int on_sys_enter_##nargs(struct syscall_enter_args *ctx)                                                       \
	{                                                                                                              \
		return trace_entry(ctx, nargs);                                                                        \
	}                                                                                                              \
	SEC("tracepoint")                                                                                              \
	int on_sys_enter_stat_##nargs(struct syscall_enter_args *ctx)                                                  \
	{                                                                                                              \
		return count_entry(ctx, nargs);                                                                        \
	}

SYSCALL_PROGRAMS(0)
SYSCALL_PROGRAMS(1)
SYSCALL_PROGRAMS(2)
SYSCALL_PROGRAMS(3)
