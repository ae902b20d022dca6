/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Boundary between vtscope_trace.bpf.c and the vtscope user space: the event record sent through
 * the ring buffer, the per-thread map value, the record-region map value and the counters.
 */
#ifndef VTSCOPE_TRACE_EVENT_H
#define VTSCOPE_TRACE_EVENT_H

#ifndef __BPF__
#include <linux/types.h> /* vmlinux.h supplies these in BPF programs */
#endif

/* Attribution status of one event (JSON "status"). */
enum vtscope_status {
	VTSCOPE_STATUS_OK = 0,         /* identity known, record valid: trace context attributed */
	VTSCOPE_STATUS_NO_CONTEXT = 1, /* identity known, the thread has no context published */
	VTSCOPE_STATUS_INVALID = 2,    /* a record exists but could not be read consistently */
	VTSCOPE_STATUS_UNMAPPED = 3,   /* the OS thread's Java identity could not be resolved */
	VTSCOPE_STATUS_COUNT = 4,
};

/* Why an event is unmapped or invalid (JSON "reason", only when not ok/no_context). */
enum vtscope_reason {
	VTSCOPE_REASON_NONE = 0,
	VTSCOPE_REASON_NOT_JAVA_THREAD = 1,  /* tid not (yet) known as a live JavaThread */
	VTSCOPE_REASON_READ_FAULT = 2,       /* a read of target memory failed */
	VTSCOPE_REASON_BAD_ID = 3,           /* _monitor_owner_id was not a positive thread id */
	VTSCOPE_REASON_AMBIGUOUS = 4,        /* carrier's own id unknown and no record names the kind */
	VTSCOPE_REASON_TORN = 5,             /* valid flag clear while a rewrite was in progress */
	VTSCOPE_REASON_OWNER_CHANGED = 6,    /* slot owner changed while the record was read */
	VTSCOPE_REASON_KIND_MISMATCH = 7,    /* record kind contradicts the carrier's own id */
	VTSCOPE_REASON_NO_THREAD_CONTEXT = 8, /* otep-tls: otel_thread_ctx_v1 is null on this thread */
	VTSCOPE_REASON_OUTSIDE_REGION = 9,   /* otep-tls: the pointer is not a record of the region */
	VTSCOPE_REASON_NO_LIFECYCLE_MAPPING = 10, /* probe channels: no virtual thread mapped on this carrier */
};

/* How the identity plane is resolved (vtscope trace --identity). */
enum vtscope_identity_mode {
	VTSCOPE_IDENTITY_VMSTRUCTS = 0,  /* JavaThread::_monitor_owner_id, resolve-at-read */
	VTSCOPE_IDENTITY_OTEP_TLS = 1,   /* the carrier's otel_thread_ctx_v1 pointer, resolve-at-read */
	VTSCOPE_IDENTITY_LIFECYCLE = 2,  /* the paper's four-probe rules over libvtscope.so's probes */
	VTSCOPE_IDENTITY_TWO_PROBE = 3,  /* freeze/thaw only (mount/unmount), the paper's ablation */
	VTSCOPE_IDENTITY_HOTSPOT = 4,    /* four-probe rules over the paper's hotspot:vthread__* ABI */
};

/* Value of the "carriers" map of the probe channels: what is mounted on a carrier (tid). */
struct vtscope_mapping {
	__s64 vid;             /* Java id of the virtual thread */
	__u64 record;          /* its record address, cached from the probe (0: none) */
};

struct vtscope_event {
	__u64 ts_ns;           /* bpf_ktime_get_ns (CLOCK_MONOTONIC) */
	__u32 pid;             /* tgid */
	__u32 tid;             /* kernel tid */
	__s64 java_id;         /* _monitor_owner_id read at the event, 0 when unresolved */
	__u8 mounted_virtual;  /* 1 when java_id names a mounted virtual thread */
	__u8 status;           /* enum vtscope_status */
	__u8 reason;           /* enum vtscope_reason */
	__u8 trace_flags;
	__u32 syscall_index;   /* index into the user's --syscalls list (attach cookie) */
	__u8 trace_id[16];
	__u8 span_id[8];
	__u64 args[3];         /* first three syscall arguments */
};

/*
 * Key of the "stats" maps (vtscope stat): what one syscall entry is counted under. Only what the
 * per-trace report needs, so that keys stay few: for a status other than ok, java_id, trace_id
 * and mounted_virtual are 0 (the report counts those events per status only).
 */
struct vtscope_stat_key {
	__s64 java_id;         /* as in vtscope_event */
	__u8 trace_id[16];
	__u32 syscall_index;
	__u8 status;
	__u8 mounted_virtual;
	__u8 pad[2];
};

/* Value of the "stats" maps, shared by all CPUs (atomic adds). */
struct vtscope_stat_value {
	__u64 calls;
	__u64 arg2_sum;        /* sum of the third argument: bytes requested by read/write-like calls */
};

/* Value of the "threads" map, keyed by kernel tid. */
struct vtscope_thread_info {
	__u64 java_thread;     /* JavaThread* in the target */
	__s64 own_id;          /* the OS thread's own Java thread id, 0 when not known */
};

/* Value of the single-entry "region" map: where the record region lies in the target. */
struct vtscope_region_info {
	__u64 base;            /* start address of the mapping, 0 while not found */
	__u64 capacity_mask;   /* capacity - 1 */
};

/* Value of the single-entry "thread_context_tls" map (otep-tls mode). */
struct vtscope_tls_info {
	__s64 tp_offset;       /* otel_thread_ctx_v1 = thread pointer + tp_offset */
	__u64 present;         /* 1 once found in the target */
};

enum vtscope_counter {
	VTSCOPE_COUNTER_EVENTS = 0,   /* syscall entries of the target seen */
	VTSCOPE_COUNTER_LOST = 1,     /* events dropped because the ring buffer was full */
	VTSCOPE_COUNTER_STATUS0 = 2,  /* + status: per-status counts of delivered events */
	VTSCOPE_COUNTER_THREADS_STARTED = 6,  /* JavaThread::run entries seen */
	VTSCOPE_COUNTER_THREADS_REMOVED = 7,  /* Threads::remove entries seen */
	VTSCOPE_COUNTER_INSERTS = 8,          /* probe channels: mappings inserted */
	VTSCOPE_COUNTER_DELETES = 9,          /* probe channels: mappings deleted */
	VTSCOPE_COUNTER_UNMOUNT_UNMAPPED = 10, /* unmount/freeze(ok) that found no mapping */
	VTSCOPE_COUNTER_END_UNMAPPED = 11,    /* end that found no mapping */
	VTSCOPE_COUNTER_COUNT = 12,
};

#ifdef __cplusplus
static_assert(sizeof(struct vtscope_event) == 80, "event layout shared with BPF");
static_assert(sizeof(struct vtscope_thread_info) == 16, "map value layout shared with BPF");
static_assert(sizeof(struct vtscope_stat_key) == 32, "map key layout shared with BPF");
static_assert(sizeof(struct vtscope_stat_value) == 16, "map value layout shared with BPF");
static_assert(sizeof(struct vtscope_region_info) == 16, "map value layout shared with BPF");
static_assert(sizeof(struct vtscope_tls_info) == 16, "map value layout shared with BPF");
static_assert(sizeof(struct vtscope_mapping) == 16, "map value layout shared with BPF");
#endif

#endif /* VTSCOPE_TRACE_EVENT_H */
