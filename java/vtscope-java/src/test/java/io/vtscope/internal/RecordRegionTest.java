// SPDX-License-Identifier: Apache-2.0
package io.vtscope.internal;

import static io.vtscope.internal.RecordLayout.*;
import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Slot claiming, collisions, exhaustion and release, on small private regions. */
class RecordRegionTest {
    /**
     * A region the JVM-wide one can never adopt (another name): these tests fill and churn
     * their regions, which must not become the region VtScopeTest publishes into.
     */
    static RecordRegion privateRegion(int capacity) {
        return new RecordRegion(capacity, "vtscope-test-records");
    }

    /** The region's bytes in the readers' (native) order. */
    static ByteBuffer bytes(RecordRegion r) {
        return r.buffer().duplicate().order(ByteOrder.nativeOrder());
    }

    private static long header(RecordRegion r, long offset) {
        return bytes(r).getLong((int) offset);
    }

    private static long slotIndex(long recordOffset) {
        return (recordOffset - HEADER_SIZE - RECORD_OFFSET) / SLOT_SIZE;
    }

    private static long owner(RecordRegion r, long slot) {
        return bytes(r).getLong((int) (HEADER_SIZE + slot * SLOT_SIZE));
    }

    private static byte kind(RecordRegion r, long slot) {
        return bytes(r).get((int) (HEADER_SIZE + slot * SLOT_SIZE + S_KIND));
    }

    @Test
    void capacityIsNormalized() {
        assertEquals(64, normalizeCapacity(1));
        assertEquals(64, normalizeCapacity(64));
        assertEquals(128, normalizeCapacity(65));
        assertEquals(16384, normalizeCapacity(16384));
        assertEquals(1 << 22, normalizeCapacity(Long.MAX_VALUE));
        RecordRegion r = privateRegion(100);
        assertEquals(128, r.capacity());
        assertEquals(128, bytes(r).getInt((int) H_CAPACITY));
        assertEquals(regionSize(128), r.byteSize());
    }

    @Test
    void contextWritersAreOredIntoTheHeaderAndNeverCleared() {
        RecordRegion r = privateRegion(64);
        assertEquals(0, bytes(r).getInt((int) H_CONTEXT_WRITERS), "a new region has no writer");
        r.currentRecord(); // claiming a record is not declaring a writer (libvtscope claims at thread start)
        assertEquals(0, r.contextWriters());
        r.declareContextWriter(WRITER_API);
        assertEquals(WRITER_API, bytes(r).getInt((int) H_CONTEXT_WRITERS));
        r.declareContextWriter(WRITER_OTEL_STORAGE);
        r.declareContextWriter(WRITER_API);
        assertEquals(WRITER_API | WRITER_OTEL_STORAGE, r.contextWriters());
        // Another writer of the same region (a second class loader's instance) keeps both bits.
        bytes(r).putInt((int) H_CONTEXT_WRITERS, WRITER_OTEL_STORAGE);
        RecordRegion other = new RecordRegion(r.buffer(), r.address());
        other.declareContextWriter(WRITER_API);
        assertEquals(WRITER_API | WRITER_OTEL_STORAGE, r.contextWriters());
        assertEquals(0, header(r, H_RECORDS_UNAVAILABLE), "the neighbouring counter is untouched");
    }

    @Test
    void claimWritesOwnerAndKindAndCountsClaims() throws Exception {
        RecordRegion r = privateRegion(64);
        long platform = r.currentRecordOffset();
        long pslot = slotIndex(platform);
        assertEquals(Thread.currentThread().threadId(), owner(r, pslot));
        assertEquals(KIND_PLATFORM, kind(r, pslot));
        assertEquals(platform, r.currentRecordOffset(), "one claim per thread");
        assertEquals(1, header(r, H_RECORDS_CLAIMED));

        AtomicReference<Long> vslot = new AtomicReference<>();
        Thread v = Thread.ofVirtual().start(() -> vslot.set(slotIndex(r.currentRecordOffset())));
        v.join();
        assertEquals(v.threadId(), owner(r, vslot.get()));
        assertEquals(KIND_VIRTUAL, kind(r, vslot.get()));
        assertEquals(2, header(r, H_RECORDS_CLAIMED));
    }

    @Test
    void collidingThreadIdsGetDifferentSlots() throws Exception {
        RecordRegion r = privateRegion(64);
        CountDownLatch done = new CountDownLatch(1);
        AtomicReference<Long> first = new AtomicReference<>();
        AtomicReference<Long> second = new AtomicReference<>();
        Thread a = Thread.ofPlatform().unstarted(() -> {
            first.set(r.currentRecordOffset());
            awaitQuietly(done);
        });
        Thread b;
        do { // thread ids are handed out sequentially at construction, so this takes < 64 tries
            b = Thread.ofPlatform().unstarted(() -> second.set(r.currentRecordOffset()));
        } while (((b.threadId() ^ a.threadId()) & 63) != 0);
        a.start();
        while (first.get() == null) {
            Thread.onSpinWait();
        }
        b.start();
        b.join();
        done.countDown();
        a.join();
        long home = a.threadId() & 63;
        assertEquals(home, slotIndex(first.get()));
        assertEquals((home + 1) & 63, slotIndex(second.get()), "linear probing takes the next slot");
        assertEquals(a.threadId(), owner(r, home));
        assertEquals(b.threadId(), owner(r, (home + 1) & 63));
    }

