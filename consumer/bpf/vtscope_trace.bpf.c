// SPDX-License-Identifier: GPL-2.0
/*
 * vtscope trace: attribute syscall entries of one JVM to the virtual thread mounted on the
 * carrier at that instant (identity plane) and to that thread's trace record (content plane).
 *
 * Identity: HotSpot's JavaThread::_monitor_owner_id (JDK 24+, JEP 491) holds the Java id of the
 * mounted virtual thread, or the carrier's own id when none is mounted (javaThread.hpp; set by
 * JVM_SetCurrentThread on the carrier itself). The "threads" map gives each kernel tid its
 * JavaThread* and the OS thread's own Java id; it is filled synchronously by the uprobe on
 * JavaThread::run (first code of every new Java thread) and emptied by the uprobe on
 * Threads::remove (the exiting thread unlinks itself before its JavaThread is freed), so a read
 * through a stale JavaThread* cannot happen. User space adds the threads that existed at attach.
 *
 * Content: the record region (common/vtscope_record.h), looked up by that Java id.
 *
 * --identity lifecycle, two-probe and hotspot-probes keep instead a map carrier tid -> (virtual
 * thread, record address) driven by USDT lifecycle probes, as the paper's consumer does
 * (section 5.4), and read the cached record at each syscall (valid flag only, no ownership check:
 * the paper's caching reader, so the ablation shows its failures).
 *
 * --identity otep-tls instead reads what a third-party OTEP 4947 reader reads: the carrier's
 * otel_thread_ctx_v1 thread-local, which libvtscope.so points at the mounted virtual thread's
 * record; the slot header in front of that record names the owner.
 *
 * Every handler runs on the task that issued the syscall: while it runs, that task cannot execute
 * user code, so the id and the record it owns are stable for the duration of the reads.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

#include "../../common/vtscope_record.h"
#include "trace_event.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by user space before load. */
const volatile __u32 target_tgid = 0;
const volatile __u64 off_monitor_owner_id = 0;   /* JavaThread::_monitor_owner_id */
const volatile __u32 identity_mode = VTSCOPE_IDENTITY_VMSTRUCTS;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct vtscope_thread_info);
} threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vtscope_region_info);
} region SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vtscope_tls_info);
} thread_context_tls SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct vtscope_mapping);
} carriers SEC(".maps");

/*
 * two-probe emulates the paper's freeze/thaw-only consumer on top of JDK 25's JVMTI events,
 * which (unlike freeze/thaw) also cover the first mount (posted right after VirtualThreadStart)
 * and the final unmount (right before VirtualThreadEnd). Those two are what freeze/thaw miss, so
 * two-probe drops them: the first mount after a start, and an unmount that the next event on the
 * carrier shows to be the final one (it is followed by the same thread's end). Until then the
 * unmount is pending and the carrier reads as unmapped.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __s64);
} just_started SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __s64);
} pending_unmount SEC(".maps");

#define RINGBUF_BYTES (16 * 1024 * 1024)
#define WAKEUP_THRESHOLD (RINGBUF_BYTES / 16)

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, RINGBUF_BYTES);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, VTSCOPE_COUNTER_COUNT);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/* Layout of every syscalls:sys_enter_* tracepoint (see its "format" file in tracefs). */
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

struct syscall_enter_args {
	__u64 common;
	__s32 syscall_nr;
	__u32 pad;
	__u64 args[6];
};

static __always_inline void count(__u32 which)
{
	__u64 *value = bpf_map_lookup_elem(&counters, &which);
	if (value)
		*value += 1;
}

static __always_inline bool is_target(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == target_tgid;
}

/* Java id of the OS thread's mounted thread, read through its JavaThread*. */
static __always_inline int read_java_id(const struct vtscope_thread_info *info, __s64 *id)
{
	return bpf_probe_read_user(id, sizeof(*id),
				   (const void *)(info->java_thread + off_monitor_owner_id));
}

