// SPDX-License-Identifier: GPL-2.0-only
/*
 * vtscope block: intervals during which a thread of the target was off-CPU while a virtual
 * thread was mounted on it (a virtual thread blocking or pinning its carrier), attributed by the
 * core (attribution.bpf.h).
 *
 * One BTF raw tracepoint on sched_switch does both sides. The switch-out side runs on prev (the
 * task switching out is still current there), so vtscope_attribute() on prev is sound, and while
 * prev is off-CPU its mounted thread cannot change: that one attribution names the thread for the
 * whole interval. It opens an interval keyed by prev's tid. The switch-in side, on next, closes
 * it: at least threshold_ns long -> one event on the ring buffer; shorter -> counted in the
 * kernel. A task cannot be switched in on one CPU before its switch-out on another has finished
 * (the scheduler waits for p->on_cpu to clear), so the open always precedes the close.
 *
 * A switch-in can go unseen: some kernels switch without firing sched_switch (block.h,
 * vtscope_block_anomaly). The kernel still counts every arrival of a task and stamps the last
 * (sched_info_arrive, kernel/sched/stats.h, from context_switch after the tracepoint), so the
 * interval's true end is found at the task's next switch-out, switch-in or exit, never merged
 * with the next.
 */
#include "attribution.bpf.h"
#include "block.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by user space before load. */
const volatile __u64 threshold_ns = 20 * 1000 * 1000;
const volatile __u32 all_threads = 0;	 /* also intervals of threads with no virtual thread mounted */
const volatile __u32 collect_stacks = 0; /* --stacks */
/* sched_clock is stable across CPUs (user space: the TSC is the clocksource), so durations may be
 * taken on it (switch_time below). */
const volatile __u32 sched_clock_stable = 0;

#define TASK_RUNNING_STATE 0x0000
#define TASK_DEAD_STATE	   0x0080

#define RINGBUF_BYTES (4 * 1024 * 1024)

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, RINGBUF_BYTES);
} events SEC(".maps");

/* Each task's interval, open (interval.ts_ns != 0) or closed, and its pending short intervals, by
 * tid; preallocated, so the first switch-out of a task never allocates. An entry lives until its
 * task exits. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, VTSCOPE_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct vtscope_block_task);
} open_intervals SEC(".maps");

/* The value a task's open_intervals entry is created with (too large for the BPF stack). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vtscope_block_task);
} empty_task SEC(".maps");

/*
 * --stacks: the stacks of each task's last switch-out, by tid, written in place like
 * open_intervals (only the task's own, ordered switches touch its entry) and copied into the
 * record of a reported interval. A stack lives with its interval rather than in a stack-trace map
 * (profile.bpf.c's way): an interval can stay open for seconds, longer than any round after which
 * such a map could be emptied, and a reused bucket would give it another stack. Not preallocated
 * (about 2 KiB an entry): entries exist only for the tasks that blocked with a virtual thread
 * mounted; user space sets max_entries to 1 without --stacks.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, VTSCOPE_MAX_THREADS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct vtscope_block_stacks);
} open_stacks SEC(".maps");

/* The value a task's open_stacks entry is created with (too large for the BPF stack). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vtscope_block_stacks);
} empty_stacks SEC(".maps");

#define VTSCOPE_ENOENT 2

/* Past this much unread data a record wakes the consumer; below it the consumer's 50 ms poll
 * timeout picks records up (syscalls.bpf.c does the same). */
#define WAKEUP_THRESHOLD (RINGBUF_BYTES / 16)

/* Counted by enum vtscope_block_anomaly. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, VTSCOPE_BLOCK_ANOMALY_COUNT);
	__type(key, __u32);
	__type(value, __u64);
} block_anomalies SEC(".maps");

static __always_inline void count_anomaly(__u32 which)
{
	__u64 *value = bpf_map_lookup_elem(&block_anomalies, &which);
	if (value)
		*value += 1;
}

/* The clock of sched_info.last_arrival now: rq->clock of t's CPU (updated at the top of
 * __schedule), through t's CFS run queue (set_task_rq, kernel/sched/sched.h, for a task of any
 * class). 0 where that link does not exist (no CONFIG_FAIR_GROUP_SCHED): an unseen switch-in's end
 * is then unknown. */
