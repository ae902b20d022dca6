// SPDX-License-Identifier: Apache-2.0
package io.vtscope;

import io.vtscope.internal.NativeLibrary;
import io.vtscope.internal.RecordRegion;

/**
 * Virtual Thread Time: the time a virtual thread has spent mounted on a carrier, and how often it
 * was mounted and unmounted, measured by JVMTI callbacks of the native library libvtscope.so.
 *
 * <pre>{@code
 * if (VirtualThreadTime.isSupported()) {
 *     VirtualThreadTime.initialize();
 * }
 * // in the virtual thread to measure:
 * try (VirtualThreadTime time = VirtualThreadTime.register()) {
 *     long mountedStart = time.mountedTimeNanos();
 *     long mountsStart = time.mountCount();
 *     // virtual-thread work
 *     long mountedNanos = time.mountedTimeNanos() - mountedStart;
 *     long mounts = time.mountCount() - mountsStart;
 * }
 * }</pre>
 *
 * <p><b>Semantics.</b> Mounted time counts only the intervals in which the virtual thread is
 * mounted on a carrier thread: time unmounted while parked, sleeping, blocked, or waiting for I/O
 * is excluded (a virtual thread pinned to its carrier while it blocks stays mounted, and that time
 * counts). Times are in nanoseconds of {@link System#nanoTime()}'s clock. Mounted time and the
 * mount and unmount counts start at zero at {@link #register()}; a tracker that reads them twice
 * measures the work in between.
 *
 * <p><b>Confinement.</b> A tracker belongs to the virtual thread that registered it: every method,
 * including {@link #close()}, throws {@link WrongThreadException} on any other thread. The tracker
 * should be closed on its thread (try-with-resources); if the thread ends first, the native library
 * frees its accounting block when the thread ends, and since nothing but that thread could use the
 * tracker, it simply becomes garbage. One thread has at most one open tracker at a time.
 *
 * <p><b>Cost.</b> {@link #mountedTimeNanos()}, {@link #mountCount()} and {@link #unmountCount()}
 * read the thread's native accounting block directly: no native call, no allocation.
 * {@link #initialize()} enables no event: until the first {@link #register()} the library costs
 * nothing per transition. The first registration enables the JVMTI mount, unmount and end
 * callbacks for every virtual thread of the JVM, for good (enabling them per thread would
 * synchronize the whole JVM at each registration); from then on an unregistered thread pays
 * HotSpot's event posting and a lookup per transition.
 *
 * <p><b>Requirements.</b> Linux (glibc) on x86_64 or aarch64 with a HotSpot JDK 22 or later (the
 * library is bound with FFM, a preview in JDK 21: there {@link #isSupported()} is false with the
 * reason "needs JDK 22+ (FFM)") that exposes the JVMTI virtual-thread mount events, and native
 * access for this code ({@code --enable-native-access=ALL-UNNAMED}; without it the JVM only warns).
 *
 * <p><b>Loading.</b> If the JVM already runs libvtscope.so (started with
 * {@code -agentpath:libvtscope.so=vtt}, plus {@code probes} or {@code otep} as wanted), that
 * library is used. Otherwise {@code -Dvtscope.library.path} names the library file, or else the
 * library packaged in the jar is extracted to {@code <root>/vtscope-<uid>-<pid>/}, where root is
 * {@code -Dvtscope.tmpdir} or {@code java.io.tmpdir}; every class loader of the JVM uses that one
 * file. A pre-existing directory there that is a symbolic link, belongs to another user or is
 * writable by others is refused and the library is not loaded: on a host shared with untrusted
 * users, point {@code vtscope.tmpdir} at a directory of the application's user with mode 0700
 * (and one that allows executable mappings). These properties are read once, at first use.
 * Initialization is process-wide: its first result, success or failure, holds for every class
 * loader until the JVM exits.
 *
 * <p><b>Other features.</b> With {@code -Dvtscope.probes=true} and {@code -Dvtscope.otep=true}
 * initialization also enables the library's USDT lifecycle probes and OTEP 4947 thread-context
 * publication over this JVM's record region (see {@link VtScope}).
 */
public final class VirtualThreadTime implements AutoCloseable {
    /** Null until {@link #initialize()} ran in this class loader; then its outcome, kept. */
    private static volatile Init init;

    private final NativeLibrary library;
    private final Thread owner;
    /** Address of struct vtscope_vtt_block, written by the owner's JVMTI callbacks, read by the owner. */
    private final long block;
    private boolean closed;

    private record Init(NativeLibrary library, String failure) {}

    private VirtualThreadTime(NativeLibrary library, Thread owner, long block) {
        this.library = library;
        this.owner = owner;
        this.block = block;
    }

    /**
     * True if the native library can be used here: it loads on this platform, and no earlier
     * initialization in this process (by this or another class loader, or the agent) failed or
     * lacked the features this one needs. Never throws. Checking does not initialize anything, so
     * {@link #initialize()} can still fail, for example when the JVM refuses a JVMTI environment.
     */
    public static boolean isSupported() {
        return unsupportedReason() == null;
    }

