/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The attribution core's shared part: its configuration, the target filter, the counters, the
 * record region and the one reader of OTEP 4947 records (common/vtscope_record.h). The identity
 * channels (channel_*.bpf.h) build on it; event sources include attribution.bpf.h, never this.
 */
#ifndef VTSCOPE_CORE_BPF_H
#define VTSCOPE_CORE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "../../common/vtscope_record.h"
#include "attribution.h"

/* Filled by user space before load (consumer/src/core/attribution_core.cpp). */
const volatile struct vtscope_attribution_config attribution_config = {};

/* Sized for one JVM's threads; shared by the channels that key by kernel tid. */
#define VTSCOPE_MAX_THREADS 65536

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vtscope_region_info);
} region SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, VTSCOPE_COUNTER_COUNT);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

static __always_inline void vtscope_count(__u32 which)
{
	__u64 *value = bpf_map_lookup_elem(&counters, &which);
	if (value)
		*value += 1;
}

/*
 * An event source's two count tables, NAME0 and NAME1, and NAME_generation: the programs count
 * into table (NAME_generation & 1) while user space drains the other (consumer/src/output/sinks.h,
 * CountTables), so a long run never fills them. Entries are allocated on insert
 * (BPF_F_NO_PREALLOC): a deleted entry is freed only after the programs that may still hold it have
 * finished, so a late increment is lost at worst, never added to another key.
 */
#define VTSCOPE_COUNT_TABLES(name, key_type, value_type, entries)                                                      \
	struct name##_map {                                                                                            \
		__uint(type, BPF_MAP_TYPE_HASH);                                                                       \
		__uint(max_entries, entries);                                                                          \
		__uint(map_flags, BPF_F_NO_PREALLOC);                                                                  \
		__type(key, key_type);                                                                                 \
		__type(value, value_type);                                                                             \
	};                                                                                                             \
	struct name##_map name##0 SEC(".maps");                                                                        \
	struct name##_map name##1 SEC(".maps");                                                                        \
	volatile __u32 name##_generation = 0 /* written by user space between drains */

/*
 * The entry of key in one of an event source's count tables (a hash map of counts that user space
 * drains), inserted as *zero when missing; 0 when the table is full, counted as lost. Another CPU
 * may insert the same key first (EEXIST): the second lookup then finds its entry.
 */
static __always_inline void *vtscope_count_entry(void *table, const void *key, const void *zero)
{
	void *value = bpf_map_lookup_elem(table, key);
	if (value)
		return value;
	bpf_map_update_elem(table, key, zero, BPF_NOEXIST);
	value = bpf_map_lookup_elem(table, key);
	if (!value)
		vtscope_count(VTSCOPE_COUNTER_LOST);
	return value;
}

static __always_inline bool vtscope_is_target(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == attribution_config.target_tgid;
}

static __always_inline __u32 vtscope_current_tid(void)
{
	return (__u32)bpf_get_current_pid_tgid();
}

static __always_inline void vtscope_set(struct vtscope_attribution *a, __u8 status, __u8 reason)
{
	a->status = status;
	a->reason = reason;
}

/* The bytes of a record that attribution uses: ids, valid and flags (not the attributes). */
#define VTSCOPE_RECORD_USED_BYTES (offsetof(struct vtscope_record, attrs_size))
/* A slot's owner line and the used part of its record, read in one copy. */
#define VTSCOPE_SLOT_SNAPSHOT_BYTES (VTSCOPE_RECORD_OFFSET + VTSCOPE_RECORD_USED_BYTES)
/* The part of an owner line that identifies the owner: its id and kind. */
#define VTSCOPE_OWNER_ID_KIND_BYTES (offsetof(struct vtscope_slot_owner, kind) + sizeof(__u8))

/*
 * The rest of a chain after its home slot, copied from the target at once (per CPU: an
 * attributing program never runs inside another one on its CPU, as the staging buffers rely on
 * in the event sources).
 */