static __always_inline __u64 sched_clock_ns(struct task_struct *t)
{
	if (!bpf_core_field_exists(t->se.cfs_rq))
		return 0;
	/* Plain loads of BTF pointers (the verifier guards them), not bpf_probe_read_kernel calls:
	 * this runs on every switch-out that opens an interval. */
	struct cfs_rq *cfs_rq = t->se.cfs_rq;
	if (!cfs_rq)
		return 0;
	struct rq *rq = cfs_rq->rq;
	if (!rq)
		return 0;
	return rq->clock;
}

/* The kernel's count of t's arrivals on a CPU, and the time of the last (rq clock). Without
 * CONFIG_SCHED_INFO both are 0: an unseen switch-in is then found but its end is unknown. */
static __always_inline __u64 task_runs(struct task_struct *t)
{
	if (!bpf_core_field_exists(t->sched_info))
		return 0;
	return t->sched_info.pcount;
}

static __always_inline __u64 task_last_arrival(struct task_struct *t)
{
	if (!bpf_core_field_exists(t->sched_info))
		return 0;
	return t->sched_info.last_arrival;
}

/*
 * Whether an interval of a task resolved as *a is kept. A mounted virtual thread: always. An
 * identity the core could not resolve (unmapped or invalid without an id): kept with its status,
 * never given to another thread, unless the core knows no virtual thread can be mounted there
 * (the task is no JavaThread: GC, compiler, VM threads; or the probe channels map nothing on
 * it). Threads with no virtual thread mounted (platform threads, idle carriers): only with
 * all_threads.
 */
static __always_inline bool keep(const struct vtscope_attribution *a)
{
	if (a->mounted_virtual || all_threads)
		return true;
	if (a->java_id > 0)
		return false;
	return a->reason != VTSCOPE_REASON_NOT_JAVA_THREAD && a->reason != VTSCOPE_REASON_NO_LIFECYCLE_MAPPING;
}

static __always_inline void count_key(const struct vtscope_block_event *e, struct vtscope_block_key *key)
{
	__builtin_memset(key, 0, sizeof(*key));
	key->java_id = e->attribution.java_id;
	key->syscall_nr = e->syscall_nr;
	key->status = e->attribution.status;
	key->block_reason = e->block_reason;
	key->mounted_virtual = e->attribution.mounted_virtual;
	if (e->attribution.status == VTSCOPE_STATUS_OK)
		__builtin_memcpy(key->trace_id, e->attribution.trace_id, sizeof(key->trace_id));
}

/*
 * Hands n short intervals of total_ns under *key to user space, which sums them (block.h,
 * vtscope_block_summary). Through the ring buffer rather than a hash table of counts: with a
 * virtual thread per request nearly every flush has a new key, and a hash insert (allocation,
 * bucket lock) plus user space's lookup and delete of each entry cost several times a
 * ring-buffer record (bench/RESULTS.md, vtscope block on the demo service).
 */
static __always_inline void count_intervals(const struct vtscope_block_key *key, __u64 n, __u64 total_ns)
{
	struct vtscope_block_summary summary;
	summary.key = *key;
	summary.value.count = n;
	summary.value.total_ns = total_ns;
	__u64 flags = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= WAKEUP_THRESHOLD ? BPF_RB_FORCE_WAKEUP
											: BPF_RB_NO_WAKEUP;
	if (bpf_ringbuf_output(&events, &summary, sizeof(summary), flags) != 0) {
		__u32 lost = VTSCOPE_COUNTER_LOST;
		__u64 *value = bpf_map_lookup_elem(&counters, &lost);
		if (value)
			*value += n; /* the ring buffer is full */
	}
}

static __always_inline bool same_key(const struct vtscope_block_key *a, const struct vtscope_block_key *b)
{
	const __u64 *x = (const __u64 *)a, *y = (const __u64 *)b;
	return x[0] == y[0] && x[1] == y[1] && x[2] == y[2] && x[3] == y[3];
}

