// SPDX-License-Identifier: Apache-2.0
package io.vtscope.internal;

/**
 * Byte layout of the trace-record region, mirroring {@code common/vtscope_record.h} constant for
 * constant. RecordLayoutTest compares every public constant here with the header as compiled
 * (native/tests/record_layout_dump.cpp), both ways, so any change here must be made in the header
 * too (and the version bumped).
 */
public final class RecordLayout {
    /** "VTSCREC1" read as a little-endian u64. */
    public static final long MAGIC = 0x3143455243535456L;
    public static final int VERSION = 1;
    public static final String REGION_NAME = "vtscope-records";
    /** The JDK 21 writer's file: this, then {@code <pid>-<random>}; the consumer follows its openat. */
    public static final String REGION_FILE_PREFIX = "/dev/shm/vtscope-records-";
    public static final int HEADER_SIZE = 4096;
    public static final int SLOT_SIZE = 128;
    public static final int RECORD_OFFSET = 64;
    public static final int RECORD_SIZE = 64;
    public static final int MAX_PROBE = 32;
    public static final long OWNER_FREE = 0L;
    public static final long OWNER_RELEASED = -1L;
    /** A slot changing hands: readers skip it, claimers leave it alone. */
    public static final long OWNER_BUSY = -2L;
    public static final byte KIND_NONE = 0;
    public static final byte KIND_VIRTUAL = 1;
    public static final byte KIND_PLATFORM = 2;

    // struct vtscope_region_header
    public static final long H_MAGIC = 0;
    public static final long H_VERSION = 8;
    public static final long H_HEADER_SIZE = 12;
    public static final long H_SLOT_SIZE = 16;
    public static final long H_CAPACITY = 20;
    public static final long H_MAX_PROBE = 24;
    public static final long H_WRITER_PID = 28;
    public static final long H_RECORDS_CLAIMED = 32;
    public static final long H_RECORDS_RELEASED = 40;
    public static final long H_RECORDS_UNAVAILABLE = 48;
    public static final long H_RECORD_OFFSET = 56;
    /** Bits of the writers that keep the records current ({@code WRITER_*}), or-ed in, never cleared. */
    public static final long H_CONTEXT_WRITERS = 60;

    // struct vtscope_slot_owner, relative to the slot start
    public static final long S_OWNER = 0;
    public static final long S_KIND = 8;
    /** 1 when libvtscope claimed the slot at VirtualThreadStart; a Java claim clears it. */
    public static final long S_CLAIMED_AT_START = 9;

    // struct vtscope_record (OTEP 4947), relative to the record start
    public static final long R_TRACE_ID = 0;
    public static final long R_SPAN_ID = 16;
    public static final long R_VALID = 24;
    public static final long R_TRACE_FLAGS = 25;
    public static final long R_ATTRS_SIZE = 26;
    public static final long R_ATTRS = 28;

    public static final int DEFAULT_CAPACITY = 16384;
    public static final int MIN_CAPACITY = 64;
    public static final int MAX_CAPACITY = 1 << 22;

    /** vtscope-otel's context storage: the SDK provider or the agent extension. */
    public static final int WRITER_OTEL_STORAGE = 1;
    /** {@code io.vtscope.VtScope.publish} and {@code clear}. */
    public static final int WRITER_API = 2;

    /** Bytes mapped for {@code capacity} slots. */
    public static long regionSize(int capacity) {
        return HEADER_SIZE + (long) capacity * SLOT_SIZE;
    }

    /** Clamps to [MIN_CAPACITY, MAX_CAPACITY] and rounds up to a power of two (probe mask). */
    public static int normalizeCapacity(long requested) {
        long c = Math.clamp(requested, MIN_CAPACITY, MAX_CAPACITY);
        return (int) (Long.highestOneBit(c - 1) << 1);
    }

    private RecordLayout() {}
}