SEC("uprobe") /* BPF_KPROBE: libbpf 1.1 has no BPF_UPROBE; the argument access is the same */
int BPF_KPROBE(on_java_thread_run, void *java_thread)
{
	if (!is_target())
		return 0;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct vtscope_thread_info info = { .java_thread = (__u64)java_thread, .own_id = 0 };
	/* A new thread has mounted nothing yet: the id is its own (JavaThread::prepare set it). */
	__s64 id = 0;
	if (read_java_id(&info, &id) == 0 && id > 0)
		info.own_id = id;
	bpf_map_update_elem(&threads, &tid, &info, BPF_ANY);
	count(VTSCOPE_COUNTER_THREADS_STARTED);
	return 0;
}

SEC("uprobe") /* BPF_KPROBE: libbpf 1.1 has no BPF_UPROBE; the argument access is the same */
int BPF_KPROBE(on_threads_remove, void *java_thread)
{
	if (!is_target())
		return 0;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct vtscope_thread_info *info = bpf_map_lookup_elem(&threads, &tid);
	if (info && info->java_thread == (__u64)java_thread)
		bpf_map_delete_elem(&threads, &tid);
	count(VTSCOPE_COUNTER_THREADS_REMOVED);
	return 0;
}

/* ---- probe channels ---- */

/* HotSpot's enums (continuationFreezeThaw.cpp / continuation.hpp), the paper's probe ABI. */
#define FREEZE_OK 0
#define THAW_TOP 0

static __always_inline void map_insert(__s64 vid, __u64 record)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct vtscope_mapping m = { .vid = vid, .record = record };
	bpf_map_update_elem(&carriers, &tid, &m, BPF_ANY);
	count(VTSCOPE_COUNTER_INSERTS);
}

static __always_inline void map_delete(__u32 missing_counter)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	if (bpf_map_delete_elem(&carriers, &tid) == 0)
		count(VTSCOPE_COUNTER_DELETES);
	else
		count(missing_counter);
}

/* libvtscope.so: vtscope:vthread__{start,end,mount,unmount} (native/src/probes.h). */
/* two-probe: a pending unmount turned out not to be final; it was a freeze after all. */
static __always_inline void two_probe_settle(__u32 tid)
{
	if (bpf_map_delete_elem(&pending_unmount, &tid) == 0)
		map_delete(VTSCOPE_COUNTER_UNMOUNT_UNMAPPED);
}

SEC("usdt")
int BPF_USDT(on_vt_start, long vid, long record)
{
	if (!is_target())
		return 0;
	if (identity_mode == VTSCOPE_IDENTITY_TWO_PROBE) {
		__u32 tid = (__u32)bpf_get_current_pid_tgid();
		__s64 v = vid;
		two_probe_settle(tid);
		bpf_map_update_elem(&just_started, &tid, &v, BPF_ANY); /* its first mount has no thaw */
		return 0;
	}
	map_insert(vid, record);
	return 0;
}

SEC("usdt")
int BPF_USDT(on_vt_mount, long vid, long record)
{
	if (!is_target())
		return 0;
	if (identity_mode == VTSCOPE_IDENTITY_TWO_PROBE) {
		__u32 tid = (__u32)bpf_get_current_pid_tgid();
		two_probe_settle(tid);
		__s64 *started = bpf_map_lookup_elem(&just_started, &tid);
		if (started && *started == vid) {
			bpf_map_delete_elem(&just_started, &tid);
			return 0;
		}
	}
	map_insert(vid, record);
	return 0;
}

SEC("usdt")
int BPF_USDT(on_vt_unmount, long vid)
{
	if (!is_target())
		return 0;
	if (identity_mode == VTSCOPE_IDENTITY_TWO_PROBE) {
		__u32 tid = (__u32)bpf_get_current_pid_tgid();
		__s64 v = vid;
		bpf_map_update_elem(&pending_unmount, &tid, &v, BPF_ANY);
		return 0;
	}
	map_delete(VTSCOPE_COUNTER_UNMOUNT_UNMAPPED);
	return 0;
}

