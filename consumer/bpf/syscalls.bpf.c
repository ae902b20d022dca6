// SPDX-License-Identifier: GPL-2.0
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

#define RINGBUF_BYTES (16 * 1024 * 1024)
#define WAKEUP_THRESHOLD (RINGBUF_BYTES / 16)

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, RINGBUF_BYTES);
} events SEC(".maps");

/*
 * vtscope stat: counts per key in two tables, one active (stats_generation & 1) while user space
 * drains the other, so a long run never fills them. Entries are allocated on insert
 * (BPF_F_NO_PREALLOC): a deleted entry is freed only after the programs that may still hold it
 * have finished, so a late increment is lost at worst, never added to another key.
 */
#define STATS_ENTRIES 65536

struct stats_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, STATS_ENTRIES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct vtscope_stat_key);
	__type(value, struct vtscope_stat_value);
};
struct stats_map stats0 SEC(".maps");
struct stats_map stats1 SEC(".maps");

volatile __u32 stats_generation = 0; /* written by user space between drains */

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
	struct vtscope_syscall_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		vtscope_count(VTSCOPE_COUNTER_LOST);
		return 0;
	}
	__u32 tid = (__u32)pid_tgid;
	e->ts_ns = bpf_ktime_get_ns();
	e->pid = pid_tgid >> 32;
	e->tid = tid;
	e->syscall_index = (__u32)bpf_get_attach_cookie(ctx);
	e->nargs = nargs;
	read_args(ctx, e->args, nargs);
	vtscope_attribute(&e->attribution, tid);
	/* A wake-up per event makes every traced syscall pay for waking the consumer; user space
	 * drains the buffer at least every 50 ms anyway, so wake it only once data piles up. */
	__u64 pending = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
	bpf_ringbuf_submit(e, pending >= WAKEUP_THRESHOLD ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
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
	struct vtscope_stat_value *value = bpf_map_lookup_elem(table, &key);
	if (!value) {
		/* Another CPU may insert the same key first (EEXIST): the lookup below finds its entry. */
		struct vtscope_stat_value zero = {};
		bpf_map_update_elem(table, &key, &zero, BPF_NOEXIST);
		value = bpf_map_lookup_elem(table, &key);
		if (!value) {
			vtscope_count(VTSCOPE_COUNTER_LOST); /* the table is full */
			return 0;
		}
	}
	__sync_fetch_and_add(&value->calls, 1);
	if (nargs > 2)
		__sync_fetch_and_add(&value->arg2_sum, ctx->args[2]);
	return 0;
}

#define SYSCALL_PROGRAMS(nargs)                                                 \
	SEC("tracepoint")                                                       \
	int on_sys_enter_##nargs(struct syscall_enter_args *ctx)                \
	{                                                                       \
		return trace_entry(ctx, nargs);                                 \
	}                                                                       \
	SEC("tracepoint")                                                       \
	int on_sys_enter_stat_##nargs(struct syscall_enter_args *ctx)           \
	{                                                                       \
		return count_entry(ctx, nargs);                                 \
	}

SYSCALL_PROGRAMS(0)
SYSCALL_PROGRAMS(1)
SYSCALL_PROGRAMS(2)
SYSCALL_PROGRAMS(3)
