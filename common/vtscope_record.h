/* SPDX-License-Identifier: GPL-2.0-only OR Apache-2.0 */
/*
 * The trace-record region: the boundary between the in-JVM writer (Java, FFM API) and every
 * reader (the vtscope BPF programs, the native library, third-party OTEP 4947 readers). This
 * header is the protocol's one definition: its constants, its layout (every offset pinned by a
 * static_assert below), the slot address of a probe chain, and the validation of a region header
 * that the native library (native/src/record_table.cpp) and the consumer
 * (consumer/src/channels/record_region.cpp) both call.
 *
 * The writer creates one shared mapping per JVM with memfd_create("vtscope-records"), so a reader
 * finds it in /proc/PID/maps as "/memfd:vtscope-records (deleted)" without any event (the manner
 * of OTEP 4719's OTEL_CTX mapping). The Java side mirrors these constants in
 * java/vtscope-java/src/main/java/io/vtscope/internal/RecordLayout.java. The build compiles
 * native/tests/record_layout_dump.cpp against this header, which prints every constant and
 * offset as the compiler sees them, and the Java test RecordLayoutTest
 * (java/vtscope-java/src/test/java/io/vtscope/internal/) compares them with every constant of
 * RecordLayout, both ways.
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

#define VTSCOPE_REGION_NAME "vtscope-records" /* memfd name */
/* The JDK 21 writer's file: this prefix, then <pid>-<random> (RegionMapping.java). */
#define VTSCOPE_REGION_FILE_PREFIX "/dev/shm/vtscope-records-"
#define VTSCOPE_REGION_MAGIC	   0x3143455243535456ULL /* "VTSCREC1" little-endian */
#define VTSCOPE_REGION_VERSION	   1
#define VTSCOPE_REGION_HEADER_SIZE 4096
#define VTSCOPE_SLOT_SIZE	   128
#define VTSCOPE_RECORD_OFFSET	   64 /* record within a slot */
#define VTSCOPE_RECORD_SIZE	   64
#define VTSCOPE_MAX_PROBE	   32
#define VTSCOPE_OWNER_FREE	   0LL
#define VTSCOPE_OWNER_RELEASED	   (-1LL)
#define VTSCOPE_OWNER_BUSY	   (-2LL) /* changing hands: skipped */
#define VTSCOPE_KIND_NONE	   0	  /* a slot that no thread owns */
#define VTSCOPE_KIND_VIRTUAL	   1
#define VTSCOPE_KIND_PLATFORM	   2
/* Capacities a writer creates (powers of two): the default, and the bounds of a requested one. */
#define VTSCOPE_DEFAULT_CAPACITY 16384
#define VTSCOPE_MIN_CAPACITY	 64
#define VTSCOPE_MAX_CAPACITY	 4194304 /* 1 << 22 */
/*
 * Bits of the header's context_writers: the writers that keep the records of this JVM's threads
 * current. A record holding no context, or no record, means "no span is current" only once one of
 * them is there: the native library claims a record for every virtual thread at its start (the
 * otep and probes modes), and a region exists for the Virtual Thread Time API alone, so without a
 * writer a zero record proves nothing (the OpenTelemetry Java agent without vtscope's extension
 * makes its spans current where no writer sees them). Each writer sets its bit before it publishes
 * its first context.
 */
#define VTSCOPE_WRITER_OTEL_STORAGE 1u /* vtscope-otel's context storage: the SDK provider or the agent extension */
#define VTSCOPE_WRITER_API	    2u /* io.vtscope.VtScope.publish and clear */

