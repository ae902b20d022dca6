// SPDX-License-Identifier: Apache-2.0
package io.vtscope.internal;

import java.io.IOException;
import java.lang.invoke.MethodType;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * The shared memory of a record region: on JDK 22+ an anonymous memfd mapped with FFM downcalls
 * ({@link FfmRegionMapping}). JDK 21 has FFM only as a preview, so no memfd_create and no native
 * library there: the region is a file created with CREATE_NEW under /dev/shm (else
 * {@code java.io.tmpdir}), named {@code <name>-<pid>-<random>}, mapped with
 * {@code FileChannel.map(READ_WRITE)} and unlinked at once. Readers find it in
 * {@code /proc/PID/maps} by that name ({@link RecordRegion#isRegionPath}).
 */
final class RegionMapping {
    /** The descriptors of the regions created here, kept open: see {@link #adoptFile}. */
    private static final List<FileChannel> CREATED = new ArrayList<>();

    /** The whole mapping, a direct buffer of its size. */
    final ByteBuffer buffer;
    /** The native address of its first byte. */
    final long address;

    RegionMapping(ByteBuffer buffer, long address) {
        this.buffer = buffer;
        this.address = address;
    }

    /**
     * Maps {@code size} new zeroed bytes, shared, named {@code name}: a memfd on JDK 22+, else a
     * file.
     *
     * @throws IllegalStateException if it cannot be mapped (the message says why)
     */
    static RegionMapping create(String name, long size) {
        if (!Ffm.AVAILABLE) {
            return createFile(name, size);
        }
        try {
            return (RegionMapping) Ffm.staticMethod("FfmRegionMapping", "create",
                    MethodType.methodType(RegionMapping.class, String.class, long.class)).invokeExact(name, size);
        } catch (Throwable t) {
            throw Ffm.rethrow(t);
        }
    }

    /**
     * The region this process maps at [start, end) with maps path {@code path}: used where it is
     * on JDK 22+, else mapped again ({@link #adoptFile}).
     *
     * @throws IllegalStateException if it cannot be reached
     */
    static RegionMapping adopt(long start, long end, String path) {
        if (!Ffm.AVAILABLE) {
            return adoptFile(start, end, path);
        }
        try {
            return (RegionMapping) Ffm.staticMethod("FfmRegionMapping", "adopt",
                    MethodType.methodType(RegionMapping.class, long.class, long.class, String.class))
                    .invokeExact(start, end, path);
        } catch (Throwable t) {
            throw Ffm.rethrow(t);
        }
    }

    /**
     * Maps {@code size} new zeroed bytes, shared, as a file that no other process can have opened.
     *
     * @throws IllegalStateException if neither /dev/shm nor {@code java.io.tmpdir} takes the file
     *     (the message names both failures)
     */
    private static RegionMapping createFile(String name, long size) {
        if (!System.getProperty("os.name", "").startsWith("Linux")) {
            throw new IllegalStateException("not Linux (" + System.getProperty("os.name") + ")");
        }
        byte[] random = new byte[8];
        new SecureRandom().nextBytes(random);
        String file = name + "-" + ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(random);
        List<String> failures = new ArrayList<>();
        // Under /dev/shm the consumer follows the region's openat (RecordLayout.REGION_FILE_PREFIX is
        // /dev/shm/ + REGION_NAME + "-"), so a region made after it attached is known before its first
        // use; under java.io.tmpdir it is found at the consumer's next look at the maps.
        for (Path dir : List.of(Path.of("/dev/shm"), Path.of(System.getProperty("java.io.tmpdir")))) {
            try {
                return mapNewFile(dir.resolve(file), size);
            } catch (IOException | RuntimeException e) {
                failures.add(dir + ": " + e);
            }
        }
        throw new IllegalStateException("cannot map " + file + " (JDK 21: a file instead of a memfd): "
                + String.join("; ", failures));
    }

    private static RegionMapping mapNewFile(Path path, long size) throws IOException {
        FileChannel channel = FileChannel.open(path,
                EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        boolean kept = false;
        try {
            // Writing every byte allocates every page now: a full tmpfs fails here, with a reason,
            // rather than with SIGBUS at some later record write.
            ByteBuffer zeros = ByteBuffer.allocate(1 << 16);
            for (long at = 0; at < size; ) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), size - at));
                at += channel.write(zeros, at);
            }
            MappedByteBuffer buffer = channel.map(FileChannel.MapMode.READ_WRITE, 0, size);
            // The memfd version maps with MAP_POPULATE for the same reason: eBPF reads cannot
            // fault pages in, so every page must be in the page tables before any record is read.
            buffer.load();
            long address = addressOf(path.toString(), NativeLibrary.mapsOfThisProcess());
            if (address == 0) {
                throw new IOException("the new mapping of " + path + " is not in /proc/self/maps");
            }
            synchronized (CREATED) {
                CREATED.add(channel);
            }
            kept = true;
            return new RegionMapping(buffer, address);
        } finally {
            // Unlinked at once: the mapping and the kept descriptor hold the file.
            Files.deleteIfExists(path);
            if (!kept) {
                channel.close();
            }
        }
    }

    /** The start of the first mapping of {@code path} (deleted or not) among maps lines, else 0. */
    private static long addressOf(String path, List<String> mapsLines) {
        for (String line : mapsLines) {
            String[] f = line.trim().split("\\s+", 6);
            if (f.length == 6 && (f[5].equals(path) || f[5].equals(path + " (deleted)"))) {
                return Long.parseUnsignedLong(f[0].substring(0, f[0].indexOf('-')), 16);
            }
        }
        return 0;
    }

    /**
     * The region mapped at [start, end) with maps path {@code path}, mapped again here: without
     * FFM a buffer over an existing address cannot be made, only a new mapping of the same file,
     * which shares its pages. The file is reached through a descriptor of this process, in
     * /proc/self/fd (its creator keeps one open, see {@link #createFile}), else through
     * /proc/self/map_files (the memfd of libvtscope, which keeps none; opening it needs
     * CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE). The address reported is {@code start}: the
     * region's bytes at the first mapping, which readers find first, are the same bytes.
     *
     * @throws IllegalStateException if the file cannot be reached or mapped
     */
    private static RegionMapping adoptFile(long start, long end, String path) {
        List<Path> candidates = new ArrayList<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            fds.filter(fd -> {
                try {
                    return Files.readSymbolicLink(fd).toString().equals(path);
                } catch (IOException | UnsupportedOperationException e) {
                    return false; // closed meanwhile (the listing's own descriptor), or not a link
                }
            }).forEach(candidates::add);
        } catch (IOException e) {
            // no /proc/self/fd: only map_files is left
        }
        candidates.add(Path.of("/proc/self/map_files/" + Long.toHexString(start) + "-" + Long.toHexString(end)));
        List<String> failures = new ArrayList<>();
        for (Path candidate : candidates) {
            try (FileChannel channel = FileChannel.open(candidate, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                if (channel.size() < end - start) {
                    failures.add(candidate + ": " + channel.size() + " bytes, the mapping has " + (end - start));
                    continue;
                }
                MappedByteBuffer buffer = channel.map(FileChannel.MapMode.READ_WRITE, 0, end - start);
                buffer.load();
                return new RegionMapping(buffer, start);
            } catch (IOException | RuntimeException e) {
                failures.add(candidate + ": " + e);
            }
        }
        throw new IllegalStateException("cannot map " + path + " again: " + String.join("; ", failures));
    }
}