/* A short interval of task t: summed with t's pending ones if the key is theirs, else those go to
 * the table and this one is pending. Only t's own switch-ins (ordered) and its exit touch them. */
static __always_inline void count_interval(struct vtscope_block_task *t, const struct vtscope_block_event *e)
{
	struct vtscope_block_key key;
	count_key(e, &key);
	if (t->pending.count != 0 && same_key(&key, &t->pending_key)) {
		t->pending.count += 1;
		t->pending.total_ns += e->duration_ns;
		return;
	}
	if (t->pending.count != 0)
		count_intervals(&t->pending_key, t->pending.count, t->pending.total_ns);
	t->pending_key = key;
	t->pending.count = 1;
	t->pending.total_ns = e->duration_ns;
}

/*
 * The switch's time. Durations are taken on the scheduler's clock, this CPU's rq->clock, which
 * __schedule updated just before sched_switch fired (kernel/sched/core.c): three loads, where a
 * clock read (bpf_ktime_get_ns) costs about 50 ns on this VM, and the clock of
 * sched_info.last_arrival. ts_ns is CLOCK_MONOTONIC: the scheduler's clock mapped through a pair
 * of readings of both clocks this CPU took at most CLOCK_PAIR_MAX_AGE_NS before. sched_clock is
 * stable across CPUs here ("sched_clock: Marking stable"); between pairs CLOCK_MONOTONIC can be
 * slewed by NTP by at most 500 ppm (25 us over 50 ms), and a pair is taken a few microseconds
 * after rq->clock was: ts_ns is good to that, durations exactly. Where sched_clock is not known
 * to be stable (sched_clock_stable 0; each CPU's clock may then stray by up to a tick) or
 * rq->clock cannot be reached, both come from bpf_ktime_get_ns. An unseen switch-in's end
 * (finish_unseen) has no other clock than rq's.
 */
#define CLOCK_PAIR_MAX_AGE_NS (50 * 1000 * 1000)

struct clock_pair {
	__u64 sched_ns;
	__u64 monotonic_ns;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct clock_pair);
} clock_pairs SEC(".maps");

/* Read once a switch, when an interval opens or closes: most switches of a target (idle carriers,
 * GC and compiler threads) do neither. */
struct switch_time {
	struct task_struct *on_cpu; /* prev: its run queue is this CPU's */
	bool sched_read;
	__u64 sched_ns;	    /* rq->clock, 0 where unavailable */
	__u64 monotonic_ns; /* 0 until needed */
};

static __always_inline __u64 switch_sched_ns(struct switch_time *now)
{
	if (!now->sched_read) {
		now->sched_ns = sched_clock_ns(now->on_cpu);
		now->sched_read = true;
	}
	return now->sched_ns;
}

static __always_inline __u64 switch_monotonic_ns(struct switch_time *now)
{
	if (now->monotonic_ns != 0)
		return now->monotonic_ns;
	__u32 zero = 0;
	struct clock_pair *pair = bpf_map_lookup_elem(&clock_pairs, &zero);
	if (!sched_clock_stable || switch_sched_ns(now) == 0 || !pair) {
		now->monotonic_ns = bpf_ktime_get_ns();
		return now->monotonic_ns;
	}
	if (pair->sched_ns == 0 || now->sched_ns < pair->sched_ns ||
	    now->sched_ns - pair->sched_ns > CLOCK_PAIR_MAX_AGE_NS) {
		pair->monotonic_ns = bpf_ktime_get_ns();
		pair->sched_ns = now->sched_ns;
	}
	now->monotonic_ns = pair->monotonic_ns + (now->sched_ns - pair->sched_ns);
	return now->monotonic_ns;
}

/*
 * The stacks of prev, which is still current here (sched_switch fires in __schedule before
 * context_switch, kernel/sched/core.c): bpf_get_stack from a tp_btf program walks current's kernel
 * stack from this point and its user stack from its saved user registers (bpf_get_stack_raw_tp,
 * kernel/trace/bpf_trace.c; get_perf_callchain, kernel/events/callchain.c).
 */
