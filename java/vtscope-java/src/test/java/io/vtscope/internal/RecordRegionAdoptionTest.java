// SPDX-License-Identifier: Apache-2.0
package io.vtscope.internal;

import static io.vtscope.internal.RecordLayout.*;
import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Finding the region an -agentpath native library (or another class loader) already created. */
class RecordRegionAdoptionTest {
    private static final long PID = ProcessHandle.current().pid();

    private static String mapsLine(long start, long end, String perms, String offset, String path) {
        return HexFormat.of().toHexDigits(start).replaceFirst("^0{0,4}", "") + "-"
                + HexFormat.of().toHexDigits(end).replaceFirst("^0{0,4}", "") + " " + perms + " " + offset
                + " 00:01 4242                       " + path;
    }

    /**
     * A well-formed header for {@code capacity} slots in a plain direct buffer (not shared memory;
     * 8-aligned, as the validator's acquiring read of the magic needs), in the native order.
     */
    private static ByteBuffer header(int capacity, long pid) {
        ByteBuffer s = ByteBuffer.allocateDirect((int) regionSize(capacity) + 8);
        s = s.alignedSlice(8).order(ByteOrder.nativeOrder());
        s.putLong((int) H_MAGIC, MAGIC);
        s.putInt((int) H_VERSION, VERSION);
        s.putInt((int) H_HEADER_SIZE, HEADER_SIZE);
        s.putInt((int) H_SLOT_SIZE, SLOT_SIZE);
        s.putInt((int) H_CAPACITY, capacity);
        s.putInt((int) H_MAX_PROBE, MAX_PROBE);
        s.putInt((int) H_WRITER_PID, (int) pid);
        s.putInt((int) H_RECORD_OFFSET, RECORD_OFFSET);
        return s.slice(0, (int) regionSize(capacity)).order(ByteOrder.nativeOrder());
    }

    @Test
    void mapsLineParser() {
        long start = 0x7f1c2a000000L, end = 0x7f1c2a201000L;
        for (String path : List.of("/memfd:vtscope-records (deleted)", "/memfd:vtscope-records",
                "/dev/shm/vtscope-records-4242-0123456789abcdef (deleted)", "/tmp/vtscope-records-1-ab")) {
            RecordRegion.MapsEntry m = RecordRegion.parseMapsLine(mapsLine(start, end, "rw-s", "00000000", path));
            assertNotNull(m, path);
            assertEquals(start, m.start());
            assertEquals(end, m.end());
            assertEquals(path, m.path());
        }
        assertNull(RecordRegion.parseMapsLine(mapsLine(start, end, "rw-s", "00000000", "/dev/shm/vtscope-records")),
                "the JDK 21 writer's files are named vtscope-records-<pid>-<random>");
        assertNull(RecordRegion.parseMapsLine(mapsLine(start, end, "rw-s", "00000000", "/dev/shm/x-vtscope-records-1")));
        assertNull(RecordRegion.parseMapsLine(mapsLine(start, end, "rw-s", "00000000", "/dev/shm/vtscope-test-records-1-ab")),
                "a private region of the tests");
        assertNull(RecordRegion.parseMapsLine(mapsLine(start, end, "rw-s", "00000000", "/memfd:vtscope-records-test (deleted)")),
                "the name must end at the end of the line or a space");
        assertNull(RecordRegion.parseMapsLine(mapsLine(start, end, "rw-s", "00000000", "/memfd:OTEL_CTX (deleted)")));
        assertNull(RecordRegion.parseMapsLine(mapsLine(start, end, "rw-s", "00000000", "/tmp/memfd:vtscope-records")));
        assertNull(RecordRegion.parseMapsLine(mapsLine(start, end, "rw-p", "00000000", "/memfd:vtscope-records (deleted)")),
                "a private mapping is nobody's shared region");
        assertNull(RecordRegion.parseMapsLine(mapsLine(start, end, "r--s", "00000000", "/memfd:vtscope-records (deleted)")));
        assertNull(RecordRegion.parseMapsLine(mapsLine(start, end, "rw-s", "00001000", "/memfd:vtscope-records (deleted)")),
                "a mapping from offset 0 holds the header");
        assertNull(RecordRegion.parseMapsLine("7f1c2a000000-7f1c2a201000 rw-s 00000000 00:01 4242"), "anonymous");
        assertNull(RecordRegion.parseMapsLine("garbage rw-s 00000000 00:01 4242 /memfd:vtscope-records"));
        assertNull(RecordRegion.parseMapsLine(""));
    }

