/* SPDX-License-Identifier: GPL-2.0-only OR Apache-2.0 */
/*
 * The attribution core's boundary with user space: what "which Java thread runs on this task,
 * and what is its record" resolves to (struct vtscope_attribution, its statuses and reasons),
 * the core's configuration, the values of its maps and its counters. Every event source of the
 * consumer (consumer/bpf/<source>.bpf.c) includes attribution.bpf.h and embeds one
 * vtscope_attribution in what it reports; user space reads them through this header.
 */
#ifndef VTSCOPE_ATTRIBUTION_H
#define VTSCOPE_ATTRIBUTION_H

#ifndef __BPF__
#include <linux/types.h> /* vmlinux.h supplies these in BPF programs */
#endif

/* Attribution status of one event (JSON "status"). */
enum vtscope_status {
	VTSCOPE_STATUS_OK = 0,		    /* identity known, record valid: trace context attributed */
	VTSCOPE_STATUS_NO_CONTEXT = 1,	    /* identity known, the thread has no context published */
	VTSCOPE_STATUS_INVALID = 2,	    /* a record exists but could not be read consistently */
	VTSCOPE_STATUS_UNMAPPED = 3,	    /* the OS thread's Java identity could not be resolved */
	VTSCOPE_STATUS_CONTEXT_UNKNOWN = 4, /* identity known; whether a span is current cannot be known */
	VTSCOPE_STATUS_COUNT = 5,
};

/* Why an event is unmapped, invalid or context_unknown (JSON "reason", only when not ok/no_context). */
enum vtscope_reason {
	VTSCOPE_REASON_NONE = 0,
	VTSCOPE_REASON_NOT_JAVA_THREAD = 1,	  /* tid not (yet) known as a live JavaThread */
	VTSCOPE_REASON_READ_FAULT = 2,		  /* a read of target memory failed */
	VTSCOPE_REASON_BAD_ID = 3,		  /* _monitor_owner_id was not a positive thread id */
	VTSCOPE_REASON_AMBIGUOUS = 4,		  /* carrier's own id unknown and no record names the kind */
	VTSCOPE_REASON_TORN = 5,		  /* valid flag clear while a rewrite was in progress */
	VTSCOPE_REASON_OWNER_CHANGED = 6,	  /* slot owner changed while the record was read */
	VTSCOPE_REASON_KIND_MISMATCH = 7,	  /* record kind contradicts the carrier's own id */
	VTSCOPE_REASON_NO_THREAD_CONTEXT = 8,	  /* otep-tls: otel_thread_ctx_v1 is null on this thread */
	VTSCOPE_REASON_OUTSIDE_REGION = 9,	  /* otep-tls: the pointer is not a record of the region */
	VTSCOPE_REASON_NO_LIFECYCLE_MAPPING = 10, /* probe channels: no virtual thread mapped on this carrier */
	VTSCOPE_REASON_NO_RECORD_REGION = 11,	  /* context_unknown: no record region in the target (yet) */
	VTSCOPE_REASON_RECORD_TABLE_FULL = 12, /* context_unknown: no record, and the writer has found its table full */
	VTSCOPE_REASON_NO_LIFECYCLE_RECORD = 13, /* context_unknown: the lifecycle probe carried no record address */
	VTSCOPE_REASON_NO_CONTEXT_WRITER = 14,	 /* context_unknown: no writer keeps the region's records current */
	VTSCOPE_REASON_GC_PAUSE = 15,		 /* JDK 21-23: a stop-the-world collection ran during the read */
	VTSCOPE_REASON_GC_POINTER_NOT_GOOD = 16, /* JDK 21-23, ZGC: the handle's oop was not of the good colour */
	VTSCOPE_REASON_GC_PHASE_CHANGED = 17,	 /* JDK 21-23, ZGC: the good colour changed during the read */
	VTSCOPE_REASON_COUNT = 18,
};

/* How the identity plane is resolved (--identity); one value per channel unit. */
enum vtscope_identity_mode {
	VTSCOPE_IDENTITY_VMSTRUCTS = 0, /* JavaThread::_monitor_owner_id, resolve-at-read */
	VTSCOPE_IDENTITY_OTEP_TLS = 1,	/* the carrier's otel_thread_ctx_v1 pointer, resolve-at-read */
	VTSCOPE_IDENTITY_LIFECYCLE = 2, /* the paper's four-probe rules over libvtscope.so's probes */
	VTSCOPE_IDENTITY_TWO_PROBE = 3, /* freeze/thaw only (mount/unmount), the paper's ablation */
	VTSCOPE_IDENTITY_HOTSPOT = 4,	/* four-probe rules over the paper's hotspot:vthread__* ABI */
};

/* What the core resolved for the task an event ran on. */
struct vtscope_attribution {
	__s64 java_id;	      /* Java id of the running thread (virtual or platform), 0 when unresolved */
	__u8 mounted_virtual; /* 1 when java_id names a mounted virtual thread */
	__u8 status;	      /* enum vtscope_status */
	__u8 reason;	      /* enum vtscope_reason */
	__u8 trace_flags;
	__u8 trace_id[16]; /* W3C byte order; zero unless status is ok */
	__u8 span_id[8];
	__u8 pad[4];
};

/*
 * How the vmstructs channel reads a thread's Java id. JDK 24+ has it as a plain field
 * (_monitor_owner_id). JDK 21-23 have it only inside the thread object (java.lang.Thread.tid),
 * reached through an OopHandle, so the read must be proven free of a concurrent move of that
 * object; the rule depends on the collector (docs/identity-channels.md, "JDK 21").
 */
