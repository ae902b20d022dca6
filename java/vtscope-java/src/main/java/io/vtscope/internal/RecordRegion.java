// SPDX-License-Identifier: Apache-2.0
package io.vtscope.internal;

import static io.vtscope.internal.RecordLayout.*;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * The shared-memory trace-record region of this JVM (layout: {@code common/vtscope_record.h}).
 *
 * <p>The region is shared memory named {@value RecordLayout#REGION_NAME}, mapped once and never
 * unmapped, so an eBPF reader finds it in {@code /proc/PID/maps} without any cooperation. Only its
 * creation is version-specific ({@link RegionMapping}): on JDK 22+ an
 * anonymous memfd mapped with FFM downcalls, on JDK 21 (FFM a preview) an unlinked file
 * {@code vtscope-records-<pid>-<random>} under /dev/shm mapped with {@code FileChannel.map}. Every
 * access below goes through {@link MethodHandles#byteBufferViewVarHandle} views of the direct
 * buffer over that mapping, on every JDK: one writer, whose acquire, release and CAS accesses are
 * atomic at the aligned offsets of the layout.
 * Every thread that publishes owns one slot keyed by its {@link Thread#threadId()}, found by the
 * same linear probe the readers use; only that thread writes the slot's record, so updates need
 * no locks, only the OTEP 4947 valid-flag protocol.
 *
 * <p>Slots of terminated threads are taken over lazily: a claim that meets a slot whose owner is
 * no longer alive (a weak reference per slot, checked with {@link Thread#isAlive()}) hands it
 * over. Nothing is kept per thread on the Java side and nothing runs when a thread ends, so
 * thread churn costs neither a thread-local map nor reference processing, and the table never
 * fills with dead threads. A slot changes hands through {@link RecordLayout#OWNER_BUSY}: readers
 * skip it, and the record is cleared before the new owner's id is published.
 */
public final class RecordRegion {
    /** Trace and span ids are stored big-endian (the W3C byte order), at 8-aligned offsets. */
    private static final VarHandle BE_LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    /** The valid byte (low) and the trace flags (high) at their fixed, 2-aligned offset 24. */
    private static final VarHandle LE_SHORT = MethodHandles.byteBufferViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    /** Header and owner words in the native order of the readers; 8- and 4-aligned in the layout. */
    private static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

    /** The whole mapping (header and slots); its position and limit are never used. */
    private final ByteBuffer buffer;
    /** The native address of the mapping's first byte. */
    private final long address;
    private final int capacity;
    /** The thread that owns each slot, published before its id (see {@link #claim}). */
    private final OwnerRef[] owners;
    /** The {@code WRITER_*} bits this instance has declared, so a declared writer costs one plain read. */
    private int declaredWriters;

    /**
     * The thread that claimed a slot, with its id: a collected referent proves only that the
     * thread with {@code tid} has ended, so the id must match the slot's current owner (the slot
     * may have changed hands since, e.g. through libvtscope's own claims, which store no ref).
     */
    private static final class OwnerRef extends WeakReference<Thread> {
        final long tid;

        OwnerRef(Thread thread) {
            super(thread);
            this.tid = thread.threadId();
        }
    }

    /** Creates and maps a new region with {@code capacity} slots (normalized); throws on failure. */
    RecordRegion(int capacity) {
        this(capacity, REGION_NAME);
    }

    /**
     * A region under another name, which readers (and {@link #adoptExisting}) ignore: tests use it
     * for private regions that the JVM-wide region must never adopt. It must not start with
     * {@code REGION_NAME + "-"}, the JDK 21 writer's file names.
     */
    RecordRegion(int capacity, String name) {
        this(RegionMapping.create(name, regionSize(normalizeCapacity(capacity))), normalizeCapacity(capacity));
    }

    private RecordRegion(RegionMapping mapping, int capacity) {
        this.capacity = capacity;
        this.buffer = mapping.buffer;
        this.address = mapping.address;
        this.owners = new OwnerRef[this.capacity];
        INT.set(buffer, (int) H_VERSION, VERSION);
        INT.set(buffer, (int) H_HEADER_SIZE, HEADER_SIZE);
        INT.set(buffer, (int) H_SLOT_SIZE, SLOT_SIZE);
        INT.set(buffer, (int) H_CAPACITY, this.capacity);
        INT.set(buffer, (int) H_MAX_PROBE, MAX_PROBE);
        INT.set(buffer, (int) H_WRITER_PID, (int) ProcessHandle.current().pid());
        INT.set(buffer, (int) H_RECORD_OFFSET, RECORD_OFFSET);
        // A reader validates the magic first; publishing it last means it never sees a torn header.
        VarHandle.releaseFence();
        LONG.setRelease(buffer, (int) H_MAGIC, MAGIC);
    }

    /**
     * Adopts the mapped region at {@code address}, seen through {@code buffer}, whose header
     * passed {@link #validateHeader}; writes nothing.
     */
    RecordRegion(ByteBuffer buffer, long address) {
        this.buffer = buffer;
        this.address = address;
        this.capacity = (int) INT.get(buffer, (int) H_CAPACITY);
        this.owners = new OwnerRef[capacity];
    }

    /**
     * The JVM-wide region, on first use adopted if this process already maps one (see
     * {@link #adoptExisting}), else created; null if it could not be created.
     */
    public static RecordRegion global() {
        return Global.REGION;
    }

    /** Why {@link #global()} is null, or null if it is not. */
    public static String unavailableReason() {
        return Global.REASON;
    }

    /**
     * The whole mapping (header and slots), a direct buffer shared with every user of the region:
     * read it only with absolute accesses.
     */
    public ByteBuffer buffer() {
        return buffer;
    }

    /** The native address of the mapping; an offset {@code r} into it is at {@code address() + r}. */
    public long address() {
        return address;
    }

    /** Bytes mapped: the header and every slot. */
    public long byteSize() {
        return buffer.capacity();
    }

    public int capacity() {
        return capacity;
    }

    /**
     * The header's counters as every writer of the region has added them so far: slots claimed,
     * slots of those taken over from a terminated thread, and claims that found no free slot.
     */
    public long[] writerStats() {
        return new long[] {(long) LONG.getVolatile(buffer, (int) H_RECORDS_CLAIMED),
            (long) LONG.getVolatile(buffer, (int) H_RECORDS_RELEASED), (long) LONG.getVolatile(buffer, (int) H_RECORDS_UNAVAILABLE)};
    }

    /**
     * Declares that the writer {@code writerBit} ({@code RecordLayout.WRITER_*}) keeps the records of
     * the threads it serves current. Readers take a record holding no context, or no record, for
     * "no span is current" only once some writer has declared itself (common/vtscope_record.h); a
     * writer must do so before it publishes its first context. Idempotent, and a plain read once
     * done; the header word is shared with every other writer of the region (the native library,
     * vtscope classes of other class loaders), so it is or-ed in atomically.
     */
    public void declareContextWriter(int writerBit) {
        if ((declaredWriters & writerBit) == writerBit) {
            return;
        }
        INT.getAndBitwiseOr(buffer, (int) H_CONTEXT_WRITERS, writerBit);
        declaredWriters |= writerBit;
    }

    /** The {@code WRITER_*} bits every writer of the region has declared so far. */
    public int contextWriters() {
        return (int) INT.getVolatile(buffer, (int) H_CONTEXT_WRITERS);
    }

    /**
     * Offset of the calling thread's record in {@link #buffer()}, claiming a slot on the first
     * call; -1 if every slot of its probe chain belongs to a live thread.
     */
    public long currentRecordOffset() {
        Thread t = Thread.currentThread();
        long tid = t.threadId();
        long slot = findSlot(tid);
        if (slot < 0) {
            slot = claim(t, tid);
        }
        return slot < 0 ? -1 : slot + RECORD_OFFSET;
    }

    /**
     * The calling thread's 64-byte record as a buffer of its own (index 0 is the record's first
     * byte), claimed on first call; null if no slot was free.
     */
    public ByteBuffer currentRecord() {
        long offset = currentRecordOffset();
        return offset < 0 ? null : buffer.slice((int) offset, RECORD_SIZE);
    }

    /**
     * Writes a span context into the calling thread's record. An all-zero trace or span id is not
     * a valid context, so it clears the record instead and returns false.
     */
    public boolean publish(long traceIdHigh, long traceIdLow, long spanId, int traceFlags) {
        if ((traceIdHigh | traceIdLow) == 0 || spanId == 0) {
            clear();
            return false;
        }
        long r = currentRecordOffset();
        if (r < 0) {
            return false;
        }
        write(r, traceIdHigh, traceIdLow, spanId, traceFlags);
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
        long r = claimedRecordOffset();
        if (r >= 0) {
            clearRecord(r);
        }
    }

    /** Offset of the calling thread's record if it has claimed one, else -1; never claims. */
    public long claimedRecordOffset() {
        long slot = findSlot(Thread.currentThread().threadId());
        return slot < 0 ? -1 : slot + RECORD_OFFSET;
    }

    /** Big-endian trace id high half of the record at offset {@code r}. */
    public long traceIdHigh(long r) {
        return (long) BE_LONG.get(buffer, (int) (r + R_TRACE_ID));
    }

    public long traceIdLow(long r) {
        return (long) BE_LONG.get(buffer, (int) (r + R_TRACE_ID + 8));
    }

    public long spanId(long r) {
        return (long) BE_LONG.get(buffer, (int) (r + R_SPAN_ID));
    }

    /**
     * The OTEP 4947 rewrite: valid=0, fence, ids, fence, then valid=1 together with the trace flags
     * in one aligned 2-byte store (valid at 24, flags at 25): a reader that sees valid=1 sees the
     * flags of the same write.
     */
    public void write(long r, long traceIdHigh, long traceIdLow, long spanId, int traceFlags) {
        int i = (int) r;
        buffer.put(i + (int) R_VALID, (byte) 0);
        VarHandle.releaseFence();
        BE_LONG.set(buffer, i + (int) R_TRACE_ID, traceIdHigh);
        BE_LONG.set(buffer, i + (int) R_TRACE_ID + 8, traceIdLow);
        BE_LONG.set(buffer, i + (int) R_SPAN_ID, spanId);
        VarHandle.releaseFence();
        LE_SHORT.set(buffer, i + (int) R_VALID, (short) (1 | (traceFlags & 0xff) << 8));
    }

    /** Marks the record at offset {@code r} as holding no context. */
    public void clearRecord(long r) {
        int i = (int) r;
        buffer.put(i + (int) R_VALID, (byte) 0);
        VarHandle.releaseFence();
        // Readers tell "no context" (zero trace id) from "torn update" (valid 0, non-zero id).
        LONG.set(buffer, i + (int) R_TRACE_ID, 0L);
        LONG.set(buffer, i + (int) R_TRACE_ID + 8, 0L);
        LONG.set(buffer, i + (int) R_SPAN_ID, 0L);
        buffer.put(i + (int) R_TRACE_FLAGS, (byte) 0);
    }

    private long slotOffset(long tid, int i) {
        return HEADER_SIZE + ((tid + i) & (capacity - 1)) * SLOT_SIZE;
    }

    /** The slot owned by {@code tid}, probing as the readers do; -1 if it has none. */
    private long findSlot(long tid) {
        for (int i = 0; i < MAX_PROBE; i++) {
            long slot = slotOffset(tid, i);
            // Only thread tid ever stores tid here, so a plain read sees its own claim.
            long owner = (long) LONG.get(buffer, (int) (slot + S_OWNER));
            if (owner == tid) {
                return slot;
            }
            if (owner == OWNER_FREE) {
                return -1;
            }
        }
        return -1;
    }

    /**
     * Takes the first slot of tid's chain that is free, released, or owned by a thread that is no
     * longer alive. Returns the slot offset, or -1 (and counts it) when all are held by live threads.
     */
    private long claim(Thread t, long tid) {
        for (int i = 0; i < MAX_PROBE; i++) {
            long slot = slotOffset(tid, i);
            int ownerAt = (int) (slot + S_OWNER);
            long owner = (long) LONG.getAcquire(buffer, ownerAt);
            boolean free = owner == OWNER_FREE || owner == OWNER_RELEASED;
            if ((free || isDeadOwner(slot, owner)) && LONG.compareAndSet(buffer, ownerAt, owner, OWNER_BUSY)) {
                // The slot is ours but still reads as skipped: clear the previous owner's record
                // and note who owns it before any reader or claimer can see our id.
                clearRecord(slot + RECORD_OFFSET);
                owners[index(slot)] = new OwnerRef(t);
                buffer.put((int) (slot + S_KIND), t.isVirtual() ? KIND_VIRTUAL : KIND_PLATFORM);
                buffer.put((int) (slot + S_CLAIMED_AT_START), (byte) 0);
                LONG.setRelease(buffer, ownerAt, tid);
                // After the owner is set: a virtual thread unmounted and mounted again in between
                // finds the record at its mount (libvtscope's mount hook) and gets the same pointer.
                ThreadContextTls.attach(address + slot + RECORD_OFFSET);
                LONG.getAndAdd(buffer, (int) H_RECORDS_CLAIMED, 1L);
                if (!free) {
                    LONG.getAndAdd(buffer, (int) H_RECORDS_RELEASED, 1L);
                }
                return slot;
            }
        }
        LONG.getAndAdd(buffer, (int) H_RECORDS_UNAVAILABLE, 1L);
        return -1;
    }

    /**
     * True if the slot's owner {@code owner} has terminated. The owner's reference was stored
     * before its id was released into the slot, and {@code owner} was read with acquire, so the
     * reference read here is that owner's (a mismatch means a hand-over in progress: not dead).
     */
    private boolean isDeadOwner(long slot, long owner) {
        if (owner <= 0) {
            return false; // OWNER_BUSY: being handed over right now
        }
        OwnerRef ref = owners[index(slot)];
        if (ref == null || ref.tid != owner) {
            // Claimed by someone who left no reference (libvtscope at thread start), or a stale
            // reference of an earlier owner: whether this owner lives is unknown, so keep out.
            return false;
        }
        Thread owningThread = ref.get();
        return owningThread == null || !owningThread.isAlive(); // collected, or terminated
    }

    private int index(long slot) {
        return (int) ((slot - HEADER_SIZE) / SLOT_SIZE);
    }

    /**
     * The first valid region of this process among {@code mapsLines} (lines of
     * {@code /proc/self/maps}), or null. A region exists before any Java code runs when the JVM
     * was started with {@code -agentpath:libvtscope.so=probes} (or {@code otep}): the native
     * library creates it exactly as the constructor does; or when the vtscope classes of another
     * class loader created it first. Adopting it keeps one region per JVM, the one that readers
     * and the native library use. This instance never takes over a slot claimed by another writer
     * (it cannot tell whether that owner is alive); the writer that claimed it still can. A
     * mapping that cannot be reached from here ({@link RegionMapping#adopt} says why) is skipped.
     */
    static RecordRegion adoptExisting(List<String> mapsLines, long pid) {
        for (String line : mapsLines) {
            MapsEntry entry = parseMapsLine(line);
            if (entry == null) {
                continue;
            }
            RegionMapping mapping;
            try {
                mapping = RegionMapping.adopt(entry.start(), entry.end(), entry.path());
            } catch (RuntimeException e) {
                continue;
            }
            if (validateHeader(mapping.buffer, pid) == null) {
                int size = (int) regionSize((int) INT.get(mapping.buffer, (int) H_CAPACITY));
                return new RecordRegion(mapping.buffer.slice(0, size), mapping.address);
            }
        }
        return null;
    }

    /** A region's mapping as {@code /proc/self/maps} describes it: [start, end) and its path. */
    record MapsEntry(long start, long end, String path) {}

    /**
     * The mapping described by a {@code /proc/PID/maps} line if it is a shared read-write mapping,
     * from offset 0, whose path {@link #isRegionPath} accepts; else null. The line is
     * {@code start-end perms offset dev inode path}.
     */
    static MapsEntry parseMapsLine(String line) {
        String[] f = line.trim().split("\\s+", 6);
        if (f.length < 6 || !isRegionPath(f[5])) {
            return null;
        }
        String perms = f[1];
        if (perms.length() < 4 || perms.charAt(0) != 'r' || perms.charAt(1) != 'w' || perms.charAt(3) != 's'
                || !f[2].matches("0+")) {
            return null;
        }
        int dash = f[0].indexOf('-');
        try {
            long start = Long.parseUnsignedLong(f[0], 0, dash, 16);
            long end = Long.parseUnsignedLong(f[0], dash + 1, f[0].length(), 16);
            return end > start ? new MapsEntry(start, end, f[5]) : null;
        } catch (IndexOutOfBoundsException | NumberFormatException e) {
            return null; // not the kernel's format: nothing to adopt
        }
    }

    /**
     * True if {@code path} (a {@code /proc/PID/maps} path) names a region: the memfd
     * {@value RecordLayout#REGION_NAME} ({@code /memfd:NAME}, followed by {@code " (deleted)"}
     * once no descriptor is left), or a file whose name starts with {@code REGION_NAME + "-"}, as
     * the JDK 21 writer names its file under /dev/shm (followed by {@code " (deleted)"} once
     * unlinked). The consumer accepts the same paths (consumer/src/channels/record_region.cpp).
     */
    static boolean isRegionPath(String path) {
        String memfd = "/memfd:" + REGION_NAME;
        if (path.startsWith(memfd)) {
            return path.length() == memfd.length() || path.charAt(memfd.length()) == ' ';
        }
        int slash = path.lastIndexOf('/');
        return path.startsWith("/") && path.startsWith(REGION_NAME + "-", slash + 1);
    }

    /**
     * Null if {@code mapping} holds a complete region header written by process {@code pid} with
     * this layout (so this writer and every reader agree on it), else what is wrong. The pid check
     * rejects a region inherited from or shared with another process.
     */
    static String validateHeader(ByteBuffer mapping, long pid) {
        if (mapping.capacity() < HEADER_SIZE) {
            return "mapping of " + mapping.capacity() + " bytes is smaller than the header";
        }
        // The creator stores the magic last, with release: acquire it before the other fields.
        long magic = (long) LONG.getAcquire(mapping, (int) H_MAGIC);
        if (magic != MAGIC) {
            return "magic " + Long.toHexString(magic) + " is not " + Long.toHexString(MAGIC);
        }
        String layout = expect(mapping, H_VERSION, VERSION, "version")
                + expect(mapping, H_HEADER_SIZE, HEADER_SIZE, "header_size")
                + expect(mapping, H_SLOT_SIZE, SLOT_SIZE, "slot_size")
                + expect(mapping, H_MAX_PROBE, MAX_PROBE, "max_probe")
                + expect(mapping, H_RECORD_OFFSET, RECORD_OFFSET, "record_offset");
        if (!layout.isEmpty()) {
            return layout.trim();
        }
        int capacity = (int) INT.get(mapping, (int) H_CAPACITY);
        if (capacity <= 0 || Integer.bitCount(capacity) != 1 || capacity > MAX_CAPACITY) {
            return "capacity " + capacity + " is not a power of two up to " + MAX_CAPACITY;
        }
        long writer = Integer.toUnsignedLong((int) INT.get(mapping, (int) H_WRITER_PID));
        if (writer != pid) {
            return "writer_pid " + writer + " is not this process (" + pid + ")";
        }
        if (mapping.capacity() < regionSize(capacity)) {
            return "mapping of " + mapping.capacity() + " bytes is smaller than " + capacity + " slots";
        }
        return null;
    }

    private static String expect(ByteBuffer header, long offset, int expected, String field) {
        int actual = (int) INT.get(header, (int) offset);
        return actual == expected ? "" : field + " " + actual + " is not " + expected + " ";
    }

    /**
     * OTEP 4947: a thread that claims its record points its {@code otel_thread_ctx_v1} at it, once,
     * through libvtscope (only a libvtscope this process already maps: the
     * {@code -agentpath:libvtscope.so=otep} agent, whose region this is); every later context
     * change rewrites the record in place. A platform thread's thread-local is its own. A virtual
     * thread's is its carrier's: the downcall runs on the carrier that runs it now (a native frame
     * pins it there), and libvtscope's mount and unmount hooks keep it from then on (its mount hook
     * claims no record: this first publication does).
     */
    private static final class ThreadContextTls {
        /** Set by libvtscope once it keeps the thread-locals in a JVM it was loaded into late (otel_ctx.h). */
        static final String LOADED_PROPERTY = "vtscope.otep.thread_context";

        static volatile NativeLibrary library = NativeLibrary.ifMapped();

        static void attach(long recordAddress) {
            NativeLibrary lib = library;
            if (lib == null) {
                // No library when this class was initialised; one loaded into the running JVM
                // since (jcmd JVMTI.agent_load) says so in a system property: look again, once.
                if (System.getProperty(LOADED_PROPERTY) == null || (lib = NativeLibrary.ifMapped()) == null) {
                    return;
                }
                library = lib;
            }
            try {
                lib.attachThreadContext(recordAddress); // refused (harmlessly) unless OTEP is on
            } catch (RuntimeException | LinkageError e) {
                // The record is still written; only third-party TLS readers miss this thread.
            }
        }
    }

    /** Lazy holder: the region is adopted or created by the first thread that needs it, exactly once. */
    private static final class Global {
        static final RecordRegion REGION;
        static final String REASON;

        static {
            RecordRegion region = null;
            String reason = null;
            try {
                region = adoptExisting(NativeLibrary.mapsOfThisProcess(), ProcessHandle.current().pid());
                if (region == null) {
                    region = new RecordRegion(Math.clamp(
                            Long.getLong("vtscope.records.capacity", DEFAULT_CAPACITY), MIN_CAPACITY, MAX_CAPACITY));
                }
            } catch (RuntimeException | LinkageError e) {
                reason = "vtscope record region unavailable: " + e;
            }
            REGION = region;
            REASON = reason;
        }
    }
}