    /** Why {@link #isSupported()} is false, or null if it is true. Never throws. */
    public static String unsupportedReason() {
        try {
            NativeLibrary lib = NativeLibrary.get();
            if (lib == null) {
                return NativeLibrary.unavailableReason();
            }
            Init current = init;
            if (current != null) {
                return current.failure();
            }
            // The native initialization result is process-wide: the agent's or another class
            // loader's outcome is final, and a later initialization can only ask for its features.
            int enabled = lib.features();
            if (enabled == 0) {
                String error = lib.error();
                return error.isEmpty() ? null : "vtscope native initialization failed: " + error;
            }
            int wanted = requestedFeatures();
            return (enabled & wanted) == wanted ? null : "libvtscope.so was initialized with features "
                    + enabled + " (an -agentpath option?), which lack some of " + wanted;
        } catch (RuntimeException | LinkageError e) {
            return "libvtscope.so unavailable: " + e;
        }
    }

    /**
     * Loads and initializes the native library for this JVM, enabling its JVM-wide callbacks.
     * Idempotent: the first outcome is kept, so later calls return at once or throw the same
     * failure. Reads {@code vtscope.probes} and {@code vtscope.otep} (booleans) at the first call.
     *
     * @throws IllegalStateException if the library cannot be loaded or initialized (the message
     *     carries the native library's reason)
     */
    public static void initialize() {
        Init current = init;
        if (current == null) {
            synchronized (VirtualThreadTime.class) {
                current = init;
                if (current == null) {
                    init = current = doInitialize();
                }
            }
        }
        if (current.failure() != null) {
            throw new IllegalStateException(current.failure());
        }
    }

    private static Init doInitialize() {
        NativeLibrary lib = NativeLibrary.get();
        if (lib == null) {
            return new Init(null, NativeLibrary.unavailableReason());
        }
        try {
            int features = requestedFeatures();
            long base = 0;
            long size = 0;
            if (features != NativeLibrary.FEATURE_VTT) {
                // Probes and OTEP publish what the Java writer put in the record region: share it.
                RecordRegion region = RecordRegion.global();
                if (region == null) {
                    return new Init(null, RecordRegion.unavailableReason());
                }
                base = region.address();
                size = region.byteSize();
            }
            int rc = lib.init(features, base, size);
            if (rc != NativeLibrary.OK) {
                String error = lib.error();
                return new Init(null, "vtscope native initialization failed: "
                        + (error.isEmpty() ? "" : error + " ") + "[" + NativeLibrary.describe(rc) + "]");
            }
            return new Init(lib, null);
        } catch (RuntimeException | LinkageError e) {
            return new Init(null, "vtscope native initialization failed: " + e);
        }
    }

    /** Virtual Thread Time, plus what the system properties ask for. */
    private static int requestedFeatures() {
        return NativeLibrary.FEATURE_VTT
                | (Boolean.getBoolean("vtscope.probes") ? NativeLibrary.FEATURE_PROBES : 0)
                | (Boolean.getBoolean("vtscope.otep") ? NativeLibrary.FEATURE_OTEP : 0);
    }

    /**
     * Starts measuring the calling virtual thread and returns its tracker.
     *
     * @throws IllegalStateException if {@link #initialize()} has not succeeded, if the caller is
     *     not a virtual thread, or if it already has an open tracker
     */
    public static VirtualThreadTime register() {
        Init current = init;
        if (current == null || current.library() == null) {
            throw new IllegalStateException("call VirtualThreadTime.initialize() first"
                    + (current == null ? "" : " (it failed: " + current.failure() + ")"));
        }
        Thread thread = Thread.currentThread();
        if (!thread.isVirtual()) {
            throw new IllegalStateException("VirtualThreadTime.register() must run on a virtual thread, not on " + thread);
        }
        return new VirtualThreadTime(current.library(), thread, current.library().register());
    }

    /**
     * Nanoseconds this thread has been mounted since {@link #register()}, including the current
     * mount interval. The caller is running, hence mounted, so the running interval is added to
     * the completed ones.
     */
    public long mountedTimeNanos() {
        checkAccess();
        // No callback runs between these reads: they run at mount and unmount, and this thread
        // cannot unmount in the middle of this expression.
        return library.readBlockLong(block, NativeLibrary.VTT_MOUNTED_NS)
                + (System.nanoTime() - library.readBlockLong(block, NativeLibrary.VTT_MOUNT_START_NS));
    }

    /** Mount transitions of this thread since {@link #register()}. */
    public long mountCount() {
        checkAccess();
        return library.readBlockLong(block, NativeLibrary.VTT_MOUNTS);
    }

    /** Unmount transitions of this thread since {@link #register()}. */
    public long unmountCount() {
        checkAccess();
        return library.readBlockLong(block, NativeLibrary.VTT_UNMOUNTS);
    }

    /**
     * Stops measuring and frees the native accounting block; the thread may register again.
     * Idempotent on the owning thread: a second close does nothing.
     *
     * @throws WrongThreadException if called from another thread (even after closing), since the
     *     block may have been freed when its thread ended
     */
    @Override
    public void close() {
        checkThread();
        if (closed) {
            return;
        }
        closed = true;
        int rc = library.unregister(block);
        if (rc != NativeLibrary.OK) {
            throw new IllegalStateException("vtscope_vtt_unregister failed: " + NativeLibrary.describe(rc));
        }
    }

    private void checkAccess() {
        checkThread();
        if (closed) {
            throw new IllegalStateException("this VirtualThreadTime is closed");
        }
    }

    private void checkThread() {
        if (Thread.currentThread() != owner) {
            throw new WrongThreadException("this VirtualThreadTime is confined to " + owner
                    + ", not " + Thread.currentThread());
        }
    }
}
