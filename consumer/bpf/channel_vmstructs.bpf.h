/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Identity channel "vmstructs" (the default): resolve-at-read through HotSpot's
 * JavaThread::_monitor_owner_id (JDK 24+, JEP 491), which holds the Java id of the mounted
 * virtual thread, or the carrier's own id when none is mounted (javaThread.hpp; the carrier
 * itself writes it in JVM_SetCurrentThread on every mount and unmount). On JDK 21-23 the same id
 * is read from the object JavaThread::_vthread refers to (set in the same place), under the
 * collector's rule (vmstructs_read_oop_tid below).
 *
 * The "threads" map gives each kernel tid its JavaThread* and the OS thread's own Java id. The
 * uprobe on JavaThread::run (first code of every new Java thread) fills it synchronously and the
 * uprobe on Threads::remove (the exiting thread unlinks itself before its JavaThread is freed)
 * empties it, so a read through a stale JavaThread* cannot happen. User space adds the threads
 * that existed at attach (consumer/src/channels/channel_vmstructs.cpp).
 */
#ifndef VTSCOPE_CHANNEL_VMSTRUCTS_BPF_H
#define VTSCOPE_CHANNEL_VMSTRUCTS_BPF_H

#include "core.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, VTSCOPE_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct vtscope_thread_info);
} threads SEC(".maps");

/*
 * Bumped after every change of "threads", by the programs here and by user space, which maps it
 * (BPF_F_MMAPABLE) and adds atomically, as the programs do: a cached copy of an entry (below) is
 * used only while the generation it was copied under is still current.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64);
} threads_generation SEC(".maps");

/*
 * Per-CPU copies of recently used "threads" entries, direct-mapped by tid: on the hot path the
 * hash lookup (about 25-30 ns on this VM, bench/RESULTS.md) becomes an inlined array lookup and
 * two compares. Only programs on the CPU itself touch its copies, and tracing programs do not
 * nest on a CPU (bpf_prog_active in trace_call_bpf and in the perf-event overflow handler,
 * kernel/trace/bpf_trace.c, kernel/events/core.c; block's sched_switch raw tracepoint cannot fire
 * inside a program, which runs with preemption off), so no copy is seen half-written.
 */
#define VMSTRUCTS_CACHE_WAYS 16

struct vmstructs_cached_thread {
	__u64 generation;
	__u32 tid;
	__u32 pad;
	struct vtscope_thread_info info;
};

struct vmstructs_thread_cache {
	struct vmstructs_cached_thread ways[VMSTRUCTS_CACHE_WAYS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vmstructs_thread_cache);
} thread_cache SEC(".maps");

/* After any change of "threads": every cached copy is stale from now on. */
static __always_inline void vmstructs_threads_changed(void)
{
	__u32 zero = 0;
	__u64 *generation = bpf_map_lookup_elem(&threads_generation, &zero);
	if (generation)
		__sync_fetch_and_add(generation, 1);
}

/*
 * The "threads" entry of tid, from this CPU's cache when its copy is current. The generation is
 * read before the hash lookup that fills a copy (a helper call is a compiler barrier, and x86
 * does not reorder loads with loads), and every writer changes the map before it bumps the
 * generation: a change that the copy may have missed always leaves a newer generation behind.
 * So a copy is used only where the hash lookup itself could have returned it.
 */
static __always_inline const struct vtscope_thread_info *vmstructs_thread(__u32 tid)
{
	__u32 zero = 0;
	__u64 *generation = bpf_map_lookup_elem(&threads_generation, &zero);
	struct vmstructs_thread_cache *cache = bpf_map_lookup_elem(&thread_cache, &zero);
	if (!generation || !cache)
		return bpf_map_lookup_elem(&threads, &tid);
	__u64 now = *(volatile __u64 *)generation;
	struct vmstructs_cached_thread *way = &cache->ways[tid & (VMSTRUCTS_CACHE_WAYS - 1)];
	if (way->tid == tid && way->generation == now)
		return &way->info;
	struct vtscope_thread_info *info = bpf_map_lookup_elem(&threads, &tid);
	if (!info)
		return 0;
	way->info = *info;
	way->tid = tid;
	way->generation = now;
	return &way->info;
}

/* Java id of the OS thread's mounted thread, read through its JavaThread*. */
static __always_inline int vmstructs_read_java_id(const struct vtscope_thread_info *info, __s64 *id)
{
	return bpf_probe_read_user(id, sizeof(*id),
				   (const void *)(info->java_thread + attribution_config.off_monitor_owner_id));
}

