/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The trace-record region: the boundary between the in-JVM writer (Java, FFM API) and every
 * reader (the vtscope BPF programs, the native library, third-party OTEP 4947 readers).
 *
 * The writer creates one shared mapping per JVM with memfd_create("vtscope-records"), so a reader
 * finds it in /proc/PID/maps as "/memfd:vtscope-records (deleted)" without any event (the manner
 * of OTEP 4719's OTEL_CTX mapping). The Java side mirrors these constants in
 * java/vtscope-java/src/main/java/io/vtscope/internal/RecordLayout.java; both sides are checked
 * against each other by the layout test (consumer/tests/record_layout_test.cpp).
 *
 *   offset 0                       header (VTSCOPE_REGION_HEADER_SIZE bytes)
 *   offset HEADER + i*SLOT_SIZE    slot i, i in [0, capacity)
 *
 * A slot is one cache line of ownership followed by one cache line holding the OTEP 4947
 * thread-context record (paper Table 2): trace id 0-15, span id 16-23, valid 24, trace flags 25,
 * attrs size 26-27, attrs 28-63. Trace and span ids are in W3C (network) byte order.
 *
 * Keys are Java thread ids (Thread.threadId()): positive, never reused within a JVM. The slot
 * for thread id X is found by linear probing from X & (capacity - 1) for at most max_probe slots;
 * owner 0 ends the chain (never used); any other owner that is not X (another id,
 * VTSCOPE_OWNER_RELEASED, VTSCOPE_OWNER_BUSY) is skipped. Only thread X claims a slot for X and
 * only thread X writes its record, so a reader that runs synchronously on X's own task (a syscall
 * tracepoint) sees X's record in program order. A claim takes a slot that is free, released, or
 * owned by a thread that has terminated: CAS of the owner to BUSY, clear the record, then store X.
 * Java thread ids are never reused and a terminated thread makes no more syscalls, so a record
 * found with owner == X can never belong to another thread.
 *
 * Record update protocol (OTEP 4947 in-place mutation): valid=0, release fence, payload,
 * release fence, valid=1. A reader that sees valid=0 reports "no context" when the trace id is
 * all zero (the writer zeroes it when no span is current) and "invalid" otherwise (a rewrite was
 * interrupted).
 */
#ifndef VTSCOPE_RECORD_H
#define VTSCOPE_RECORD_H

#ifndef __BPF__
#include <linux/types.h> /* vmlinux.h supplies these in BPF programs */
#endif

#define VTSCOPE_REGION_NAME "vtscope-records"            /* memfd name */
#define VTSCOPE_REGION_MAGIC 0x3143455243535456ULL       /* "VTSCREC1" little-endian */
#define VTSCOPE_REGION_VERSION 1
#define VTSCOPE_REGION_HEADER_SIZE 4096
#define VTSCOPE_SLOT_SIZE 128
#define VTSCOPE_RECORD_OFFSET 64                         /* record within a slot */
#define VTSCOPE_RECORD_SIZE 64
#define VTSCOPE_MAX_PROBE 32
#define VTSCOPE_OWNER_FREE 0LL
#define VTSCOPE_OWNER_RELEASED (-1LL)
#define VTSCOPE_OWNER_BUSY (-2LL)                        /* changing hands: skipped */
#define VTSCOPE_KIND_VIRTUAL 1
#define VTSCOPE_KIND_PLATFORM 2

struct vtscope_region_header {
	__u64 magic;                /* VTSCOPE_REGION_MAGIC */
	__u32 version;              /* VTSCOPE_REGION_VERSION */
	__u32 header_size;          /* VTSCOPE_REGION_HEADER_SIZE */
	__u32 slot_size;            /* VTSCOPE_SLOT_SIZE */
	__u32 capacity;             /* number of slots, a power of two */
	__u32 max_probe;            /* VTSCOPE_MAX_PROBE */
	__u32 writer_pid;           /* getpid() of the JVM that created the region */
	__u64 records_claimed;      /* slots claimed so far (atomic add) */
	__u64 records_released;     /* slots taken over from a terminated thread */
	__u64 records_unavailable;  /* claims that found no free slot within max_probe */
	__u32 record_offset;        /* VTSCOPE_RECORD_OFFSET */
	__u32 reserved;
};

/* OTEP 4947 thread-context record, 64 bytes. */
struct vtscope_record {
	__u8 trace_id[16];
	__u8 span_id[8];
	__u8 valid;
	__u8 trace_flags;
	__u16 attrs_size;
	__u8 attrs[36];
};

struct vtscope_slot_owner {
	__s64 owner;                /* Java thread id, 0 = never used, -1 = released */
	__u8 kind;                  /* VTSCOPE_KIND_* */
	__u8 claimed_at_start;      /* 1: claimed by libvtscope at VirtualThreadStart, released at its end */
	__u8 reserved[54];
};

struct vtscope_slot {
	struct vtscope_slot_owner head;
	struct vtscope_record record;
};

#ifndef __BPF__
#ifdef __cplusplus
#include <cstddef>
static_assert(sizeof(struct vtscope_region_header) == 64, "header fields must stay in one line");
static_assert(offsetof(struct vtscope_region_header, records_claimed) == 32, "layout");
static_assert(offsetof(struct vtscope_region_header, records_unavailable) == 48, "layout");
static_assert(offsetof(struct vtscope_region_header, record_offset) == 56, "layout");
static_assert(sizeof(struct vtscope_record) == VTSCOPE_RECORD_SIZE, "OTEP 4947 record is 64 bytes");
static_assert(offsetof(struct vtscope_record, span_id) == 16, "OTEP 4947 layout");
static_assert(offsetof(struct vtscope_record, valid) == 24, "OTEP 4947 layout");
static_assert(offsetof(struct vtscope_record, trace_flags) == 25, "OTEP 4947 layout");
static_assert(offsetof(struct vtscope_record, attrs_size) == 26, "OTEP 4947 layout");
static_assert(offsetof(struct vtscope_record, attrs) == 28, "OTEP 4947 layout");
static_assert(sizeof(struct vtscope_slot) == VTSCOPE_SLOT_SIZE, "slot size");
static_assert(offsetof(struct vtscope_slot_owner, claimed_at_start) == 9, "layout");
static_assert(offsetof(struct vtscope_slot, record) == VTSCOPE_RECORD_OFFSET, "record offset");
#endif
#endif

#endif /* VTSCOPE_RECORD_H */