struct vtscope_chain {
	/* Twice the chain's length: the verifier bounds the second copy's offset and size apart, so
	 * the buffer must hold the largest of each together; only the first half is used. */
	struct vtscope_slot slots[2 * (VTSCOPE_MAX_PROBE - 1)];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vtscope_chain);
} chain_scratch SEC(".maps");

/* Copies `count` (1..VTSCOPE_MAX_PROBE - 1) whole slots starting at `first` into chain->slots[at..]. */
static __always_inline int vtscope_copy_slots(struct vtscope_chain *chain, __u32 at, __u64 first, __u32 count)
{
	if (at >= VTSCOPE_MAX_PROBE - 1 || count == 0 || count > VTSCOPE_MAX_PROBE - 1 - at)
		return -1;
	return bpf_probe_read_user(&chain->slots[at], count * sizeof(struct vtscope_slot), (const void *)first);
}

/*
 * Finds the slot owned by java_id (the linear-probing search of common/vtscope_record.h) and
 * leaves its snapshot in *snap; returns its address or 0. Sets *fault on a failed read. The home
 * slot, where a thread's slot almost always is, is copied with its record in one read. Past it the
 * rest of the chain is copied whole in one read (two where it wraps around the table's end)
 * rather than one read per slot: a search for an id that has no slot reads every slot of its
 * chain once released slots fill the region (a long-running service with a virtual thread per
 * request), and each read of target memory costs some 40 ns (bench/RESULTS.md). Each slot is
 * still copied in ascending order, owner line before record.
 */
static __always_inline __u64 vtscope_find_slot(const struct vtscope_region_info *rg, __s64 java_id,
					       struct vtscope_slot *snap, bool *fault)
{
	__u64 home = vtscope_slot_address(rg->base, rg->capacity_mask, java_id, 0);
	if (bpf_probe_read_user(snap, VTSCOPE_SLOT_SNAPSHOT_BYTES, (const void *)home) != 0) {
		*fault = true;
		return 0;
	}
	if (snap->head.owner == java_id)
		return home;
	if (snap->head.owner == VTSCOPE_OWNER_FREE)
		return 0;

	__u32 zero = 0;
	struct vtscope_chain *chain = bpf_map_lookup_elem(&chain_scratch, &zero);
	if (!chain) {
		*fault = true;
		return 0;
	}
	/* Slots 1..VTSCOPE_MAX_PROBE-1 of the chain: up to the table's end, then from its start. */
	__u64 table = rg->base + VTSCOPE_REGION_HEADER_SIZE;
	__u64 home_index = ((__u64)java_id) & rg->capacity_mask;
	__u64 to_end = rg->capacity_mask - home_index; /* slots after home before the end */
	__u32 first = to_end < VTSCOPE_MAX_PROBE - 1 ? (__u32)to_end : VTSCOPE_MAX_PROBE - 1;
	if ((first > 0 && vtscope_copy_slots(chain, 0, home + VTSCOPE_SLOT_SIZE, first) != 0) ||
	    (first < VTSCOPE_MAX_PROBE - 1 &&
	     vtscope_copy_slots(chain, first, table, VTSCOPE_MAX_PROBE - 1 - first) != 0)) {
		*fault = true;
		return 0;
	}
	for (__u32 i = 0; i < VTSCOPE_MAX_PROBE - 1; i++) {
		const struct vtscope_slot *s = &chain->slots[i];
		if (s->head.owner == java_id) {
			__builtin_memcpy(&snap->head, &s->head, VTSCOPE_OWNER_ID_KIND_BYTES);
			__builtin_memcpy(&snap->record, &s->record, VTSCOPE_RECORD_USED_BYTES);
			return vtscope_slot_address(rg->base, rg->capacity_mask, java_id, i + 1);
		}
		if (s->head.owner == VTSCOPE_OWNER_FREE)
			return 0;
	}
	return 0;
}