SEC("usdt")
int BPF_USDT(on_vt_end, long vid)
{
	if (!is_target())
		return 0;
	if (identity_mode == VTSCOPE_IDENTITY_TWO_PROBE) {
		/* The pending unmount was the final one: no freeze, so the mapping stays (the defect). */
		__u32 tid = (__u32)bpf_get_current_pid_tgid();
		bpf_map_delete_elem(&pending_unmount, &tid);
		return 0;
	}
	/* The paper: delete unconditionally on end. On JDK 25 the final unmount usually deleted it. */
	map_delete(VTSCOPE_COUNTER_END_UNMAPPED);
	return 0;
}

/* The paper's patched JDK: hotspot:vthread__{start,end,freeze,thaw} (its Appendix B). */
SEC("usdt")
int BPF_USDT(on_hs_start, long vid, long record)
{
	if (is_target())
		map_insert(vid, record);
	return 0;
}

SEC("usdt")
int BPF_USDT(on_hs_thaw, long vid, int kind, long record)
{
	/* Only kind=top is a logical remount; return-barrier thaws (also seen after end) are not. */
	if (is_target() && kind == THAW_TOP)
		map_insert(vid, record);
	return 0;
}

SEC("usdt")
int BPF_USDT(on_hs_freeze, long vid, int result, long record)
{
	/* Pinned results leave the thread on its carrier: keep the mapping. */
	if (is_target() && result == FREEZE_OK)
		map_delete(VTSCOPE_COUNTER_UNMOUNT_UNMAPPED);
	return 0;
}

SEC("usdt")
int BPF_USDT(on_hs_end, long vid)
{
	if (is_target())
		map_delete(VTSCOPE_COUNTER_END_UNMAPPED);
	return 0;
}

SEC("tracepoint/sched/sched_process_exit")
int on_task_exit(void *ctx)
{
	if (!is_target())
		return 0;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	bpf_map_delete_elem(&threads, &tid);
	bpf_map_delete_elem(&carriers, &tid);
	bpf_map_delete_elem(&just_started, &tid);
	bpf_map_delete_elem(&pending_unmount, &tid);
	return 0;
}

/* A slot's owner line and the used part of its record (ids, valid, flags), read in one copy. */
#define SLOT_SNAPSHOT_BYTES (VTSCOPE_RECORD_OFFSET + 26)

/*
 * Finds the slot owned by java_id and leaves its snapshot in *snap; returns its address or 0.
 * Sets *fault on a failed read. The home slot (where a thread's slot almost always is) is copied
 * with its record in one read; further slots of the chain by their owner line only, and the
 * record of a match there in a second read.
 */
static __always_inline __u64 find_slot(const struct vtscope_region_info *rg, __s64 java_id,
				       struct vtscope_slot *snap, bool *fault)
{
	for (__u32 i = 0; i < VTSCOPE_MAX_PROBE; i++) {
		__u64 index = ((__u64)java_id + i) & rg->capacity_mask;
		__u64 slot = rg->base + VTSCOPE_REGION_HEADER_SIZE + index * VTSCOPE_SLOT_SIZE;
		__u32 size = i == 0 ? SLOT_SNAPSHOT_BYTES : sizeof(snap->head.owner) + sizeof(snap->head.kind);
		if (bpf_probe_read_user(snap, size, (const void *)slot) != 0) {
			*fault = true;
			return 0;
		}
		if (snap->head.owner == java_id) {
			if (i > 0 && bpf_probe_read_user(&snap->record, SLOT_SNAPSHOT_BYTES - VTSCOPE_RECORD_OFFSET,
							 (const void *)(slot + VTSCOPE_RECORD_OFFSET)) != 0) {
				*fault = true;
				return 0;
			}
			return slot;
		}
		if (snap->head.owner == VTSCOPE_OWNER_FREE)
			return 0;
	}
	return 0;
}