/*
 * JDK 21-23 have no _monitor_owner_id: the Java id is the `long tid` of the thread object that
 * an OopHandle of the JavaThread refers to (_vthread: the mounted thread; _threadObj: the OS
 * thread's own), at java_lang_Thread::_tid_offset. An OopHandle is one pointer to an OopStorage
 * slot, and a slot holds a full-width oop, never a compressed one (oopStorage.hpp: entries are
 * `oop`). The object may move while it is read; each collector's rule below proves it did not,
 * or gives the reason why not (docs/identity-channels.md, "JDK 21"). User space applies the same
 * rules (consumer/src/jvm/oop_identity.cpp).
 *
 * The reads must stay in program order: each is a helper call (the compiler keeps calls in order,
 * and the barriers below also keep it from moving the checks), and x86-64 is TSO: loads are not
 * reordered with older loads, and the collector's stores become visible in the order made.
 */
#define VMSTRUCTS_BARRIER() asm volatile("" ::: "memory")

struct vmstructs_gc_guard {
	__u64 good;  /* ZGC: the good (load good) mask */
	__u32 count; /* STW: CollectedHeap::_total_collections */
	__u32 seq;   /* non-generational ZGC: XGlobalSeqNum */
	__u8 active; /* STW: CollectedHeap::_is_stw_gc_active */
};

/*
 * Serial, Parallel and G1 move objects only inside a stop-the-world pause, and each such pause
 * sets _is_stw_gc_active (IsSTWGCActiveMark) before it moves anything and increments
 * _total_collections while it is set (G1: do_collection_pause_at_safepoint_helper and
 * G1FullGCScope, gc_prologue; Serial: SerialHeap::do_collection; Parallel: PSScavenge::invoke and
 * PSParallelCompact::invoke, pre_compact). A sequence lock then proves a read free of moves: the
 * count before the flag, the object, the flag before the count; a pause that began after the
 * first flag read and ended before the second incremented the count between the two count reads.
 */
static __always_inline int vmstructs_gc_guard(struct vmstructs_gc_guard *g, bool before)
{
	int err = 0;
	switch (attribution_config.oop_rule) {
	case VTSCOPE_OOP_STW:
		if (before) {
			err |= bpf_probe_read_user(&g->count, sizeof(g->count),
						   (const void *)attribution_config.gc_count_addr);
			VMSTRUCTS_BARRIER();
			err |= bpf_probe_read_user(&g->active, sizeof(g->active),
						   (const void *)attribution_config.gc_active_addr);
		} else {
			err |= bpf_probe_read_user(&g->active, sizeof(g->active),
						   (const void *)attribution_config.gc_active_addr);
			VMSTRUCTS_BARRIER();
			err |= bpf_probe_read_user(&g->count, sizeof(g->count),
						   (const void *)attribution_config.gc_count_addr);
		}
		break;
	case VTSCOPE_OOP_XZGC:
		err |= bpf_probe_read_user(&g->good, sizeof(g->good),
					   (const void *)attribution_config.gc_good_mask_addr);
		VMSTRUCTS_BARRIER();
		err |= bpf_probe_read_user(&g->seq, sizeof(g->seq), (const void *)attribution_config.gc_seq_addr);
		break;
	case VTSCOPE_OOP_ZGEN:
		/* The count closes an ABA of the load good mask (below), in the same order as STW's. */
		if (before) {
			err |= bpf_probe_read_user(&g->count, sizeof(g->count),
						   (const void *)attribution_config.gc_count_addr);
			VMSTRUCTS_BARRIER();
			err |= bpf_probe_read_user(&g->good, sizeof(g->good),
						   (const void *)attribution_config.gc_good_mask_addr);
		} else {
			err |= bpf_probe_read_user(&g->good, sizeof(g->good),
						   (const void *)attribution_config.gc_good_mask_addr);
			VMSTRUCTS_BARRIER();
			err |= bpf_probe_read_user(&g->count, sizeof(g->count),
						   (const void *)attribution_config.gc_count_addr);
		}
		break;
	}
	return err;
}

/*
 * The object's address from the slot's content (0: not usable). Non-generational ZGC: a pointer
 * whose metadata bits are exactly the good colour is an address in that colour's view of the
 * multi-mapped heap, and the object is there until the next phase flips the colour. Generational
 * ZGC: a load-good zpointer (no bit of the load bad mask, which is good ^ the remapped bits)
 * decodes as ptr >> ZPointerLoadShiftTable[its remapped bits] (ZPointer::uncolor), and the object
 * is there until the next relocation flips the load good mask (ZGlobalsPointers::
 * flip_young_relocate_start, flip_old_relocate_start). The mask takes one of four values, so it can
 * come back; but two relocation starts of a generation have a mark start of it between them, and
 * every mark start increments _total_collections (VM_ZMarkStartYoung, VM_ZMarkStartYoungAndOld,
 * zGeneration.cpp), which is read around the mask as in the STW rule.
 */