static __always_inline void take_stacks(void *ctx, __u32 tid)
{
	struct vtscope_block_stacks *s = bpf_map_lookup_elem(&open_stacks, &tid);
	if (!s) {
		__u32 zero = 0;
		struct vtscope_block_stacks *empty = bpf_map_lookup_elem(&empty_stacks, &zero);
		if (!empty)
			return;
		bpf_map_update_elem(&open_stacks, &tid, empty, BPF_NOEXIST);
		s = bpf_map_lookup_elem(&open_stacks, &tid);
		if (!s)
			return; /* the map is full: the interval's record says no stack was taken */
	}
	s->user_bytes = bpf_get_stack(ctx, s->user, sizeof(s->user), BPF_F_USER_STACK);
	s->kernel_bytes = bpf_get_stack(ctx, s->kernel, sizeof(s->kernel), 0);
}

/* Closes t's interval after duration_ns: at least threshold_ns -> one record on the ring buffer,
 * shorter -> counted. */
static __always_inline void finish_interval(struct vtscope_block_task *t, __u32 tid, __u64 duration_ns)
{
	struct vtscope_block_event e = t->interval;
	t->interval.ts_ns = 0; /* closed */
	e.duration_ns = duration_ns;
	if (e.duration_ns >= threshold_ns) {
		if (collect_stacks) {
			struct vtscope_block_record *out = bpf_ringbuf_reserve(&events, sizeof(*out), 0);
			if (out) {
				out->event = e;
				struct vtscope_block_stacks *s = bpf_map_lookup_elem(&open_stacks, &tid);
				if (!s || bpf_probe_read_kernel(&out->stacks, sizeof(out->stacks), s) != 0) {
					out->stacks.user_bytes = -VTSCOPE_ENOENT;
					out->stacks.kernel_bytes = -VTSCOPE_ENOENT;
				}
				bpf_ringbuf_submit(out, 0);
				return;
			}
		} else {
			struct vtscope_block_event *out = bpf_ringbuf_reserve(&events, sizeof(*out), 0);
			if (out) {
				*out = e;
				bpf_ringbuf_submit(out, 0);
				return;
			}
		}
		vtscope_count(VTSCOPE_COUNTER_LOST); /* not streamed; still counted below */
	}
	count_interval(t, &e);
}

/*
 * t's interval is open though its task has run since the switch-out: its switch-in was not seen.
 * runs and last_arrival are the task's sched_info now. One arrival since the switch-out: that was
 * the end. More: the first of them was, at a time nobody recorded, so the interval is dropped and
 * counted rather than reported too long.
 */
static __always_inline void finish_unseen(struct vtscope_block_task *t, __u32 tid, __u64 runs, __u64 last_arrival)
{
	if (runs == t->out_runs + 1 && t->out_sched_clock_ns != 0 && last_arrival >= t->out_sched_clock_ns) {
		count_anomaly(VTSCOPE_BLOCK_SWITCH_IN_UNSEEN);
		finish_interval(t, tid, last_arrival - t->out_sched_clock_ns);
	} else {
		count_anomaly(VTSCOPE_BLOCK_END_UNKNOWN);
		t->interval.ts_ns = 0;
	}
}

/* Switch-in of a target task (its sched_info is not yet updated for this arrival). */
static __always_inline void close_interval(struct task_struct *next, struct switch_time *now)
{
	__u32 tid = next->pid;
	struct vtscope_block_task *t = bpf_map_lookup_elem(&open_intervals, &tid);
	if (!t || t->interval.ts_ns == 0)
		return;
	__u64 runs = task_runs(next);
	if (runs != t->out_runs) {
		finish_unseen(t, tid, runs, task_last_arrival(next));
		return;
	}
	if (sched_clock_stable && switch_sched_ns(now) != 0 && t->out_sched_clock_ns != 0)
		finish_interval(t, tid, now->sched_ns - t->out_sched_clock_ns);
	else
		finish_interval(t, tid, switch_monotonic_ns(now) - t->interval.ts_ns);
}