static __always_inline bool all_zero(const __u8 *bytes, int n)
{
	__u8 acc = 0;
	for (int i = 0; i < n; i++)
		acc |= bytes[i];
	return acc == 0;
}

/* The event's status and context from a copy of an OTEP 4947 record (valid-flag protocol). */
static __always_inline void take_record(struct vtscope_event *e, const struct vtscope_record *record)
{
	if (record->valid != 1) {
		if (all_zero(record->trace_id, 16)) {
			e->status = VTSCOPE_STATUS_NO_CONTEXT;
		} else {
			e->status = VTSCOPE_STATUS_INVALID;
			e->reason = VTSCOPE_REASON_TORN;
		}
		return;
	}
	__builtin_memcpy(e->trace_id, record->trace_id, 16);
	__builtin_memcpy(e->span_id, record->span_id, 8);
	e->trace_flags = record->trace_flags;
	e->status = VTSCOPE_STATUS_OK;
}

/*
 * Reads the OTEP 4947 record at record_addr into the event. With owner_slot set, the slot's
 * owner must still be id after the read (otep-tls, whose pointer comes from a thread-local);
 * the probe channels pass 0 and trust their cached address, as the paper's reader does.
 */
static __always_inline void read_record(struct vtscope_event *e, __u64 record_addr, __u64 owner_slot, __s64 id)
{
	struct vtscope_record record;
	if (bpf_probe_read_user(&record, 26, (const void *)record_addr) != 0) {
		e->status = VTSCOPE_STATUS_INVALID;
		e->reason = VTSCOPE_REASON_READ_FAULT;
		return;
	}
	__s64 owner_after = 0;
	if (record.valid == 1 && owner_slot &&
	    (bpf_probe_read_user(&owner_after, sizeof(owner_after), (const void *)owner_slot) != 0 || owner_after != id)) {
		e->status = VTSCOPE_STATUS_INVALID;
		e->reason = VTSCOPE_REASON_OWNER_CHANGED;
		return;
	}
	take_record(e, &record);
}

static __always_inline void resolve(struct vtscope_event *e, __u32 tid)
{
	struct vtscope_thread_info *info = bpf_map_lookup_elem(&threads, &tid);
	if (!info) {
		e->status = VTSCOPE_STATUS_UNMAPPED;
		e->reason = VTSCOPE_REASON_NOT_JAVA_THREAD;
		return;
	}
	__s64 id = 0;
	if (read_java_id(info, &id) != 0) {
		e->status = VTSCOPE_STATUS_UNMAPPED;
		e->reason = VTSCOPE_REASON_READ_FAULT;
		return;
	}
	if (id <= 0) {
		e->status = VTSCOPE_STATUS_UNMAPPED;
		e->reason = VTSCOPE_REASON_BAD_ID;
		return;
	}

	__u32 zero = 0;
	struct vtscope_region_info *rg = bpf_map_lookup_elem(&region, &zero);
	struct vtscope_slot snap;
	snap.head.kind = 0;
	bool fault = false;
	__u64 slot = 0;
	if (rg && rg->base)
		slot = find_slot(rg, id, &snap, &fault);
	struct vtscope_slot_owner head = snap.head;

	/* Identity: exact when the carrier's own id is known; otherwise the record's kind,
	 * written by the thread itself, decides; with neither, the event stays unattributed. */
	if (info->own_id) {
		e->mounted_virtual = id != info->own_id;
		if (slot && head.kind != (e->mounted_virtual ? VTSCOPE_KIND_VIRTUAL : VTSCOPE_KIND_PLATFORM)) {
			e->status = VTSCOPE_STATUS_INVALID;
			e->reason = VTSCOPE_REASON_KIND_MISMATCH;
			return;
		}
	} else if (slot && (head.kind == VTSCOPE_KIND_VIRTUAL || head.kind == VTSCOPE_KIND_PLATFORM)) {
		e->mounted_virtual = head.kind == VTSCOPE_KIND_VIRTUAL;
	} else {
		e->status = VTSCOPE_STATUS_UNMAPPED;
		e->reason = VTSCOPE_REASON_AMBIGUOUS;
		return;
	}
	e->java_id = id;

	if (fault) {
		e->status = VTSCOPE_STATUS_INVALID;
		e->reason = VTSCOPE_REASON_READ_FAULT;
		return;
	}
	if (!slot) {
		e->status = VTSCOPE_STATUS_NO_CONTEXT;
		return;
	}
	/*
	 * The snapshot is consistent without a second look at the owner: id is the thread mounted
	 * on this task, which is inside this syscall, so it is alive and not writing its record (only
	 * it writes it), and a slot changes owner only once its owner has ended (a take-over by the
	 * Java writer, or libvtscope's release at VirtualThreadEnd, run by the thread itself). The
	 * owner line was copied before the record (ascending addresses), so a claim it shows had
	 * finished clearing the record.
	 */
	take_record(e, &snap.record);
}