struct vtscope_region_header {
	__u64 magic;		   /* VTSCOPE_REGION_MAGIC */
	__u32 version;		   /* VTSCOPE_REGION_VERSION */
	__u32 header_size;	   /* VTSCOPE_REGION_HEADER_SIZE */
	__u32 slot_size;	   /* VTSCOPE_SLOT_SIZE */
	__u32 capacity;		   /* number of slots, a power of two */
	__u32 max_probe;	   /* VTSCOPE_MAX_PROBE */
	__u32 writer_pid;	   /* getpid() of the JVM that created the region (in its pid namespace) */
	__u64 records_claimed;	   /* slots claimed so far (atomic add) */
	__u64 records_released;	   /* slots taken over from a terminated thread */
	__u64 records_unavailable; /* claims that found no free slot within max_probe */
	__u32 record_offset;	   /* VTSCOPE_RECORD_OFFSET */
	__u32 context_writers;	   /* VTSCOPE_WRITER_* bits, atomic or; never cleared */
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
	__s64 owner;	       /* Java thread id, 0 = never used, -1 = released */
	__u8 kind;	       /* VTSCOPE_KIND_* */
	__u8 claimed_at_start; /* 1: claimed by libvtscope at VirtualThreadStart, released at its end */
	__u8 reserved[54];
};

struct vtscope_slot {
	struct vtscope_slot_owner head;
	struct vtscope_record record;
};

/*
 * Address of slot `probe` (0 <= probe < VTSCOPE_MAX_PROBE) of the chain of thread_id in the
 * region at base, whose capacity is capacity_mask + 1. Plain arithmetic, so BPF programs can use
 * it too.
 */
static inline __u64 vtscope_slot_address(__u64 base, __u64 capacity_mask, __s64 thread_id, __u32 probe)
{
	return base + VTSCOPE_REGION_HEADER_SIZE + (((__u64)thread_id + probe) & capacity_mask) * VTSCOPE_SLOT_SIZE;
}

#ifndef __BPF__
#include <stddef.h>
#include <stdio.h>
#ifndef __cplusplus
#include <assert.h> /* static_assert (C11) */
#endif

/* The layout, field by field: any change fails the build here before it reaches a reader. */
static_assert(sizeof(struct vtscope_region_header) == 64, "header fields must stay in one line");
static_assert(sizeof(struct vtscope_region_header) <= VTSCOPE_REGION_HEADER_SIZE, "header fits its page");
static_assert(offsetof(struct vtscope_region_header, magic) == 0, "header layout");
static_assert(offsetof(struct vtscope_region_header, version) == 8, "header layout");
static_assert(offsetof(struct vtscope_region_header, header_size) == 12, "header layout");
static_assert(offsetof(struct vtscope_region_header, slot_size) == 16, "header layout");
static_assert(offsetof(struct vtscope_region_header, capacity) == 20, "header layout");
static_assert(offsetof(struct vtscope_region_header, max_probe) == 24, "header layout");
static_assert(offsetof(struct vtscope_region_header, writer_pid) == 28, "header layout");
static_assert(offsetof(struct vtscope_region_header, records_claimed) == 32, "header layout");
static_assert(offsetof(struct vtscope_region_header, records_released) == 40, "header layout");
static_assert(offsetof(struct vtscope_region_header, records_unavailable) == 48, "header layout");
static_assert(offsetof(struct vtscope_region_header, record_offset) == 56, "header layout");
static_assert(offsetof(struct vtscope_region_header, context_writers) == 60, "header layout");
static_assert(sizeof(struct vtscope_record) == VTSCOPE_RECORD_SIZE, "OTEP 4947 record is 64 bytes");
static_assert(offsetof(struct vtscope_record, trace_id) == 0, "OTEP 4947 layout");
static_assert(offsetof(struct vtscope_record, span_id) == 16, "OTEP 4947 layout");
static_assert(offsetof(struct vtscope_record, valid) == 24, "OTEP 4947 layout");
static_assert(offsetof(struct vtscope_record, trace_flags) == 25, "OTEP 4947 layout");
static_assert(offsetof(struct vtscope_record, attrs_size) == 26, "OTEP 4947 layout");
static_assert(offsetof(struct vtscope_record, attrs) == 28, "OTEP 4947 layout");
static_assert(sizeof(struct vtscope_slot_owner) == VTSCOPE_RECORD_OFFSET, "the owner fills the slot's first line");
static_assert(offsetof(struct vtscope_slot_owner, owner) == 0, "owner layout");
static_assert(offsetof(struct vtscope_slot_owner, kind) == 8, "owner layout");
static_assert(offsetof(struct vtscope_slot_owner, claimed_at_start) == 9, "owner layout");
static_assert(offsetof(struct vtscope_slot_owner, reserved) == 10, "owner layout");
static_assert(sizeof(struct vtscope_slot) == VTSCOPE_SLOT_SIZE, "slot size");
static_assert(offsetof(struct vtscope_slot, head) == 0, "slot layout");
static_assert(offsetof(struct vtscope_slot, record) == VTSCOPE_RECORD_OFFSET, "record offset");
static_assert(VTSCOPE_RECORD_OFFSET + VTSCOPE_RECORD_SIZE == VTSCOPE_SLOT_SIZE, "slot = owner line + record");
static_assert(VTSCOPE_REGION_HEADER_SIZE % VTSCOPE_SLOT_SIZE == 0, "slots stay cache-line aligned");
static_assert((VTSCOPE_MIN_CAPACITY & (VTSCOPE_MIN_CAPACITY - 1)) == 0, "capacities are powers of two");
static_assert((VTSCOPE_DEFAULT_CAPACITY & (VTSCOPE_DEFAULT_CAPACITY - 1)) == 0, "capacities are powers of two");
static_assert((VTSCOPE_MAX_CAPACITY & (VTSCOPE_MAX_CAPACITY - 1)) == 0, "capacities are powers of two");
static_assert(VTSCOPE_MIN_CAPACITY <= VTSCOPE_DEFAULT_CAPACITY && VTSCOPE_DEFAULT_CAPACITY <= VTSCOPE_MAX_CAPACITY,
	      "the default capacity is within the bounds");