static __always_inline __u64 vmstructs_decode_oop(__u64 raw, __u64 good)
{
	__u64 metadata = attribution_config.gc_metadata_mask;
	switch (attribution_config.oop_rule) {
	case VTSCOPE_OOP_XZGC:
		return (raw & metadata) == good ? raw : 0;
	case VTSCOPE_OOP_ZGEN: {
		__u64 index = (good >> attribution_config.gc_remapped_shift) & (VTSCOPE_ZGEN_SHIFT_TABLE - 1);
		if ((raw & (good ^ metadata)) != 0 || (raw & good) == 0 || index >= 9)
			return 0;
		return raw >> (attribution_config.gc_load_shift[index] & 63);
	}
	default:
		return raw;
	}
}

/* The tid of the object the handle at java_thread + handle_offset refers to: 0 and *tid, or a reason. */
static __always_inline __u8 vmstructs_read_oop_tid(__u64 java_thread, __u64 handle_offset, __s64 *tid)
{
	struct vmstructs_gc_guard before = {}, after = {};
	__u64 slot = 0, raw = 0;
	__s64 value = 0;
	__u32 rule = attribution_config.oop_rule;
	if (bpf_probe_read_user(&slot, sizeof(slot), (const void *)(java_thread + handle_offset)) != 0 || slot == 0)
		return VTSCOPE_REASON_READ_FAULT;
	if (vmstructs_gc_guard(&before, true) != 0)
		return VTSCOPE_REASON_READ_FAULT;
	if (rule == VTSCOPE_OOP_STW && before.active)
		return VTSCOPE_REASON_GC_PAUSE;
	VMSTRUCTS_BARRIER();
	if (bpf_probe_read_user(&raw, sizeof(raw), (const void *)slot) != 0)
		return VTSCOPE_REASON_READ_FAULT;
	__u64 object = vmstructs_decode_oop(raw, before.good);
	if (object == 0)
		return rule == VTSCOPE_OOP_XZGC || rule == VTSCOPE_OOP_ZGEN ? VTSCOPE_REASON_GC_POINTER_NOT_GOOD
									    : VTSCOPE_REASON_BAD_ID;
	VMSTRUCTS_BARRIER();
	int fault = bpf_probe_read_user(&value, sizeof(value), (const void *)(object + attribution_config.off_tid));
	VMSTRUCTS_BARRIER();
	if (vmstructs_gc_guard(&after, false) != 0)
		return VTSCOPE_REASON_READ_FAULT;
	if (rule == VTSCOPE_OOP_STW && (after.active || after.count != before.count))
		return VTSCOPE_REASON_GC_PAUSE;
	if (after.good != before.good || after.seq != before.seq ||
	    (rule == VTSCOPE_OOP_ZGEN && after.count != before.count))
		return VTSCOPE_REASON_GC_PHASE_CHANGED;
	if (fault != 0)
		return VTSCOPE_REASON_READ_FAULT;
	if (value <= 0)
		return VTSCOPE_REASON_BAD_ID;
	*tid = value;
	return VTSCOPE_REASON_NONE;
}

SEC("uprobe") /* BPF_KPROBE: libbpf 1.1 has no BPF_UPROBE; the argument access is the same */
int BPF_KPROBE(on_java_thread_run, void *java_thread)
{
	if (!vtscope_is_target())
		return 0;
	__u32 tid = vtscope_current_tid();
	struct vtscope_thread_info info = {.java_thread = (__u64)java_thread, .own_id = 0};
	/* A new thread has mounted nothing yet: the id is its own (JavaThread::prepare set it). */
	__s64 id = 0;
	if (attribution_config.oop_rule != VTSCOPE_OOP_NONE) {
		/* JDK 21-23: the tid of its own object; when not proven, user space reads it later. */
		if (vmstructs_read_oop_tid(info.java_thread, attribution_config.off_thread_obj, &id) ==
		    VTSCOPE_REASON_NONE)
			info.own_id = id;
	} else if (vmstructs_read_java_id(&info, &id) == 0 && id > 0) {
		info.own_id = id;
	}
	bpf_map_update_elem(&threads, &tid, &info, BPF_ANY);
	vmstructs_threads_changed();
	vtscope_count(VTSCOPE_COUNTER_THREADS_STARTED);
	return 0;
}

SEC("uprobe") /* BPF_KPROBE: libbpf 1.1 has no BPF_UPROBE; the argument access is the same */
int BPF_KPROBE(on_threads_remove, void *java_thread)
{
	if (!vtscope_is_target())
		return 0;
	__u32 tid = vtscope_current_tid();
	struct vtscope_thread_info *info = bpf_map_lookup_elem(&threads, &tid);
	if (info && info->java_thread == (__u64)java_thread) {
		bpf_map_delete_elem(&threads, &tid);
		vmstructs_threads_changed();
	}
	vtscope_count(VTSCOPE_COUNTER_THREADS_REMOVED);
	return 0;
}

