// SPDX-License-Identifier: Apache-2.0
package io.vtscope.internal;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Locating and extracting libvtscope.so, and the checks that make extraction fail closed. These
 * run on the pieces of {@link NativeLibrary} with explicit roots, so they never touch the
 * process-wide library; they need no native library (fake bytes are extracted, not loaded) except
 * {@link #extractedRealLibraryLoads}.
 */
class NativeLibraryTest {
    private static final byte[] LIBRARY = "not really an ELF file".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path root;

    private Path rendezvous() throws IOException {
        return root.resolve("vtscope-" + NativeLibrary.currentUid() + "-" + ProcessHandle.current().pid());
    }

    private static IOException refused(Callable<?> extraction, String expected) {
        IOException e = assertThrows(IOException.class, extraction::call);
        assertTrue(e.getMessage().contains(expected), () -> "message '" + e.getMessage() + "' lacks '" + expected + "'");
        return e;
    }

    @Test
    void platformNames() {
        assertEquals("linux-x86_64", NativeLibrary.platform("Linux", "amd64"));
        assertEquals("linux-x86_64", NativeLibrary.platform("Linux", "x86_64"));
        assertEquals("linux-aarch64", NativeLibrary.platform("Linux", "aarch64"));
        assertNull(NativeLibrary.platform("Linux", "riscv64"));
        assertNull(NativeLibrary.platform("Mac OS X", "aarch64"));
        assertNull(NativeLibrary.platform("Windows 11", "amd64"));
        assertEquals("/io/vtscope/native/linux-x86_64/libvtscope.so", NativeLibrary.resourceName("linux-x86_64"));
    }

    @Test
    void uidIsThatOfCreatedFiles() throws IOException {
        Path f = Files.createFile(root.resolve("probe"));
        assertEquals(Files.getAttribute(f, "unix:uid"), NativeLibrary.currentUid());
    }

    @Test
    void extractsIntoOwnerOnlyDirectoryUnderAHashedName() throws IOException {
        Path lib = NativeLibrary.extract(LIBRARY, root);
        assertEquals(rendezvous(), lib.getParent());
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(lib.getParent())));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(lib)));
        assertEquals("libvtscope-" + NativeLibrary.sha256(LIBRARY).substring(0, 16) + ".so", lib.getFileName().toString());
        assertArrayEquals(LIBRARY, Files.readAllBytes(lib));
        try (var files = Files.list(lib.getParent())) {
            assertEquals(List.of(lib), files.toList(), "no temporary file is left behind");
        }
    }

    @Test
    void everyExtractorOfTheSameBytesRendezvousesOnOneFile() throws Exception {
        // Class loaders of one process extract concurrently; they must all end on one file.
        List<Future<Path>> results = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
            for (int i = 0; i < 8; i++) {
                results.add(pool.submit(() -> NativeLibrary.extract(LIBRARY, root)));
            }
        }
        Path first = results.getFirst().get();
        for (Future<Path> r : results) {
            assertEquals(first, r.get());
        }
        assertArrayEquals(LIBRARY, Files.readAllBytes(first));
        byte[] other = "another build".getBytes(StandardCharsets.US_ASCII);
        Path second = NativeLibrary.extract(other, root);
        assertEquals(first.getParent(), second.getParent());
        assertNotEquals(first, second, "a different library gets a different name");
        try (var files = Files.list(first.getParent())) {
            assertEquals(2, files.count());
        }
    }

    @Test
    void refusesRendezvousDirectoryOfAnotherUser() throws Exception {
        Assumptions.assumeTrue(NativeLibrary.currentUid() == 0, "changing a directory's owner needs root");
        Path dir = Files.createDirectory(rendezvous(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        UserPrincipal nobody = root.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
        Files.setOwner(dir, nobody);
        refused(() -> NativeLibrary.extract(LIBRARY, root), "owned by uid " + Files.getAttribute(dir, "unix:uid"));
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count(), "nothing is written into a refused directory");
        }
    }

    @Test
    void refusesWorldWritableRendezvousDirectory() throws Exception {
        Path dir = Files.createDirectory(rendezvous());
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        refused(() -> NativeLibrary.extract(LIBRARY, root), "writable by others (rwxrwxrwx)");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwx---"));
        refused(() -> NativeLibrary.extract(LIBRARY, root), "writable by others (rwxrwx---)");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertEquals(dir, NativeLibrary.extract(LIBRARY, root).getParent(), "read access for others is harmless");
    }

    @Test
    void refusesSymlinkAtRendezvousPath() throws Exception {
        // Even a link to a directory that would pass every check: the link itself could be swapped.
        Path target = Files.createDirectory(root.resolve("elsewhere"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.createSymbolicLink(rendezvous(), target);
        refused(() -> NativeLibrary.extract(LIBRARY, root), "rendezvous directory is a symbolic link");
        try (var files = Files.list(target)) {
            assertEquals(0, files.count());
        }
    }

    @Test
    void refusesNonDirectoryAtRendezvousPath() throws Exception {
        Files.createFile(rendezvous());
        refused(() -> NativeLibrary.extract(LIBRARY, root), "not a directory");
    }

    @Test
    void refusesSymlinkAtLibraryFileName() throws Exception {
        Path first = NativeLibrary.extract(LIBRARY, root);
        Path planted = Files.write(root.resolve("planted.so"), LIBRARY); // even with the right bytes
        Files.delete(first);
        Files.createSymbolicLink(first, planted);
        refused(() -> NativeLibrary.extract(LIBRARY, root), "library file is a symbolic link");
        assertTrue(Files.isSymbolicLink(first), "the planted link is left for inspection, not followed");
    }

    @Test
    void refusesLibraryFileWithOtherContent() throws Exception {
        Path first = NativeLibrary.extract(LIBRARY, root);
        Files.write(first, "tampered".getBytes(StandardCharsets.US_ASCII));
        refused(() -> NativeLibrary.extract(LIBRARY, root), "content differs");
    }

    @Test
    void refusesWritableLibraryFile() throws Exception {
        Path first = NativeLibrary.extract(LIBRARY, root);
        Files.setPosixFilePermissions(first, PosixFilePermissions.fromString("rw-rw-rw-"));
        refused(() -> NativeLibrary.extract(LIBRARY, root), "library file is writable by others");
    }

    @Test
    void explicitPathMustBeAFile() throws Exception {
        Path missing = root.resolve("missing.so");
        NoSuchFileException e = assertThrows(NoSuchFileException.class,
                () -> NativeLibrary.locate(missing.toString(), root, "linux-x86_64"));
        assertTrue(e.getMessage().contains(NativeLibrary.LIBRARY_PATH_PROPERTY), e.getMessage());
        Path present = Files.write(root.resolve("present.so"), LIBRARY);
        assertEquals(present, NativeLibrary.locate(present.toString(), root, null), "an explicit path needs no platform");
    }

    @Test
    void unsupportedPlatformIsRefusedWithReason() {
        IOException e = assertThrows(IOException.class, () -> NativeLibrary.locate(null, root, null));
        assertTrue(e.getMessage().contains("unsupported platform"), e.getMessage());
    }

    @Test
    void describesResultCodes() {
        assertEquals("ok (0)", NativeLibrary.describe(NativeLibrary.OK));
        assertTrue(NativeLibrary.describe(NativeLibrary.ERR_NOT_VIRTUAL).contains("not a virtual thread"));
        assertTrue(NativeLibrary.describe(NativeLibrary.ERR_ALREADY).contains("already registered"));
        assertEquals("unknown result -99 (-99)", NativeLibrary.describe(-99));
    }

    /** With the real library built: the packaged resource matches it, and extracting it yields a loadable file. */
    @Test
    void extractedRealLibraryLoads() throws Exception {
        Path built = NativeTestSupport.builtLibrary();
        byte[] bytes = Files.readAllBytes(built);
        try (var in = NativeLibrary.class.getResourceAsStream(NativeLibrary.resourceName("linux-x86_64"))) {
            assertNotNull(in, "the build copies libvtscope.so into the jar's resources");
            assertArrayEquals(bytes, in.readAllBytes());
        }
        Path extracted = NativeLibrary.locate(null, root, "linux-x86_64");
        assertTrue(Files.isRegularFile(extracted, LinkOption.NOFOLLOW_LINKS));
        assertArrayEquals(bytes, Files.readAllBytes(extracted));
        // A second copy at another path is a separate, uninitialized instance of the library: only
        // query it, never initialize it (that would make a second JVMTI agent), and unload it so
        // that no later class loader finds it mapped.
        NativeLibrary copy = NativeLibrary.loadUnloadable(extracted);
        try {
            assertEquals(0, copy.features());
            assertEquals(0, copy.liveBlocks());
        } finally {
            copy.unload();
        }
        assertNull(NativeLibrary.mappedLibrary(Files.readAllLines(Path.of("/proc/self/maps")).stream()
                .filter(l -> l.contains(extracted.toString())).toList()), "the copy was unloaded");
    }

    @Test
    void mappedLibraryIsFoundByNameAndInode() throws Exception {
        Path agent = Files.write(root.resolve("libvtscope.so"), LIBRARY);
        Path extracted = Files.write(root.resolve("libvtscope-0123456789abcdef.so"), LIBRARY);
        Path other = Files.write(root.resolve("libother.so"), LIBRARY);
        java.util.function.Function<Path, String> line = p -> {
            try {
                return "7f85ccfca000-7f85ccfce000 r--p 00000000 fe:00 " + Files.getAttribute(p, "unix:ino")
                        + "                    " + p;
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        };
        assertEquals(agent, NativeLibrary.mappedLibrary(List.of(line.apply(other), line.apply(agent))));
        assertEquals(extracted, NativeLibrary.mappedLibrary(List.of(line.apply(extracted))));
        assertNull(NativeLibrary.mappedLibrary(List.of(line.apply(other))));
        assertNull(NativeLibrary.mappedLibrary(List.of(line.apply(agent) + " (deleted)")), "a deleted file cannot be opened");
        assertNull(NativeLibrary.mappedLibrary(List.of(line.apply(agent).replace(" fe:00 ", " fe:00 1"))),
                "another inode: the file was replaced after it was mapped");
        assertNull(NativeLibrary.mappedLibrary(List.of("7f85ccdc9000-7f85ccfca000 rw-s 00000000 00:01 245 /memfd:vtscope-records (deleted)")));
        assertNull(NativeLibrary.mappedLibrary(List.of("7fff1000-7fff2000 r-xp 00000000 00:00 0 [vdso]", "")));
    }
}