static_assert(VTSCOPE_MAX_PROBE <= VTSCOPE_MIN_CAPACITY, "a probe chain never visits a slot twice");
static_assert(VTSCOPE_REGION_MAGIC == ((__u64)'V' | (__u64)'T' << 8 | (__u64)'S' << 16 | (__u64)'C' << 24 |
				       (__u64)'R' << 32 | (__u64)'E' << 40 | (__u64)'C' << 48 | (__u64)'1' << 56),
	      "the magic reads \"VTSCREC1\" in memory");

/* The outcome of vtscope_check_region_header: the first check a header fails. */
enum vtscope_region_check {
	VTSCOPE_REGION_VALID = 0,
	VTSCOPE_REGION_TOO_SMALL, /* the mapping cannot even hold the header */
	VTSCOPE_REGION_BAD_MAGIC, /* not a region, or its writer has not finished creating it */
	VTSCOPE_REGION_BAD_VERSION,
	VTSCOPE_REGION_BAD_HEADER_SIZE,
	VTSCOPE_REGION_BAD_SLOT_SIZE,
	VTSCOPE_REGION_BAD_RECORD_OFFSET,
	VTSCOPE_REGION_BAD_MAX_PROBE,
	VTSCOPE_REGION_BAD_CAPACITY, /* zero or not a power of two */
	VTSCOPE_REGION_TRUNCATED,    /* the mapping is smaller than its capacity of slots */
	VTSCOPE_REGION_FOREIGN,	     /* writer_pid is not the expected process */
};

/*
 * Validates the header h of a region mapped over mapping_size bytes, for the process pid. h is
 * read only once mapping_size can hold the header. The magic is checked first: the writer
 * stores it last, after a release fence, so a reader that sees it sees every other field.
 */