/* otep-tls: resolve-at-read through the carrier's otel_thread_ctx_v1 (x86_64: fs base). */
static __always_inline void resolve_otep_tls(struct vtscope_event *e)
{
	__u32 zero = 0;
	struct vtscope_tls_info *tls = bpf_map_lookup_elem(&thread_context_tls, &zero);
	struct vtscope_region_info *rg = bpf_map_lookup_elem(&region, &zero);
	if (!tls || !tls->present || !rg || !rg->base) {
		e->status = VTSCOPE_STATUS_UNMAPPED;
		e->reason = VTSCOPE_REASON_NO_THREAD_CONTEXT;
		return;
	}
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 fsbase = BPF_CORE_READ(task, thread.fsbase);
	__u64 record = 0;
	if (!fsbase || bpf_probe_read_user(&record, sizeof(record), (const void *)(fsbase + tls->tp_offset)) != 0) {
		e->status = VTSCOPE_STATUS_UNMAPPED;
		e->reason = VTSCOPE_REASON_READ_FAULT;
		return;
	}
	if (!record) {
		e->status = VTSCOPE_STATUS_UNMAPPED;
		e->reason = VTSCOPE_REASON_NO_THREAD_CONTEXT;
		return;
	}
	/* Only a record of the region is read: the pointer must land on a slot's record line. */
	__u64 first = rg->base + VTSCOPE_REGION_HEADER_SIZE;
	__u64 span = (rg->capacity_mask + 1) * VTSCOPE_SLOT_SIZE;
	if (record < first || record - first >= span || (record - first) % VTSCOPE_SLOT_SIZE != VTSCOPE_RECORD_OFFSET) {
		e->status = VTSCOPE_STATUS_INVALID;
		e->reason = VTSCOPE_REASON_OUTSIDE_REGION;
		return;
	}
	__u64 slot = record - VTSCOPE_RECORD_OFFSET;
	struct vtscope_slot_owner head = {};
	if (bpf_probe_read_user(&head, 16, (const void *)slot) != 0) {
		e->status = VTSCOPE_STATUS_INVALID;
		e->reason = VTSCOPE_REASON_READ_FAULT;
		return;
	}
	if (head.owner <= 0) {
		e->status = VTSCOPE_STATUS_INVALID;
		e->reason = VTSCOPE_REASON_OWNER_CHANGED;
		return;
	}
	e->java_id = head.owner;
	e->mounted_virtual = head.kind == VTSCOPE_KIND_VIRTUAL;
	read_record(e, slot + VTSCOPE_RECORD_OFFSET, slot, head.owner);
}

