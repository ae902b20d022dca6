// SPDX-License-Identifier: Apache-2.0
package io.vtscope.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * libvtscope.so, the in-JVM native library (C ABI: {@code native/include/vtscope_native.h}),
 * located, extracted, loaded and initialised once per class loader.
 *
 * <p><b>Locating.</b> A libvtscope this process already maps (the {@code -agentpath} agent, or
 * the copy another class loader extracted) is used as is: see {@link #mappedLibrary}. Otherwise
 * the system property {@value #LIBRARY_PATH_PROPERTY} names an explicit library file, or else the
 * jar's resource {@code /io/vtscope/native/<platform>/libvtscope.so} is extracted. Both
 * properties, and {@value #TMPDIR_PROPERTY} (the extraction root, default {@code java.io.tmpdir}),
 * are read once, at first use.
 *
 * <p><b>Extraction.</b> Every class loader of a process extracts into the same predictable
 * directory {@code <root>/vtscope-<uid>-<pid>}, under a file name carrying a hash of the content,
 * so they all load the very same file and the dynamic linker maps the library once: its
 * process-wide initialisation result is then shared by all of them. A predictable name in a shared
 * directory invites squatting, so a pre-existing directory is used only if it is a real directory
 * (not a symbolic link) owned by this user and writable by no one else, and an existing library
 * file only if it is a regular file whose content has the expected hash. Anything else fails
 * closed: the library is not loaded and the reason is kept.
 *
 * <p><b>Loading.</b> dlopen (never unloaded) and the C ABI bound by {@link NativeBindings}: FFM
 * downcalls on JDK 22+, where the JVM needs {@code --enable-native-access=ALL-UNNAMED} (or the
 * module's name) to run them without a warning. On JDK 21, where FFM is a preview, nothing is
 * located or loaded and {@link #unavailableReason()} says "needs JDK 22+ (FFM)".
 */
public final class NativeLibrary {
    public static final String LIBRARY_PATH_PROPERTY = "vtscope.library.path";
    public static final String TMPDIR_PROPERTY = "vtscope.tmpdir";
    public static final String LIBRARY_NAME = "libvtscope.so";

    public static final int FEATURE_VTT = 1;
    public static final int FEATURE_PROBES = 2;
    public static final int FEATURE_OTEP = 4;

    public static final int OK = 0;
    public static final int ERR_NO_JVM = -1;
    public static final int ERR_JVMTI = -2;
    public static final int ERR_UNSUPPORTED = -3;
    public static final int ERR_NOT_VIRTUAL = -4;
    public static final int ERR_ALREADY = -5;
    public static final int ERR_NOT_INITIALIZED = -6;
    public static final int ERR_NOT_OWNER = -7;
    public static final int ERR_FEATURES = -8;
    public static final int ERR_REGION = -9;

    /** sizeof(struct vtscope_vtt_block): one cache line. */
    public static final long VTT_BLOCK_SIZE = 64;
    public static final long VTT_MOUNTED_NS = 0;
    public static final long VTT_MOUNT_START_NS = 8;
    public static final long VTT_MOUNTS = 16;
    public static final long VTT_UNMOUNTS = 24;
    public static final long VTT_THREAD_ID = 32;

    private static final Set<PosixFilePermission> OWNER_ONLY_DIR = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> OWNER_ONLY_FILE = PosixFilePermissions.fromString("rw-------");
    /** Hex digits of the SHA-256 in the extracted file name: 64 bits tell builds apart. */
    private static final int HASH_PREFIX_CHARS = 16;
    /** The agent's file name, or the name {@link #extract} gives. */
    private static final Pattern MAPPED_NAME = Pattern.compile("libvtscope(-[0-9a-f]{" + HASH_PREFIX_CHARS + "})?\\.so");

    private final Path path;
    private final NativeBinding binding;

    private NativeLibrary(Path path, NativeBinding binding) {
        this.path = path;
        this.binding = binding;
    }

    /**
     * Loads the library at {@code path} (dlopen) and binds the C ABI. Loading the same path again
     * (from another class loader) returns the mapping already in the process.
     *
     * @throws IllegalArgumentException if the library cannot be opened
     * @throws IllegalStateException if a function of the C ABI is missing
     * @throws UnsupportedOperationException on JDK 21 (no FFM: {@link #unavailableReason()})
     */
    public static NativeLibrary load(Path path) {
        return new NativeLibrary(path, NativeBindings.bind(path, false));
    }

    /** As {@link #load(Path)}, but {@link #unload()} unloads the library (for tests). */
    static NativeLibrary loadUnloadable(Path path) {
        return new NativeLibrary(path, NativeBindings.bind(path, true));
    }

    /** Unloads a library loaded with {@link #loadUnloadable}. */
    void unload() {
        binding.unload();
    }

    /** The process's library, loaded on first call for this class loader; null if it cannot be. */
    public static NativeLibrary get() {
        return Holder.LIBRARY;
    }

    /** Why {@link #get()} is null, or null if it is not. */
    public static String unavailableReason() {
        return Holder.REASON;
    }

    /** The file that was loaded. */
    public Path path() {
        return path;
    }

    /** vtscope_native_init: process-wide, first result kept by the native side. */
    public int init(int featureBits, long regionBase, long regionSize) {
        return binding.init(featureBits, regionBase, regionSize);
    }

    /** vtscope_native_error: the message of the first failed initialisation, or "". */
    public String error() {
        return binding.error();
    }

    /** vtscope_native_features: the features of the successful initialisation, 0 before. */
    public int features() {
        return binding.features();
    }

    /**
     * vtscope_vtt_register for the calling thread; returns the address of its 64-byte accounting
     * block ({@code VTT_*} offsets, read with {@link #readBlockLong}), or throws
     * {@link IllegalStateException} describing the native result code.
     */
    public long register() {
        long[] block = new long[1];
        int rc = binding.register(block);
        if (rc != OK) {
            throw new IllegalStateException("vtscope_vtt_register failed: " + describe(rc));
        }
        if (block[0] == 0) {
            throw new IllegalStateException("vtscope_vtt_register returned no block");
        }
        return block[0];
    }

    /** vtscope_vtt_unregister; returns the native result code. */
    public int unregister(long block) {
        return binding.unregister(block);
    }

    /** The u64 at {@code offset} ({@code VTT_*}) of a block {@link #register()} returned. */
    public long readBlockLong(long block, long offset) {
        return binding.readLong(block + offset);
    }

    /** vtscope_vtt_live_blocks: accounting blocks currently allocated (a leak check). */
    public long liveBlocks() {
        return binding.liveBlocks();
    }

    /**
     * vtscope_process_context_set_resource: the application's resource for the OTEP 4719 process
     * context, as {@link ProcessResource#encode} entries. Returns the number of attributes
     * published, or a negative result code.
     */
    public int setProcessResource(byte[] entries) {
        return binding.setProcessResource(entries);
    }

    /**
     * vtscope_thread_context_attach: points the calling platform thread's otel_thread_ctx_v1 at
     * the record at {@code recordAddress}. Returns the native result code.
     */
    public int attachThreadContext(long recordAddress) {
        return binding.attachThreadContext(recordAddress);
    }

    /**
     * The process's library if this process already maps it (the {@code -agentpath} agent, or a
     * copy some class loader loaded), else null: never extracts or loads one.
     */
    public static NativeLibrary ifMapped() {
        return mappedLibrary(mapsOfThisProcess()) == null ? null : get();
    }

    /** A short explanation of a vtscope_native.h result code. */
    public static String describe(int rc) {
        return switch (rc) {
            case OK -> "ok";
            case ERR_NO_JVM -> "no JavaVM in this process";
            case ERR_JVMTI -> "JVMTI unavailable or a JVMTI call failed";
            case ERR_UNSUPPORTED -> "the JVM lacks virtual-thread mount events";
            case ERR_NOT_VIRTUAL -> "the calling thread is not a virtual thread";
            case ERR_ALREADY -> "the calling thread is already registered";
            case ERR_NOT_INITIALIZED -> "the native library is not initialized";
            case ERR_NOT_OWNER -> "the block is not the calling thread's";
            case ERR_FEATURES -> "features differ from those of the first initialization";
            case ERR_REGION -> "the record region is missing or malformed";
            default -> "unknown result " + rc;
        } + " (" + rc + ")";
    }

    /**
     * The jar's resource directory for this platform, e.g. {@code linux-x86_64}; null where no
     * library is built (other operating systems and architectures).
     */
    public static String platform(String osName, String osArch) {
        if (!osName.startsWith("Linux")) {
            return null;
        }
        return switch (osArch) {
            case "amd64", "x86_64" -> "linux-x86_64";
            case "aarch64", "arm64" -> "linux-aarch64";
            default -> null;
        };
    }

    /** The resource name of the library for {@code platform}. */
    public static String resourceName(String platform) {
        return "/io/vtscope/native/" + platform + "/" + LIBRARY_NAME;
    }

    /**
     * The libvtscope file this process already maps, or null: the {@code -agentpath} agent, or a
     * copy extracted by another class loader. It must be used instead of any other file, because
     * a second file is a second, independent instance of the library (its own JVMTI environment,
     * its own initialization). The file must still be the one mapped (same inode), so that a file
     * replaced since is not loaded in its place.
     */
    static Path mappedLibrary(List<String> mapsLines) {
        for (String line : mapsLines) {
            String[] f = line.trim().split("\\s+", 6);
            if (f.length < 6 || !f[5].startsWith("/")) {
                continue;
            }
            Path p = Path.of(f[5]);
            if (!MAPPED_NAME.matcher(p.getFileName().toString()).matches()) {
                continue; // also skips "name (deleted)": nothing to open any more
            }
            try {
                if (Files.getAttribute(p, "unix:ino").equals(Long.parseLong(f[4]))) {
                    return p;
                }
            } catch (IOException | NumberFormatException e) {
                // gone or unreadable: not a file to load
            }
        }
        return null;
    }

    /**
     * Finds the file to load: {@code explicitPath} if not null (it must be an existing regular
     * file), otherwise the packaged library extracted under {@code extractionRoot}.
     */
    static Path locate(String explicitPath, Path extractionRoot, String platform) throws IOException {
        if (explicitPath != null) {
            Path p = Path.of(explicitPath).toAbsolutePath();
            if (!Files.isRegularFile(p)) {
                throw new NoSuchFileException(p.toString(), null,
                        "-D" + LIBRARY_PATH_PROPERTY + " does not name a regular file");
            }
            return p;
        }
        if (platform == null) {
            throw new IOException("unsupported platform " + System.getProperty("os.name") + " "
                    + System.getProperty("os.arch") + " (Linux x86_64 or aarch64 required)");
        }
        String resource = resourceName(platform);
        byte[] bytes;
        try (InputStream in = NativeLibrary.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new NoSuchFileException(resource, null, "this vtscope jar carries no native library for "
                        + platform + "; set -D" + LIBRARY_PATH_PROPERTY);
            }
            bytes = in.readAllBytes();
        }
        return extract(bytes, extractionRoot);
    }

    /**
     * Writes {@code library} to {@code <root>/vtscope-<uid>-<pid>/libvtscope-<hash>.so} unless an
     * identical file is already there (extracted by another class loader of this process), and
     * returns that file. The directory is created owner-only; an existing one must pass
     * {@link #checkRendezvousDirectory}. The file appears atomically (written under a temporary
     * name, then renamed), so a concurrent extractor sees either nothing or the whole file.
     *
     * @throws IOException if the root is unusable or a check fails (the message says which)
     */
    public static Path extract(byte[] library, Path root) throws IOException {
        int uid = currentUid();
        Path dir = root.resolve("vtscope-" + uid + "-" + ProcessHandle.current().pid());
        try {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIR));
        } catch (FileAlreadyExistsException e) {
            // Another class loader of this process, a stale directory of a reused pid, or a squatter:
            // the checks below tell them apart.
        }
        checkRendezvousDirectory(dir, uid);
        String hash = sha256(library);
        Path target = dir.resolve("libvtscope-" + hash.substring(0, HASH_PREFIX_CHARS) + ".so");
        if (!Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
            Path tmp = Files.createTempFile(dir, "libvtscope-", ".tmp", PosixFilePermissions.asFileAttribute(OWNER_ONLY_FILE));
            try {
                Files.write(tmp, library);
                // rename(2): replaces a file another class loader moved there meanwhile, which has
                // the same content, so a mapped copy is never changed under anyone.
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("cannot rename within " + dir + ": " + e.getMessage(), e);
            } finally {
                Files.deleteIfExists(tmp);
            }
        }
        checkLibraryFile(target, uid, hash);
        return target;
    }

    /**
     * Accepts {@code dir} as the rendezvous directory only if it is a directory, not a symbolic
     * link, owned by {@code uid}, and neither group- nor other-writable: otherwise another user
     * could have planted (or could later swap) the library that this JVM is about to map.
     */
    public static void checkRendezvousDirectory(Path dir, int uid) throws IOException {
        PosixFileAttributes a = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (a.isSymbolicLink()) {
            throw new IOException("refusing " + dir + ": the rendezvous directory is a symbolic link");
        }
        if (!a.isDirectory()) {
            throw new IOException("refusing " + dir + ": the rendezvous path is not a directory");
        }
        checkOwnerAndMode(dir, a, uid, "rendezvous directory");
    }

    /** The extracted library must be a regular file of ours, writable only by us, with the hash. */
    private static void checkLibraryFile(Path file, int uid, String expectedHash) throws IOException {
        PosixFileAttributes a = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (a.isSymbolicLink()) {
            throw new IOException("refusing " + file + ": the library file is a symbolic link");
        }
        if (!a.isRegularFile()) {
            throw new IOException("refusing " + file + ": the library file is not a regular file");
        }
        checkOwnerAndMode(file, a, uid, "library file");
        if (!sha256(Files.readAllBytes(file)).equals(expectedHash)) {
            throw new IOException("refusing " + file + ": its content differs from the packaged library");
        }
    }

    private static void checkOwnerAndMode(Path p, PosixFileAttributes a, int uid, String what) throws IOException {
        int owner = (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        if (owner != uid) {
            throw new IOException("refusing " + p + ": the " + what + " is owned by uid " + owner + ", not " + uid);
        }
        Set<PosixFilePermission> perms = a.permissions();
        if (perms.contains(PosixFilePermission.GROUP_WRITE) || perms.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new IOException("refusing " + p + ": the " + what + " is writable by others ("
                    + PosixFilePermissions.toString(perms) + ")");
        }
    }

    /** The effective uid of this process (files it creates are owned by it), from /proc/self/status. */
    public static int currentUid() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Uid:")) {
                // "Uid:\treal\teffective\tsaved\tfilesystem"
                return Integer.parseInt(line.substring(4).trim().split("\\s+")[1]);
            }
        }
        throw new IOException("no Uid line in /proc/self/status");
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK provides SHA-256", e);
        }
    }

    /** The lines of /proc/self/maps, or none without /proc; RecordRegion's adoption reads them too. */
    static List<String> mapsOfThisProcess() {
        try {
            return Files.readAllLines(Path.of("/proc/self/maps"));
        } catch (IOException e) {
            return List.of(); // no /proc (not Linux): nothing is mapped that we could reuse
        }
    }

    /**
     * Loads the library once for this class loader, on first use; a failure is kept, never
     * retried (the properties are read once and the outcome would not change).
     */
    private static final class Holder {
        static final NativeLibrary LIBRARY;
        static final String REASON;

        static {
            NativeLibrary library = null;
            String reason = null;
            String explicit = System.getProperty(LIBRARY_PATH_PROPERTY);
            String root = System.getProperty(TMPDIR_PROPERTY, System.getProperty("java.io.tmpdir"));
            String unbindable = NativeBindings.unavailableReason();
            try {
                if (unbindable != null) {
                    // Before extracting anything: no file could be used.
                    throw new UnsupportedOperationException(unbindable);
                }
                Path file = mappedLibrary(mapsOfThisProcess());
                if (file == null) {
                    file = locate(explicit, Path.of(root), platform(System.getProperty("os.name", ""),
                            System.getProperty("os.arch", "").toLowerCase(Locale.ROOT)));
                    if (explicit == null) {
                        // The mapping outlives the file; hooks run in reverse order: file, then directory.
                        file.getParent().toFile().deleteOnExit();
                        file.toFile().deleteOnExit();
                    }
                }
                library = load(file);
            } catch (UnsupportedOperationException e) {
                reason = "libvtscope.so unavailable: " + e.getMessage();
            } catch (IOException | RuntimeException | LinkageError e) {
                reason = "libvtscope.so unavailable: " + e
                        + (explicit == null ? " (extraction root " + root + ", set -D" + TMPDIR_PROPERTY
                                + " if it is not writable or mounted noexec)" : "");
            }
            LIBRARY = library;
            REASON = reason;
        }
    }
}