static inline enum vtscope_region_check vtscope_check_region_header(const struct vtscope_region_header *h,
								    __u64 mapping_size, __u32 pid)
{
	if (mapping_size < VTSCOPE_REGION_HEADER_SIZE)
		return VTSCOPE_REGION_TOO_SMALL;
	if (h->magic != VTSCOPE_REGION_MAGIC)
		return VTSCOPE_REGION_BAD_MAGIC;
	if (h->version != VTSCOPE_REGION_VERSION)
		return VTSCOPE_REGION_BAD_VERSION;
	if (h->header_size != VTSCOPE_REGION_HEADER_SIZE)
		return VTSCOPE_REGION_BAD_HEADER_SIZE;
	if (h->slot_size != VTSCOPE_SLOT_SIZE)
		return VTSCOPE_REGION_BAD_SLOT_SIZE;
	if (h->record_offset != VTSCOPE_RECORD_OFFSET)
		return VTSCOPE_REGION_BAD_RECORD_OFFSET;
	if (h->max_probe != VTSCOPE_MAX_PROBE)
		return VTSCOPE_REGION_BAD_MAX_PROBE;
	if (h->capacity == 0 || (h->capacity & (h->capacity - 1)) != 0)
		return VTSCOPE_REGION_BAD_CAPACITY;
	if ((__u64)h->header_size + (__u64)h->capacity * h->slot_size > mapping_size)
		return VTSCOPE_REGION_TRUNCATED;
	if (h->writer_pid != pid)
		return VTSCOPE_REGION_FOREIGN;
	return VTSCOPE_REGION_VALID;
}

/*
 * Writes the message of a check's outcome for the header h it was made on (h is not read for
 * VTSCOPE_REGION_TOO_SMALL) into buffer and returns buffer.
 */
static inline const char *vtscope_describe_region_check(enum vtscope_region_check check,
							const struct vtscope_region_header *h, char *buffer,
							size_t size)
{
	switch (check) {
	case VTSCOPE_REGION_VALID:
		snprintf(buffer, size, "record region is valid");
		break;
	case VTSCOPE_REGION_TOO_SMALL:
		snprintf(buffer, size, "record region missing or smaller than its %d-byte header",
			 VTSCOPE_REGION_HEADER_SIZE);
		break;
	case VTSCOPE_REGION_BAD_MAGIC:
		snprintf(buffer, size, "record region has a bad magic (not yet initialised?)");
		break;
	case VTSCOPE_REGION_BAD_VERSION:
		snprintf(buffer, size, "record region version %u is not supported (expected %d)", h->version,
			 VTSCOPE_REGION_VERSION);
		break;
	case VTSCOPE_REGION_BAD_HEADER_SIZE:
		snprintf(buffer, size, "record region layout differs: header size %u, expected %d", h->header_size,
			 VTSCOPE_REGION_HEADER_SIZE);
		break;
	case VTSCOPE_REGION_BAD_SLOT_SIZE:
		snprintf(buffer, size, "record region layout differs: slot size %u, expected %d", h->slot_size,
			 VTSCOPE_SLOT_SIZE);
		break;
	case VTSCOPE_REGION_BAD_RECORD_OFFSET:
		snprintf(buffer, size, "record region layout differs: record offset %u, expected %d", h->record_offset,
			 VTSCOPE_RECORD_OFFSET);
		break;
	case VTSCOPE_REGION_BAD_MAX_PROBE:
		snprintf(buffer, size, "record region layout differs: max probe %u, expected %d", h->max_probe,
			 VTSCOPE_MAX_PROBE);
		break;
	case VTSCOPE_REGION_BAD_CAPACITY:
		snprintf(buffer, size, "record region capacity %u is not a power of two", h->capacity);
		break;
	case VTSCOPE_REGION_TRUNCATED:
		snprintf(buffer, size, "record region is smaller than its header claims (%u slots)", h->capacity);
		break;
	case VTSCOPE_REGION_FOREIGN:
		snprintf(buffer, size, "record region belongs to another process (pid %u)", h->writer_pid);
		break;
	default:
		snprintf(buffer, size, "record region check %d is unknown", (int)check);
		break;
	}
	return buffer;
}
#endif /* !__BPF__ */

#endif /* VTSCOPE_RECORD_H */
