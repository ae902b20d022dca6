package io.vtscope.internal;

import static io.vtscope.internal.RecordLayout.*;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;
import java.nio.ByteOrder;

/**
 * The shared-memory trace-record region of this JVM (layout: {@code common/vtscope_record.h}).
 *
 * <p>The region is an anonymous memfd named {@value RecordLayout#REGION_NAME}, mapped once and
 * never unmapped, so an eBPF reader finds it in {@code /proc/PID/maps} without any cooperation.
 * Every thread that publishes owns one slot keyed by its {@link Thread#threadId()}; only that
 * thread writes the slot's record, so updates need no locks, only the OTEP 4947 valid-flag
 * protocol. A slot is returned (tombstoned) by a {@link Cleaner} once its thread is gone: the
 * per-thread holder is only reachable through the thread's thread-local map, which the JDK drops
 * when the thread terminates.
 */
public final class RecordRegion {
    private static final ValueLayout.OfLong BE_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Coordinates (MemorySegment, long offset); needs 8-byte alignment, which the layout gives. */
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final Cleaner CLEANER = Cleaner.create();

    private static final int MFD_CLOEXEC = 1;
    private static final int PROT_READ = 1;
    private static final int PROT_WRITE = 2;
    private static final int MAP_SHARED = 1;
    private static final int MAP_POPULATE = 0x8000;
    private static final long MAP_FAILED = -1L;

    /** Stored in the thread local of a thread that found no free slot, so it never probes again. */
    private static final Holder NO_SLOT = new Holder(null);

    private final MemorySegment segment;
    private final int capacity;
    private final ThreadLocal<Holder> holders = new ThreadLocal<>();

    /** Per-thread record; the Cleaner watches it, so the release action must not reference it. */
    private record Holder(MemorySegment record) {}

    /** Creates and maps a new region with {@code capacity} slots (normalized); throws on failure. */
    RecordRegion(int capacity) {
        this.capacity = normalizeCapacity(capacity);
        this.segment = mapMemfd(regionSize(this.capacity));
        segment.set(ValueLayout.JAVA_INT, H_VERSION, VERSION);
        segment.set(ValueLayout.JAVA_INT, H_HEADER_SIZE, HEADER_SIZE);
        segment.set(ValueLayout.JAVA_INT, H_SLOT_SIZE, SLOT_SIZE);
        segment.set(ValueLayout.JAVA_INT, H_CAPACITY, this.capacity);
        segment.set(ValueLayout.JAVA_INT, H_MAX_PROBE, MAX_PROBE);
        segment.set(ValueLayout.JAVA_INT, H_WRITER_PID, (int) ProcessHandle.current().pid());
        segment.set(ValueLayout.JAVA_INT, H_RECORD_OFFSET, RECORD_OFFSET);
        // A reader validates the magic first; publishing it last means it never sees a torn header.
        VarHandle.releaseFence();
        LONG.setRelease(segment, H_MAGIC, MAGIC);
    }

    /** The JVM-wide region, created on first use; null if it could not be created. */
    public static RecordRegion global() {
        return Global.REGION;
    }

    /** Why {@link #global()} is null, or null if it is not. */
    public static String unavailableReason() {
        return Global.REASON;
    }

    /** The whole mapping (header and slots). */
    public MemorySegment segment() {
        return segment;
    }

    public int capacity() {
        return capacity;
    }

    /** The calling thread's 64-byte record, claimed on first call; null if no slot was free. */
    public MemorySegment currentRecord() {
        Holder h = holders.get();
        if (h == null) {
            h = claim();
            holders.set(h);
        }
        return h.record;
    }

    /**
     * Writes a span context into the calling thread's record. An all-zero trace or span id is not
     * a valid context, so it clears the record instead and returns false.
     */
    public boolean publish(long traceIdHigh, long traceIdLow, long spanId, int traceFlags) {
        MemorySegment r = currentRecord();
        if (r == null) {
            return false;
        }
        if ((traceIdHigh | traceIdLow) == 0 || spanId == 0) {
            clear(r);
            return false;
        }
        r.set(ValueLayout.JAVA_BYTE, R_VALID, (byte) 0);
        VarHandle.releaseFence();
        r.set(BE_LONG, R_TRACE_ID, traceIdHigh);
        r.set(BE_LONG, R_TRACE_ID + 8, traceIdLow);
        r.set(BE_LONG, R_SPAN_ID, spanId);
        r.set(ValueLayout.JAVA_BYTE, R_TRACE_FLAGS, (byte) traceFlags);
        r.set(ValueLayout.JAVA_SHORT, R_ATTRS_SIZE, (short) 0);
        VarHandle.releaseFence();
        r.set(ValueLayout.JAVA_BYTE, R_VALID, (byte) 1);
        return true;
    }

    /** Hex form of {@link #publish(long, long, long, int)}; malformed ids clear and return false. */
    public boolean publish(CharSequence traceIdHex, CharSequence spanIdHex, int traceFlags) {
        if (!Hex.isHex(traceIdHex, Hex.TRACE_ID_CHARS) || !Hex.isHex(spanIdHex, Hex.SPAN_ID_CHARS)) {
            clear();
            return false;
        }
        return publish(Hex.parseLong(traceIdHex, 0), Hex.parseLong(traceIdHex, 16),
                Hex.parseLong(spanIdHex, 0), traceFlags);
    }

