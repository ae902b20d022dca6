package io.vtscope.otep;

/**
 * The calls libvtscope.so's OTEP feature injects into {@code java.lang.VirtualThread} (see
 * {@link VirtualThreadTransformer}): they keep the carrier's {@code otel_thread_ctx_v1} pointing
 * at the mounted virtual thread's record without the JVMTI mount/unmount events.
 *
 * <p>libvtscope.so defines this class in the boot loader (JNI DefineClass with a null loader),
 * binds the natives with RegisterNatives and initialises it before any VirtualThread code can
 * reach it, so the injected invokestatic never loads, links or initialises anything: no class
 * initialisation can deadlock and no LinkageError can reach VirtualThread. The natives throw
 * nothing, neither lock nor allocate. There is deliberately no static initialiser.
 */
public final class MountHook {
    private MountHook() {}

    /** End of VirtualThread.mount(): the carrier now runs virtual thread {@code tid}. */
    public static native void mounted(long tid);

    /**
     * Start of VirtualThread.run(Runnable), on the new virtual thread once per thread: claims
     * its record (as the JVMTI path does at VirtualThreadStart) and points the thread-local at it.
     */
    public static native void started(long tid);

    /** Start of VirtualThread.unmount(): the carrier runs itself again. */
    public static native void unmounted();

    /** Start of VirtualThread.afterDone(boolean), on the carrier: virtual thread {@code tid} ended. */
    public static native void terminated(long tid);
}