/*
 * virtual_only: the caller keeps only events of a mounted virtual thread (vtscope_attribute_virtual).
 * The record is then not looked up for an OS thread that runs as itself, whose Java id is its own:
 * for an id without a slot the search reads every slot of its chain (up to VTSCOPE_MAX_PROBE reads
 * of target memory) once released slots fill the region, which a long-running service with a
 * virtual thread per request reaches (bench/RESULTS.md, vtscope block on the demo service).
 */
static __always_inline void resolve_vmstructs(struct vtscope_attribution *a, __u32 tid, bool virtual_only)
{
	const struct vtscope_thread_info *info = vmstructs_thread(tid);
	if (!info) {
		vtscope_set(a, VTSCOPE_STATUS_UNMAPPED, VTSCOPE_REASON_NOT_JAVA_THREAD);
		return;
	}
	__s64 id = 0;
	if (attribution_config.oop_rule != VTSCOPE_OOP_NONE) {
		/* JDK 21-23: a read the collector may have raced says why; the identity stays unknown. */
		__u8 reason = vmstructs_read_oop_tid(info->java_thread, attribution_config.off_vthread, &id);
		if (reason == VTSCOPE_REASON_GC_PAUSE || reason == VTSCOPE_REASON_GC_POINTER_NOT_GOOD ||
		    reason == VTSCOPE_REASON_GC_PHASE_CHANGED) {
			vtscope_set(a, VTSCOPE_STATUS_CONTEXT_UNKNOWN, reason);
			return;
		}
		if (reason != VTSCOPE_REASON_NONE) {
			vtscope_set(a, VTSCOPE_STATUS_UNMAPPED, reason);
			return;
		}
	} else if (vmstructs_read_java_id(info, &id) != 0) {
		vtscope_set(a, VTSCOPE_STATUS_UNMAPPED, VTSCOPE_REASON_READ_FAULT);
		return;
	}
	if (id <= 0) {
		vtscope_set(a, VTSCOPE_STATUS_UNMAPPED, VTSCOPE_REASON_BAD_ID);
		return;
	}
	if (virtual_only && info->own_id && id == info->own_id) {
		a->java_id = id; /* mounted_virtual stays 0: the caller drops the event */
		vtscope_set(a, VTSCOPE_STATUS_CONTEXT_UNKNOWN, VTSCOPE_REASON_NONE);
		return;
	}

	struct vtscope_region_info *rg = vtscope_region();
	struct vtscope_slot snap;
	snap.head.kind = 0;
	bool fault = false;
	__u64 slot = rg ? vtscope_find_slot(rg, id, &snap, &fault) : 0;
	__u8 kind = snap.head.kind;

	/* Identity: exact when the carrier's own id is known; otherwise the record's kind, written
	 * by the thread itself, decides; with neither, the event stays unattributed. */
	if (info->own_id) {
		a->mounted_virtual = id != info->own_id;
		if (slot && kind != (a->mounted_virtual ? VTSCOPE_KIND_VIRTUAL : VTSCOPE_KIND_PLATFORM)) {
			vtscope_set(a, VTSCOPE_STATUS_INVALID, VTSCOPE_REASON_KIND_MISMATCH);
			return;
		}
	} else if (slot && (kind == VTSCOPE_KIND_VIRTUAL || kind == VTSCOPE_KIND_PLATFORM)) {
		a->mounted_virtual = kind == VTSCOPE_KIND_VIRTUAL;
	} else {
		vtscope_set(a, VTSCOPE_STATUS_UNMAPPED, VTSCOPE_REASON_AMBIGUOUS);
		return;
	}
	a->java_id = id;

	if (fault) {
		vtscope_set(a, VTSCOPE_STATUS_INVALID, VTSCOPE_REASON_READ_FAULT);
		return;
	}
	if (!rg) {
		/* No region in the target (yet): nothing says whether a span is current. */
		vtscope_set(a, VTSCOPE_STATUS_CONTEXT_UNKNOWN, VTSCOPE_REASON_NO_RECORD_REGION);
		return;
	}
	if (!slot) {
		vtscope_no_slot(a, rg);
		return;
	}
	/*
	 * The snapshot is consistent without a second look at the owner: id is the thread mounted on
	 * this task, which is inside the traced kernel code, so it is alive and not writing its
	 * record (only it writes it), and a slot changes owner only once its owner has ended (a
	 * take-over by the Java writer, or libvtscope's release at VirtualThreadEnd, run by the
	 * thread itself). The owner line was copied before the record (ascending addresses), so a
	 * claim it shows had finished clearing the record.
	 */
	vtscope_take_record(a, &snap.record);
}

#endif /* VTSCOPE_CHANNEL_VMSTRUCTS_BPF_H */