    @Test
    void headerValidator() {
        assertNull(RecordRegion.validateHeader(header(64, PID), PID));

        ByteBuffer otherPid = header(64, PID + 1);
        assertTrue(RecordRegion.validateHeader(otherPid, PID).startsWith("writer_pid"));

        ByteBuffer badMagic = header(64, PID);
        badMagic.putLong((int) H_MAGIC, MAGIC + 1);
        assertTrue(RecordRegion.validateHeader(badMagic, PID).startsWith("magic"));

        ByteBuffer badVersion = header(64, PID);
        badVersion.putInt((int) H_VERSION, VERSION + 1);
        assertTrue(RecordRegion.validateHeader(badVersion, PID).startsWith("version"));

        ByteBuffer badSlot = header(64, PID);
        badSlot.putInt((int) H_SLOT_SIZE, 64);
        assertTrue(RecordRegion.validateHeader(badSlot, PID).startsWith("slot_size"));

        ByteBuffer badCapacity = header(64, PID);
        badCapacity.putInt((int) H_CAPACITY, 48);
        assertTrue(RecordRegion.validateHeader(badCapacity, PID).startsWith("capacity"));
        badCapacity.putInt((int) H_CAPACITY, 0);
        assertTrue(RecordRegion.validateHeader(badCapacity, PID).startsWith("capacity"));

        ByteBuffer tooSmall = header(128, PID).slice(0, (int) regionSize(64));
        assertTrue(RecordRegion.validateHeader(tooSmall, PID).contains("smaller than 128 slots"));
        assertTrue(RecordRegion.validateHeader(tooSmall.slice(0, 64), PID).contains("smaller than the header"));
    }

    @Test
    void adoptsTheRegionOfThisProcessFromProcMaps() throws Exception {
        // Decide the JVM-wide region first, so the region made here cannot become it.
        RecordRegion.global();
        RecordRegion created = new RecordRegion(64);
        String line = Files.readAllLines(Path.of("/proc/self/maps")).stream()
                .filter(l -> Long.parseUnsignedLong(l.substring(0, l.indexOf('-')), 16) == created.address())
                .findFirst().orElseThrow();
        assertTrue(line.contains(Runtime.version().feature() >= 22 ? "/memfd:vtscope-records (deleted)"
                : "/dev/shm/vtscope-records-" + PID + "-"), line);

        RecordRegion adopted = RecordRegion.adoptExisting(List.of(line), PID);
        assertNotNull(adopted);
        assertEquals(created.address(), adopted.address());
        assertEquals(created.byteSize(), adopted.byteSize());
        assertEquals(64, adopted.capacity());
        assertNull(RecordRegion.adoptExisting(List.of(line), PID + 1), "another process's region is not adopted");

        // Both instances share the slots: a claim through one is found through the other.
        assertTrue(adopted.publish(1, 2, 3, 1));
        assertEquals(adopted.claimedRecordOffset(), created.claimedRecordOffset());
        assertEquals(3, created.spanId(created.claimedRecordOffset()));

        // A scan of the whole maps file adopts some valid region of this process, never a private one.
        RecordRegion any = RecordRegion.adoptExisting(Files.readAllLines(Path.of("/proc/self/maps")), PID);
        assertNotNull(any);
        assertNull(RecordRegion.validateHeader(any.buffer(), PID));
    }

    @Test
    void privateRegionsAreNotAdoptable() throws Exception {
        RecordRegion hidden = RecordRegionTest.privateRegion(64);
        String line = Files.readAllLines(Path.of("/proc/self/maps")).stream()
                .filter(l -> Long.parseUnsignedLong(l.substring(0, l.indexOf('-')), 16) == hidden.address())
                .findFirst().orElseThrow();
        assertNull(RecordRegion.adoptExisting(List.of(line), PID), line);
    }
}