    /**
     * Marks "no current span". A thread that never published has no record, which readers already
     * report as no context, so this does not claim a slot.
     */
    public void clear() {
        Holder h = holders.get();
        if (h != null && h.record != null) {
            clear(h.record);
        }
    }

    private static void clear(MemorySegment r) {
        r.set(ValueLayout.JAVA_BYTE, R_VALID, (byte) 0);
        VarHandle.releaseFence();
        // Readers tell "no context" (zero trace id) from "torn update" (valid 0, non-zero id).
        r.asSlice(R_TRACE_ID, R_TRACE_FLAGS + 1).fill((byte) 0);
    }

    private Holder claim() {
        Thread t = Thread.currentThread();
        long tid = t.threadId();
        int mask = capacity - 1;
        for (int i = 0; i < MAX_PROBE; i++) {
            long slotOffset = HEADER_SIZE + (long) ((int) (tid + i) & mask) * SLOT_SIZE;
            long owner = (long) LONG.getVolatile(segment, slotOffset + S_OWNER);
            if ((owner == OWNER_FREE || owner == OWNER_RELEASED)
                    && LONG.compareAndSet(segment, slotOffset + S_OWNER, owner, tid)) {
                MemorySegment slot = segment.asSlice(slotOffset, SLOT_SIZE);
                slot.set(ValueLayout.JAVA_BYTE, S_KIND, t.isVirtual() ? KIND_VIRTUAL : KIND_PLATFORM);
                LONG.getAndAdd(segment, H_RECORDS_CLAIMED, 1L);
                Holder h = new Holder(slot.asSlice(RECORD_OFFSET, RECORD_SIZE));
                CLEANER.register(h, new Release(segment, slot));
                return h;
            }
        }
        LONG.getAndAdd(segment, H_RECORDS_UNAVAILABLE, 1L);
        return NO_SLOT;
    }

    /** Runs on the Cleaner thread after the owner thread died: clear, then tombstone the slot. */
    private record Release(MemorySegment region, MemorySegment slot) implements Runnable {
        @Override
        public void run() {
            slot.set(ValueLayout.JAVA_BYTE, RECORD_OFFSET + R_VALID, (byte) 0);
            VarHandle.releaseFence();
            slot.asSlice(RECORD_OFFSET, RECORD_SIZE).fill((byte) 0);
            slot.set(ValueLayout.JAVA_BYTE, S_KIND, KIND_NONE);
            LONG.setRelease(slot, S_OWNER, OWNER_RELEASED);
            LONG.getAndAdd(region, H_RECORDS_RELEASED, 1L);
        }
    }

    /** memfd_create + ftruncate + mmap(MAP_SHARED) + close through FFM downcalls into libc. */
    @SuppressWarnings("restricted") // needs native access; without --enable-native-access the JDK only warns
    private static MemorySegment mapMemfd(long size) {
        if (!System.getProperty("os.name", "").startsWith("Linux")) {
            throw new IllegalStateException("not Linux (" + System.getProperty("os.name") + ")");
        }
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        Linker.Option errno = Linker.Option.captureCallState("errno");
        VarHandle errnoValue = Linker.Option.captureStateLayout().varHandle(PathElement.groupElement("errno"));
        MethodHandle memfdCreate = downcall(linker, libc, "memfd_create",
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT), errno);
        MethodHandle ftruncate = downcall(linker, libc, "ftruncate",
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG), errno);
        MethodHandle mmap = downcall(linker, libc, "mmap",
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG),
                errno);
        MethodHandle close = downcall(linker, libc, "close",
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Linker.Option.captureStateLayout());
            int fd = (int) memfdCreate.invokeExact(state, arena.allocateFrom(REGION_NAME), MFD_CLOEXEC);
            if (fd < 0) {
                throw new IllegalStateException("memfd_create failed, errno " + (int) errnoValue.get(state, 0L));
            }
            try {
                if ((int) ftruncate.invokeExact(state, fd, size) != 0) {
                    throw new IllegalStateException("ftruncate failed, errno " + (int) errnoValue.get(state, 0L));
                }
                MemorySegment addr = (MemorySegment) mmap.invokeExact(state, MemorySegment.NULL, size,
                        PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0L);
                if (addr.address() == MAP_FAILED || addr.address() == 0) {
                    throw new IllegalStateException("mmap failed, errno " + (int) errnoValue.get(state, 0L));
                }
                // Global scope: the mapping lives as long as the JVM.
                return addr.reinterpret(size);
            } finally {
                // The mapping keeps the memfd alive; the descriptor itself is not needed.
                int ignored = (int) close.invokeExact(fd);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    @SuppressWarnings("restricted")
    private static MethodHandle downcall(Linker linker, SymbolLookup libc, String name,
            FunctionDescriptor fd, Linker.Option... options) {
        return linker.downcallHandle(libc.find(name)
                .orElseThrow(() -> new IllegalStateException("libc has no " + name)), fd, options);
    }

    /** Lazy holder: the region is created by the first thread that needs it, exactly once. */
    private static final class Global {
        static final RecordRegion REGION;
        static final String REASON;

        static {
            RecordRegion region = null;
            String reason = null;
            try {
                region = new RecordRegion(Math.clamp(
                        Long.getLong("vtscope.records.capacity", DEFAULT_CAPACITY), MIN_CAPACITY, MAX_CAPACITY));
            } catch (RuntimeException | LinkageError e) {
                reason = "vtscope record region unavailable: " + e;
            }
            REGION = region;
            REASON = reason;
        }
    }
}
