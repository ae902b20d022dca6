// SPDX-License-Identifier: Apache-2.0
package io.vtscope;

import static io.vtscope.internal.RecordLayout.*;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The public API against the JVM-wide region, read back the way a native reader sees it. */
@SuppressWarnings("restricted")
class VtScopeTest {
    private static final String TRACE = "0af7651916cd43dd8448eb211c80319c";
    private static final String SPAN = "b7ad6b7169203331";

    private static MemorySegment region;

    @BeforeAll
    static void region() {
        assertTrue(VtScope.isAvailable(), VtScope.unavailableReason());
        assertNull(VtScope.unavailableReason());
        region = io.vtscope.internal.RecordRegion.global().segment();
    }

    private static MemorySegment record() {
        long address = VtScope.recordAddress();
        assertNotEquals(0, address);
        return MemorySegment.ofAddress(address).reinterpret(RECORD_SIZE);
    }

    private static MemorySegment slotOf(MemorySegment record) {
        return MemorySegment.ofAddress(record.address() - RECORD_OFFSET).reinterpret(SLOT_SIZE);
    }

    @Test
    void headerIsComplete() throws Exception {
        assertEquals(MAGIC, region.get(ValueLayout.JAVA_LONG, H_MAGIC));
        assertEquals(VERSION, region.get(ValueLayout.JAVA_INT, H_VERSION));
        assertEquals(HEADER_SIZE, region.get(ValueLayout.JAVA_INT, H_HEADER_SIZE));
        assertEquals(SLOT_SIZE, region.get(ValueLayout.JAVA_INT, H_SLOT_SIZE));
        assertEquals(DEFAULT_CAPACITY, region.get(ValueLayout.JAVA_INT, H_CAPACITY));
        assertEquals(MAX_PROBE, region.get(ValueLayout.JAVA_INT, H_MAX_PROBE));
        assertEquals(ProcessHandle.current().pid(), region.get(ValueLayout.JAVA_INT, H_WRITER_PID));
        assertEquals(RECORD_OFFSET, region.get(ValueLayout.JAVA_INT, H_RECORD_OFFSET));
        assertEquals(regionSize(DEFAULT_CAPACITY), region.byteSize());
        assertEquals("VTSCREC1", new String(region.asSlice(0, 8).toArray(ValueLayout.JAVA_BYTE)));
        String maps = Files.readString(Path.of("/proc/self/maps"));
        assertTrue(maps.contains(Long.toHexString(region.address()) + "-"));
        assertTrue(maps.contains("/memfd:vtscope-records (deleted)"));
    }

    @Test
    void publishWritesW3cBytesThenValid() {
        assertTrue(VtScope.publish(TRACE, SPAN, 1));
        MemorySegment r = record();
        byte[] expected = new byte[RECORD_SIZE];
        System.arraycopy(HexFormat.of().parseHex(TRACE), 0, expected, 0, 16);
        System.arraycopy(HexFormat.of().parseHex(SPAN), 0, expected, 16, 8);
        expected[(int) R_VALID] = 1;
        expected[(int) R_TRACE_FLAGS] = 1;
        assertArrayEquals(expected, r.toArray(ValueLayout.JAVA_BYTE));
        MemorySegment slot = slotOf(r);
        assertEquals(Thread.currentThread().threadId(), slot.get(ValueLayout.JAVA_LONG, S_OWNER));
        assertEquals(KIND_PLATFORM, slot.get(ValueLayout.JAVA_BYTE, S_KIND));

        assertTrue(VtScope.publish(TRACE.toUpperCase(), SPAN.toUpperCase(), 0));
        assertEquals(0, r.get(ValueLayout.JAVA_BYTE, R_TRACE_FLAGS));
        assertTrue(VtScope.publish(0x0af7651916cd43ddL, 0x8448eb211c80319cL, 0xb7ad6b7169203331L, 1));
        assertArrayEquals(expected, r.toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void publishingDeclaresTheApiAsAContextWriter() {
        assertTrue(VtScope.publish(TRACE, SPAN, 1));
        int writers = region.get(ValueLayout.JAVA_INT, H_CONTEXT_WRITERS);
        assertEquals(WRITER_API, writers & WRITER_API, "writers: " + writers);
        VtScope.clear();
    }

    @Test
    void clearZeroesIdsAndValid() {
        assertTrue(VtScope.publish(TRACE, SPAN, 1));
        VtScope.clear();
        assertArrayEquals(new byte[RECORD_SIZE], record().toArray(ValueLayout.JAVA_BYTE));
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
            assertEquals(0, record().get(ValueLayout.JAVA_BYTE, R_VALID));
            assertEquals(0, record().get(ValueLayout.JAVA_LONG_UNALIGNED, R_TRACE_ID));
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
        MemorySegment r = MemorySegment.ofAddress(address.get()).reinterpret(RECORD_SIZE);
        assertNotEquals(record().address(), r.address());
        assertEquals(1, r.get(ValueLayout.JAVA_BYTE, R_VALID));
        assertEquals(v.threadId(), slotOf(r).get(ValueLayout.JAVA_LONG, S_OWNER));
        assertEquals(KIND_VIRTUAL, slotOf(r).get(ValueLayout.JAVA_BYTE, S_KIND));
    }

    @Test
    void clearWithoutRecordDoesNotClaim() throws Exception {
        long claimed = region.get(ValueLayout.JAVA_LONG, H_RECORDS_CLAIMED);
        Thread v = Thread.ofVirtual().start(VtScope::clear);
        v.join();
        assertEquals(claimed, region.get(ValueLayout.JAVA_LONG, H_RECORDS_CLAIMED));
    }
}
