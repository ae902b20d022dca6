// SPDX-License-Identifier: Apache-2.0
package io.vtscope;

import static io.vtscope.internal.RecordLayout.*;
import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The public API against the JVM-wide region, read back the way a native reader sees it. */
class VtScopeTest {
    private static final String TRACE = "0af7651916cd43dd8448eb211c80319c";
    private static final String SPAN = "b7ad6b7169203331";

    /** The region's bytes in the readers' (native) byte order. */
    private static ByteBuffer region;
    private static long base;

    @BeforeAll
    static void region() {
        assertTrue(VtScope.isAvailable(), VtScope.unavailableReason());
        assertNull(VtScope.unavailableReason());
        io.vtscope.internal.RecordRegion global = io.vtscope.internal.RecordRegion.global();
        region = global.buffer().duplicate().order(ByteOrder.nativeOrder());
        base = global.address();
    }

    /** Offset in the region of the record at {@code address}, an address recordAddress() gave. */
    private static int offsetOf(long address) {
        assertNotEquals(0, address);
        return Math.toIntExact(address - base);
    }

    /** Offset of the calling thread's record. */
    private static int record() {
        return offsetOf(VtScope.recordAddress());
    }

    private static byte[] bytes(int offset, int length) {
        byte[] b = new byte[length];
        region.get(offset, b);
        return b;
    }

    @Test
    void headerIsComplete() throws Exception {
        assertEquals(MAGIC, region.getLong((int) H_MAGIC));
        assertEquals(VERSION, region.getInt((int) H_VERSION));
        assertEquals(HEADER_SIZE, region.getInt((int) H_HEADER_SIZE));
        assertEquals(SLOT_SIZE, region.getInt((int) H_SLOT_SIZE));
        assertEquals(DEFAULT_CAPACITY, region.getInt((int) H_CAPACITY));
        assertEquals(MAX_PROBE, region.getInt((int) H_MAX_PROBE));
        assertEquals(ProcessHandle.current().pid(), region.getInt((int) H_WRITER_PID));
        assertEquals(RECORD_OFFSET, region.getInt((int) H_RECORD_OFFSET));
        assertEquals(regionSize(DEFAULT_CAPACITY), region.capacity());
        assertEquals("VTSCREC1", new String(bytes(0, 8)));
        String maps = Files.readString(Path.of("/proc/self/maps"));
        String line = maps.lines().filter(l -> l.startsWith(Long.toHexString(base) + "-")).findFirst().orElseThrow();
        // JDK 22+: a memfd; JDK 21 (no FFM): an unlinked file under /dev/shm.
        assertTrue(Runtime.version().feature() >= 22 ? line.endsWith(" /memfd:vtscope-records (deleted)")
                : line.matches(".* /dev/shm/vtscope-records-" + ProcessHandle.current().pid() + "-[0-9a-f]{16} \\(deleted\\)"), line);
    }

    @Test
    void publishWritesW3cBytesThenValid() {
        assertTrue(VtScope.publish(TRACE, SPAN, 1));
        int r = record();
        byte[] expected = new byte[RECORD_SIZE];
        System.arraycopy(HexFormat.of().parseHex(TRACE), 0, expected, 0, 16);
        System.arraycopy(HexFormat.of().parseHex(SPAN), 0, expected, 16, 8);
        expected[(int) R_VALID] = 1;
        expected[(int) R_TRACE_FLAGS] = 1;
        assertArrayEquals(expected, bytes(r, RECORD_SIZE));
        int slot = r - RECORD_OFFSET;
        assertEquals(Thread.currentThread().threadId(), region.getLong(slot + (int) S_OWNER));
        assertEquals(KIND_PLATFORM, region.get(slot + (int) S_KIND));

        assertTrue(VtScope.publish(TRACE.toUpperCase(), SPAN.toUpperCase(), 0));
        assertEquals(0, region.get(r + (int) R_TRACE_FLAGS));
        assertTrue(VtScope.publish(0x0af7651916cd43ddL, 0x8448eb211c80319cL, 0xb7ad6b7169203331L, 1));
        assertArrayEquals(expected, bytes(r, RECORD_SIZE));
    }

    @Test
    void publishingDeclaresTheApiAsAContextWriter() {
        assertTrue(VtScope.publish(TRACE, SPAN, 1));
        int writers = region.getInt((int) H_CONTEXT_WRITERS);
        assertEquals(WRITER_API, writers & WRITER_API, "writers: " + writers);
        VtScope.clear();
    }

    @Test
    void clearZeroesIdsAndValid() {
        assertTrue(VtScope.publish(TRACE, SPAN, 1));
        VtScope.clear();
        assertArrayEquals(new byte[RECORD_SIZE], bytes(record(), RECORD_SIZE));
    }

    @Test
    void invalidIdsAreRejectedAndClear() {
        String[][] bad = {
            {TRACE.substring(1), SPAN}, {TRACE, SPAN + "0"}, {TRACE.replace('a', 'g'), SPAN},
            {TRACE, SPAN.replace('b', 'x')}, {"0".repeat(32), SPAN}, {TRACE, "0".repeat(16)},
            {null, SPAN}, {TRACE, null}, {TRACE.replace('0', ' '), SPAN},
        };
        for (String[] ids : bad) {
            assertTrue(VtScope.publish(TRACE, SPAN, 1));
            assertFalse(VtScope.publish(ids[0], ids[1], 1), ids[0] + "/" + ids[1]);
            assertEquals(0, region.get(record() + (int) R_VALID));
            assertEquals(0, region.getLong(record() + (int) R_TRACE_ID));
        }
        assertFalse(VtScope.publish(0, 0, 1, 1));
        assertFalse(VtScope.publish(1, 0, 0, 1));
    }

    @Test
    void virtualThreadHasItsOwnRecordOfKindVirtual() throws Exception {
        AtomicLong address = new AtomicLong();
        Thread v = Thread.ofVirtual().start(() -> {
            VtScope.publish(TRACE, SPAN, 1);
            address.set(VtScope.recordAddress());
        });
        v.join();
        int r = offsetOf(address.get());
        assertNotEquals(record(), r);
        assertEquals(1, region.get(r + (int) R_VALID));
        assertEquals(v.threadId(), region.getLong(r - RECORD_OFFSET + (int) S_OWNER));
        assertEquals(KIND_VIRTUAL, region.get(r - RECORD_OFFSET + (int) S_KIND));
    }

    @Test
    void clearWithoutRecordDoesNotClaim() throws Exception {
        long claimed = region.getLong((int) H_RECORDS_CLAIMED);
        Thread v = Thread.ofVirtual().start(VtScope::clear);
        v.join();
        assertEquals(claimed, region.getLong((int) H_RECORDS_CLAIMED));
    }
}