/* Probe channels: the cached mapping of this carrier, read like the paper's consumer. */
static __always_inline void resolve_mapping(struct vtscope_event *e, __u32 tid)
{
	struct vtscope_mapping *m = bpf_map_lookup_elem(&carriers, &tid);
	if (identity_mode == VTSCOPE_IDENTITY_TWO_PROBE && bpf_map_lookup_elem(&pending_unmount, &tid))
		m = 0; /* unmounted, final or not: not mapped for now */
	if (!m) {
		e->status = VTSCOPE_STATUS_UNMAPPED;
		e->reason = VTSCOPE_REASON_NO_LIFECYCLE_MAPPING;
		return;
	}
	e->java_id = m->vid;
	e->mounted_virtual = 1;
	if (!m->record) {
		e->status = VTSCOPE_STATUS_NO_CONTEXT;
		return;
	}
	read_record(e, m->record, 0, m->vid);
}

/* Resolves the thread running this syscall and its trace context, by the configured channel. */
static __always_inline void attribute(struct vtscope_event *e, __u32 tid)
{
	e->java_id = 0;
	e->mounted_virtual = 0;
	e->status = VTSCOPE_STATUS_UNMAPPED;
	e->reason = VTSCOPE_REASON_NONE;
	e->trace_flags = 0;
	__builtin_memset(e->trace_id, 0, sizeof(e->trace_id));
	__builtin_memset(e->span_id, 0, sizeof(e->span_id));
	if (identity_mode == VTSCOPE_IDENTITY_OTEP_TLS)
		resolve_otep_tls(e);
	else if (identity_mode == VTSCOPE_IDENTITY_VMSTRUCTS)
		resolve(e, tid);
	else
		resolve_mapping(e, tid);
}

/* vtscope trace: one event per syscall entry, through the ring buffer. */
SEC("tracepoint")
int on_sys_enter(struct syscall_enter_args *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	if ((pid_tgid >> 32) != target_tgid)
		return 0;
	count(VTSCOPE_COUNTER_EVENTS);
	struct vtscope_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count(VTSCOPE_COUNTER_LOST);
		return 0;
	}
	__u32 tid = (__u32)pid_tgid;
	e->ts_ns = bpf_ktime_get_ns();
	e->pid = pid_tgid >> 32;
	e->tid = tid;
	e->syscall_index = (__u32)bpf_get_attach_cookie(ctx);
	e->args[0] = ctx->args[0];
	e->args[1] = ctx->args[1];
	e->args[2] = ctx->args[2];
	attribute(e, tid);
	count(VTSCOPE_COUNTER_STATUS0 + (e->status & 3));
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
SEC("tracepoint")
int on_sys_enter_stat(struct syscall_enter_args *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	if ((pid_tgid >> 32) != target_tgid)
		return 0;
	count(VTSCOPE_COUNTER_EVENTS);
	struct vtscope_event e;
	attribute(&e, (__u32)pid_tgid);
	struct vtscope_stat_key key = {};
	key.syscall_index = (__u32)bpf_get_attach_cookie(ctx);
	key.status = e.status;
	if (e.status == VTSCOPE_STATUS_OK) {
		key.java_id = e.java_id;
		__builtin_memcpy(key.trace_id, e.trace_id, sizeof(key.trace_id));
		key.mounted_virtual = e.mounted_virtual;
	}
	void *table = (stats_generation & 1) ? (void *)&stats1 : (void *)&stats0;
	struct vtscope_stat_value *value = bpf_map_lookup_elem(table, &key);
	if (!value) {
		/* Another CPU may insert the same key first (EEXIST): the lookup below finds its entry. */
		struct vtscope_stat_value zero = {};
		bpf_map_update_elem(table, &key, &zero, BPF_NOEXIST);
		value = bpf_map_lookup_elem(table, &key);
		if (!value) {
			count(VTSCOPE_COUNTER_LOST); /* the table is full */
			return 0;
		}
	}
	__sync_fetch_and_add(&value->calls, 1);
	__sync_fetch_and_add(&value->arg2_sum, ctx->args[2]);
	return 0;
}