static __always_inline bool vtscope_all_zero(const __u8 *bytes, int n)
{
	__u8 acc = 0;
	for (int i = 0; i < n; i++)
		acc |= bytes[i];
	return acc == 0;
}

/* Status and context from a copy of an OTEP 4947 record (the valid-flag protocol). */
static __always_inline void vtscope_take_record(struct vtscope_attribution *a, const struct vtscope_record *record)
{
	if (record->valid != 1) {
		if (vtscope_all_zero(record->trace_id, sizeof(record->trace_id)))
			vtscope_set(a, VTSCOPE_STATUS_NO_CONTEXT, VTSCOPE_REASON_NONE);
		else
			vtscope_set(a, VTSCOPE_STATUS_INVALID, VTSCOPE_REASON_TORN);
		return;
	}
	__builtin_memcpy(a->trace_id, record->trace_id, sizeof(a->trace_id));
	__builtin_memcpy(a->span_id, record->span_id, sizeof(a->span_id));
	a->trace_flags = record->trace_flags;
	vtscope_set(a, VTSCOPE_STATUS_OK, VTSCOPE_REASON_NONE);
}

/*
 * Reads the OTEP 4947 record at record_addr. With owner_slot set, the slot's owner must still be
 * id after the read (otep-tls, whose pointer comes from a thread-local); the probe channels pass
 * 0 and trust their cached address, as the paper's reader does.
 */
static __always_inline void vtscope_read_record(struct vtscope_attribution *a, __u64 record_addr, __u64 owner_slot,
						__s64 id)
{
	struct vtscope_record record;
	if (bpf_probe_read_user(&record, VTSCOPE_RECORD_USED_BYTES, (const void *)record_addr) != 0) {
		vtscope_set(a, VTSCOPE_STATUS_INVALID, VTSCOPE_REASON_READ_FAULT);
		return;
	}
	__s64 owner_after = 0;
	if (record.valid == 1 && owner_slot &&
	    (bpf_probe_read_user(&owner_after, sizeof(owner_after), (const void *)owner_slot) != 0 ||
	     owner_after != id)) {
		vtscope_set(a, VTSCOPE_STATUS_INVALID, VTSCOPE_REASON_OWNER_CHANGED);
		return;
	}
	vtscope_take_record(a, &record);
}

/*
 * Region discovery without a window. The writer creates its region with memfd_create(
 * VTSCOPE_REGION_NAME) and mmap of that descriptor, then fills the header and stores its magic
 * last, with release (java/vtscope-java/.../RecordRegion.java); only then does any thread claim
 * a slot. The programs below follow those two syscalls of the target, so the moment mmap returns
 * the region's base is known here, pending validation ("region" holds the base with capacity_mask
 * 0). The first attribution that needs the region validates the header itself: the header is
 * copied in one ascending read, magic first, and on x86 (TSO) loads are not reordered with other
 * loads, so a magic seen means every field stored before it is seen too. Until the magic is
 * there no slot can have been claimed, so "no record" is the truth, not a guess. User space
 * (AttributionCore) finds a region that existed before attach in /proc/PID/maps.
 *
 * On JDK 21 the writer has no memfd_create (FFM is a preview there): it creates
 * VTSCOPE_REGION_FILE_PREFIX<pid>-<random> with openat(O_CREAT | O_EXCL) and maps it
 * (RegionMapping.java); that openat is followed as memfd_create is. Its fallback under
 * java.io.tmpdir (when /dev/shm cannot take the file) is found by the maps rescan only.
 */
struct region_syscall_enter {
	__u64 common;
	__s32 syscall_nr;
	__u32 pad;
	__u64 args[6];
};

struct region_syscall_exit {
	__u64 common;
	__s32 syscall_nr;
	__u32 pad;
	__s64 ret;
};