    @Test
    void fullRegionCountsUnavailableAndPublishFails() throws Exception {
        RecordRegion r = privateRegion(64);
        CountDownLatch done = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        List<Boolean> results = java.util.Collections.synchronizedList(new ArrayList<>());
        CountDownLatch published = new CountDownLatch(65);
        for (int i = 0; i < 65; i++) { // more live threads than slots: at least one must fail
            threads.add(Thread.ofVirtual().start(() -> {
                results.add(r.publish(1, 2, 3, 1));
                published.countDown();
                awaitQuietly(done);
            }));
        }
        published.await();
        done.countDown();
        for (Thread t : threads) {
            t.join();
        }
        long failed = results.stream().filter(ok -> !ok).count();
        assertTrue(failed >= 1);
        assertEquals(failed, header(r, H_RECORDS_UNAVAILABLE));
        assertEquals(65 - failed, header(r, H_RECORDS_CLAIMED));
    }

    @Test
    void slotOfTerminatedThreadIsTakenOverWithoutGc() throws Exception {
        RecordRegion r = privateRegion(64);
        AtomicReference<Long> first = new AtomicReference<>();
        AtomicReference<Long> second = new AtomicReference<>();
        Thread a = Thread.ofVirtual().unstarted(() -> {
            r.publish(0x0af7651916cd43ddL, 0x8448eb211c80319cL, 0xb7ad6b7169203331L, 1);
            first.set(r.currentRecordOffset());
        });
        Thread b;
        do { // a thread whose home slot is a's
            b = Thread.ofPlatform().unstarted(() -> {
                r.publish(5, 6, 7, 1);
                second.set(r.currentRecordOffset());
            });
        } while (((b.threadId() ^ a.threadId()) & 63) != 0);
        a.start();
        a.join(); // a has terminated; its Thread object is still strongly reachable here
        long home = a.threadId() & 63;
        assertEquals(home, slotIndex(first.get()));
        assertEquals(a.threadId(), owner(r, home), "a terminated thread keeps its slot until it is needed");
        b.start();
        b.join();
        assertEquals(home, slotIndex(second.get()), "b takes over the dead thread's slot");
        assertEquals(b.threadId(), owner(r, home));
        assertEquals(KIND_PLATFORM, kind(r, home));
        assertEquals(2, header(r, H_RECORDS_CLAIMED));
        assertEquals(1, header(r, H_RECORDS_RELEASED));
        long rec = second.get();
        assertEquals(7, r.buffer().duplicate().order(ByteOrder.BIG_ENDIAN).getLong((int) (rec + R_SPAN_ID)));
        assertEquals(1, bytes(r).get((int) (rec + R_VALID)));
    }

    @Test
    void slotClaimedByAnotherWriterIsNeverTakenOver() throws Exception {
        RecordRegion r = new RecordRegion(64);
        AtomicReference<Long> homeOfA = new AtomicReference<>();
        Thread a = Thread.ofVirtual().unstarted(() -> homeOfA.set(slotIndex(r.currentRecordOffset())));
        long aId = a.threadId();
        a.start();
        a.join();
        long home = homeOfA.get();
        // libvtscope claims slots at thread start without a Java reference: emulate a live
        // thread 'foreign' that now owns a's old slot, then let a's Thread object be collected.
        long foreign = aId + 64 * 1000;
        bytes(r).putLong((int) (HEADER_SIZE + home * SLOT_SIZE + S_OWNER), foreign);
        a = null;
        for (int i = 0; i < 5; i++) {
            System.gc();
        }
        AtomicReference<Long> mine = new AtomicReference<>();
        Thread b;
        do {
            b = Thread.ofPlatform().unstarted(() -> mine.set(r.currentRecordOffset()));
        } while (((b.threadId() - aId) & 63) != 0);
        b.start();
        b.join();
        assertEquals(foreign, owner(r, home), "a slot whose owner left no reference is never taken over");
        assertEquals((home + 1) & 63, slotIndex(mine.get()));
    }

    @Test
    void clearDoesNotClaimAndWritesFollowTheRecordLayout() throws Exception {
        RecordRegion r = privateRegion(64);
        // Run in a virtual thread and propagate its assertion failures through the future.
        try (var executor = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
          executor.submit(() -> {
            r.clear();
            assertEquals(-1, r.claimedRecordOffset(), "clearing claims nothing");
            r.publish(0x0102030405060708L, 2, 3, 0x81);
            int rec = (int) r.claimedRecordOffset();
            ByteBuffer s = bytes(r);
            assertEquals(1, s.get(rec + (int) RecordLayout.R_TRACE_ID + 0), "big-endian trace id");
            assertEquals(8, s.get(rec + (int) RecordLayout.R_TRACE_ID + 7));
            assertEquals(2, r.traceIdLow(rec));
            assertEquals(3, r.spanId(rec));
            assertEquals(1, s.get(rec + (int) RecordLayout.R_VALID), "valid");
            assertEquals((byte) 0x81, s.get(rec + (int) RecordLayout.R_TRACE_FLAGS), "flags");
            assertEquals(0, s.getShort(rec + (int) RecordLayout.R_ATTRS_SIZE), "no attributes");
            r.clear();
            assertEquals(0, s.get(rec + (int) RecordLayout.R_VALID), "cleared");
            assertEquals(0, r.traceIdHigh(rec));
            assertEquals(0, r.traceIdLow(rec));
            assertEquals(0, r.spanId(rec));
            return null;
          }).get();
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