/* Switch-out of a target task (prev == current). */
static __always_inline void open_interval(void *ctx, bool preempt, struct task_struct *prev, __u32 prev_state,
					  struct switch_time *now)
{
	if (prev_state & TASK_DEAD_STATE)
		return; /* its last switch: it never runs again, and its memory is gone */
	struct vtscope_block_event e;
	__u32 tid = prev->pid;
	/* Without all_threads only mounted virtual threads are kept (keep), so the core may skip the
	 * record of a thread that runs as itself. */
	if (all_threads)
		vtscope_attribute(&e.attribution, tid);
	else
		vtscope_attribute_virtual(&e.attribution, tid);
	if (!keep(&e.attribution))
		return;
	/* The syscall the task sleeps in: orig_ax of its user registers holds the number on syscall
	 * entry; interrupt and exception entries set it to -1 (entry_64.S, idtentry and FRED). */
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(prev);
	long nr = regs ? (long)regs->orig_ax : -1;
	e.ts_ns = switch_monotonic_ns(now);
	e.duration_ns = 0;
	e.pid = attribution_config.target_tgid;
	e.tid = tid;
	e.syscall_nr = nr >= 0 && nr < 0x7fffffff ? (__s32)nr : -1;
	e.prev_state = prev_state;
	/* Still runnable at switch-out (preempted, or woken before it could sleep): run-queue wait. */
	if (preempt || prev_state == TASK_RUNNING_STATE)
		e.block_reason = VTSCOPE_BLOCK_PREEMPTED;
	else
		e.block_reason = e.syscall_nr >= 0 ? VTSCOPE_BLOCK_SYSCALL : VTSCOPE_BLOCK_OTHER;
	__builtin_memset(e.pad, 0, sizeof(e.pad));
	/* The task's entry, once created, is written in place: only its own switches touch it, and
	 * they are ordered (see the top), so no lock and no delete is needed; ts_ns 0 marks it closed. */
	struct vtscope_block_task *slot = bpf_map_lookup_elem(&open_intervals, &tid);
	if (!slot) {
		__u32 zero = 0;
		struct vtscope_block_task *empty = bpf_map_lookup_elem(&empty_task, &zero);
		if (!empty)
			return;
		bpf_map_update_elem(&open_intervals, &tid, empty, BPF_NOEXIST);
		slot = bpf_map_lookup_elem(&open_intervals, &tid);
		if (!slot) {
			vtscope_count(VTSCOPE_COUNTER_LOST); /* the map is full */
			return;
		}
	} else if (slot->interval.ts_ns != 0) {
		/* prev runs, so its last interval ended unseen; closed before its stacks are replaced */
		finish_unseen(slot, tid, task_runs(prev), task_last_arrival(prev));
	}
	if (collect_stacks)
		take_stacks(ctx, tid);
	slot->interval = e;
	slot->out_runs = task_runs(prev);
	slot->out_sched_clock_ns = switch_sched_ns(now);
}

/* A task of the target exits: its pending short intervals are counted and its entry goes. */
SEC("tracepoint/sched/sched_process_exit")
int on_block_task_exit(void *ctx)
{
	if (!vtscope_is_target())
		return 0;
	__u32 tid = vtscope_current_tid();
	struct vtscope_block_task *t = bpf_map_lookup_elem(&open_intervals, &tid);
	if (t && t->interval.ts_ns != 0) {
		/* the task runs, so its last interval ended unseen */
		struct task_struct *task = bpf_get_current_task_btf();
		finish_unseen(t, tid, task_runs(task), task_last_arrival(task));
	}
	if (t && t->pending.count != 0)
		count_intervals(&t->pending_key, t->pending.count, t->pending.total_ns);
	bpf_map_delete_elem(&open_intervals, &tid);
	if (collect_stacks)
		bpf_map_delete_elem(&open_stacks, &tid);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next, unsigned int prev_state)
{
	/* One load and compare per side: other processes' switches stop here. */
	__u32 target = attribution_config.target_tgid;
	bool out = prev->tgid == target;
	bool in = next->tgid == target;
	if (!out && !in)
		return 0;
	struct switch_time now = {.on_cpu = prev, .sched_read = false, .sched_ns = 0, .monotonic_ns = 0};
	if (out)
		open_interval(ctx, preempt, prev, prev_state, &now);
	if (in)
		close_interval(next, &now);
	return 0;
}