#define REGION_PENDING_MEMFD 1 /* inside memfd_create(VTSCOPE_REGION_NAME) or openat of the region's file */
#define REGION_PENDING_MMAP  2 /* inside mmap of the region's descriptor */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);   /* kernel tid */
	__type(value, __u32); /* REGION_PENDING_* */
} region_pending SEC(".maps");

/* The descriptor memfd_create returned for the region, -1 while none. */
volatile __s64 region_fd = -1;

static __always_inline void region_creation_entered(void)
{
	__u32 tid = vtscope_current_tid();
	__u32 state = REGION_PENDING_MEMFD;
	bpf_map_update_elem(&region_pending, &tid, &state, BPF_ANY);
}

SEC("tracepoint/syscalls/sys_enter_memfd_create")
int on_region_memfd_enter(struct region_syscall_enter *ctx)
{
	if (!vtscope_is_target())
		return 0;
	static const char expected[] = VTSCOPE_REGION_NAME;
	char name[sizeof(expected)] = {};
	if (bpf_probe_read_user_str(name, sizeof(name), (const void *)ctx->args[0]) != sizeof(expected))
		return 0;
	for (int i = 0; i < sizeof(expected); i++)
		if (name[i] != expected[i])
			return 0;
	region_creation_entered();
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_openat")
int on_region_openat_enter(struct region_syscall_enter *ctx)
{
	if (!vtscope_is_target())
		return 0;
	static const char prefix[] = VTSCOPE_REGION_FILE_PREFIX;
	char path[sizeof(prefix)] = {};
	/* A longer path is cut to the prefix's length: the read's result is then sizeof(prefix). */
	if (bpf_probe_read_user_str(path, sizeof(path), (const void *)ctx->args[1]) != sizeof(prefix))
		return 0;
	for (int i = 0; i < sizeof(prefix) - 1; i++)
		if (path[i] != prefix[i])
			return 0;
	region_creation_entered();
	return 0;
}

/* Attached to sys_exit_memfd_create and sys_exit_openat: the descriptor of the pending creation. */
SEC("tracepoint/syscalls/sys_exit_memfd_create")
int on_region_memfd_exit(struct region_syscall_exit *ctx)
{
	if (!vtscope_is_target())
		return 0;
	__u32 tid = vtscope_current_tid();
	__u32 *state = bpf_map_lookup_elem(&region_pending, &tid);
	if (!state || *state != REGION_PENDING_MEMFD)
		return 0;
	bpf_map_delete_elem(&region_pending, &tid);
	if (ctx->ret >= 0)
		region_fd = ctx->ret;
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_mmap")
int on_region_mmap_enter(struct region_syscall_enter *ctx)
{
	if (!vtscope_is_target() || region_fd < 0 || (__s64)(__s32)ctx->args[4] != region_fd || ctx->args[5] != 0)
		return 0;
	__u32 tid = vtscope_current_tid();
	__u32 state = REGION_PENDING_MMAP;
	bpf_map_update_elem(&region_pending, &tid, &state, BPF_ANY);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_mmap")
int on_region_mmap_exit(struct region_syscall_exit *ctx)
{
	if (!vtscope_is_target())
		return 0;
	__u32 tid = vtscope_current_tid();
	__u32 *state = bpf_map_lookup_elem(&region_pending, &tid);
	if (!state || *state != REGION_PENDING_MMAP)
		return 0;
	bpf_map_delete_elem(&region_pending, &tid);
	__u32 zero = 0;
	struct vtscope_region_info *rg = bpf_map_lookup_elem(&region, &zero);
	/* -4095..-1 are errors (include/linux/err.h); a region already known is kept. */
	if (rg && !rg->base && (__u64)ctx->ret < (__u64)-4095) {
		rg->capacity_mask = 0;
		rg->base = ctx->ret;
	}
	return 0;
}

/* Validates a pending region's header (common/vtscope_record.h); true once it is usable. */
static __always_inline bool vtscope_validate_pending(struct vtscope_region_info *rg)
{
	struct vtscope_region_header header;
	if (bpf_probe_read_user(&header, sizeof(header), (const void *)rg->base) != 0)
		return false;
	if (header.magic != VTSCOPE_REGION_MAGIC)
		return false; /* not complete yet: no slot can be claimed before the magic */
	__u32 capacity = header.capacity;
	if (header.version != VTSCOPE_REGION_VERSION || header.header_size != VTSCOPE_REGION_HEADER_SIZE ||
	    header.slot_size != VTSCOPE_SLOT_SIZE || header.record_offset != VTSCOPE_RECORD_OFFSET ||
	    header.max_probe != VTSCOPE_MAX_PROBE || header.writer_pid != attribution_config.target_ns_tgid ||
	    capacity < 2 || (capacity & (capacity - 1)) != 0) {
		/* (a one-slot region would read as pending forever; no writer makes one: the minimum is 64) */
		rg->base = 0; /* not a region of this protocol: user space reports it from the maps */
		return false;
	}
	rg->capacity_mask = capacity - 1;
	return true;
}

/*
 * A thread with no slot has never published a context (a slot is claimed at the first
 * publication), unless its claim found the table full: the writer counts such claims in the
 * header (records_unavailable), and then "no slot" no longer proves "no context".
 */
static __always_inline void vtscope_no_slot(struct vtscope_attribution *a, const struct vtscope_region_info *rg)
{
	__u64 unavailable = 0;
	const void *counter = (const void *)(rg->base + offsetof(struct vtscope_region_header, records_unavailable));
	if (bpf_probe_read_user(&unavailable, sizeof(unavailable), counter) != 0)
		vtscope_set(a, VTSCOPE_STATUS_INVALID, VTSCOPE_REASON_READ_FAULT);
	else if (unavailable)
		vtscope_set(a, VTSCOPE_STATUS_CONTEXT_UNKNOWN, VTSCOPE_REASON_RECORD_TABLE_FULL);
	else
		vtscope_set(a, VTSCOPE_STATUS_NO_CONTEXT, VTSCOPE_REASON_NONE);
}

static __always_inline struct vtscope_region_info *vtscope_region(void)
{
	__u32 zero = 0;
	struct vtscope_region_info *rg = bpf_map_lookup_elem(&region, &zero);
	if (!rg || !rg->base)
		return 0;
	if (!rg->capacity_mask && !vtscope_validate_pending(rg))
		return 0;
	return rg;
}

/*
 * A thread without a context (a record holding none, or no record) has no span current only if a
 * context writer keeps the records current: the writers declare themselves in the header's
 * context_writers (common/vtscope_record.h). Without one, the native library's records claimed at
 * thread start stay zero whatever spans the application makes current, so the status becomes
 * context_unknown. The bits are never cleared, so once seen they are kept in the region's map
 * entry and later events read nothing.
 */
static __always_inline void vtscope_require_context_writer(struct vtscope_attribution *a)
{
	struct vtscope_region_info *rg = vtscope_region();
	if (!rg) {
		vtscope_set(a, VTSCOPE_STATUS_CONTEXT_UNKNOWN, VTSCOPE_REASON_NO_CONTEXT_WRITER);
		return;
	}
	if (rg->context_writers)
		return;
	__u32 writers = 0;
	const void *field = (const void *)(rg->base + offsetof(struct vtscope_region_header, context_writers));
	if (bpf_probe_read_user(&writers, sizeof(writers), field) != 0)
		vtscope_set(a, VTSCOPE_STATUS_INVALID, VTSCOPE_REASON_READ_FAULT);
	else if (!writers)
		vtscope_set(a, VTSCOPE_STATUS_CONTEXT_UNKNOWN, VTSCOPE_REASON_NO_CONTEXT_WRITER);
	else
		rg->context_writers = writers;
}

#endif /* VTSCOPE_CORE_BPF_H */