enum vtscope_oop_rule {
	VTSCOPE_OOP_NONE = 0,	 /* JDK 24+: _monitor_owner_id, no object is read */
	VTSCOPE_OOP_STW = 1,	 /* Serial, Parallel, G1: objects move only in pauses (sequence lock) */
	VTSCOPE_OOP_XZGC = 2,	 /* non-generational ZGC: good colour, good mask and sequence unchanged */
	VTSCOPE_OOP_ZGEN = 3,	 /* generational ZGC: load-good zpointer, load good mask unchanged */
	VTSCOPE_OOP_EPSILON = 4, /* Epsilon: nothing ever moves */
};

#define VTSCOPE_ZGEN_SHIFT_TABLE 16

/* Set by user space before load: `const volatile` in every event source's .rodata. */
struct vtscope_attribution_config {
	__u32 target_tgid;
	__u32 identity_mode;	    /* enum vtscope_identity_mode */
	__u64 off_monitor_owner_id; /* JavaThread::_monitor_owner_id, from VMStructs (JDK 24+) */
	/* JDK 21-23 (oop_rule != VTSCOPE_OOP_NONE): */
	__u32 oop_rule;		 /* enum vtscope_oop_rule */
	__u32 off_tid;		 /* java_lang_Thread::_tid_offset: the long tid in a Thread object */
	__u64 off_vthread;	 /* JavaThread::_vthread (OopHandle: a pointer to an OopStorage slot) */
	__u64 off_thread_obj;	 /* JavaThread::_threadObj (OopHandle) */
	__u64 gc_active_addr;	 /* STW: &CollectedHeap::_is_stw_gc_active (bool) */
	__u64 gc_count_addr;	 /* STW: &CollectedHeap::_total_collections (unsigned int) */
	__u64 gc_good_mask_addr; /* XZGC: &XAddressGoodMask; ZGEN: &ZPointerLoadGoodMask */
	__u64 gc_seq_addr;	 /* XZGC: &XGlobalSeqNum (uint32_t) */
	__u64 gc_metadata_mask;	 /* XZGC: XAddressMetadataMask; ZGEN: good ^ bad (the remapped bits) */
	__u32 gc_remapped_shift; /* ZGEN: the lowest remapped bit (ZPointerRemappedShift) */
	/* The target's pid in its own pid namespace (the last of NSpid, /proc/PID/status): what its
	 * writer's getpid() put in the region's writer_pid; target_tgid when it has none of its own. */
	__u32 target_ns_tgid;
	__u8 gc_load_shift[VTSCOPE_ZGEN_SHIFT_TABLE]; /* ZGEN: ZPointerLoadShiftTable by remapped bits */
};

/* Value of the vmstructs channel's "threads" map, keyed by kernel tid. */
struct vtscope_thread_info {
	__u64 java_thread; /* JavaThread* in the target */
	__s64 own_id;	   /* the OS thread's own Java thread id, 0 when not known */
};

/* Value of the single-entry "region" map: where the record region lies in the target. */
struct vtscope_region_info {
	__u64 base;	       /* start address of the mapping, 0 while not found */
	__u64 capacity_mask;   /* capacity - 1 */
	__u64 context_writers; /* the header's context_writers once seen non-zero (it is never cleared), else 0 */
};

/* Value of the otep-tls channel's single-entry "thread_context_tls" map. */
struct vtscope_tls_info {
	__s64 tp_offset; /* otel_thread_ctx_v1 = thread pointer + tp_offset */
	__u64 present;	 /* 1 once found in the target */
};

/* Value of the probe channels' "carriers" map: what is mounted on a carrier (tid). */
struct vtscope_mapping {
	__s64 vid;    /* Java id of the virtual thread */
	__u64 record; /* its record address, cached from the probe (0: none) */
};

/* Per-CPU counters of the core ("counters" map); each is read only by the summary. */
enum vtscope_counter {
	VTSCOPE_COUNTER_LOST = 0,	      /* events an event source could not deliver or count */
	VTSCOPE_COUNTER_THREADS_STARTED = 1,  /* vmstructs: JavaThread::run entries seen */
	VTSCOPE_COUNTER_THREADS_REMOVED = 2,  /* vmstructs: Threads::remove entries seen */
	VTSCOPE_COUNTER_INSERTS = 3,	      /* probe channels: mappings inserted */
	VTSCOPE_COUNTER_DELETES = 4,	      /* probe channels: mappings deleted */
	VTSCOPE_COUNTER_UNMOUNT_UNMAPPED = 5, /* probe channels: unmount/freeze(ok) that found no mapping */
	VTSCOPE_COUNTER_END_UNMAPPED = 6,     /* probe channels: end that found no mapping */
	VTSCOPE_COUNTER_COUNT = 7,
};

#ifdef __cplusplus
static_assert(sizeof(struct vtscope_attribution) == 40, "layout shared with BPF");
static_assert(sizeof(struct vtscope_attribution_config) == 104, "layout shared with BPF");
static_assert(sizeof(struct vtscope_thread_info) == 16, "map value layout shared with BPF");
static_assert(sizeof(struct vtscope_region_info) == 24, "map value layout shared with BPF");
static_assert(sizeof(struct vtscope_tls_info) == 16, "map value layout shared with BPF");
static_assert(sizeof(struct vtscope_mapping) == 16, "map value layout shared with BPF");
#endif

#endif /* VTSCOPE_ATTRIBUTION_H */
