// SPDX-License-Identifier: Apache-2.0
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
 *
 * <p>In a {@code java.base} that libvtscope.so patched ({@link VirtualThreadTransformer#writePatch})
 * this class comes from the patch instead, in {@code java.base}, and the JVM resolves its natives
 * by name in the agent libraries (libvtscope.so exports them), with no JVMTI environment; the
 * patched calls run only under {@link PatchLink#LIVE}.
 */
public final class MountHook {
    private MountHook() {}

    /** End of VirtualThread.mount(): the carrier now runs virtual thread {@code tid}. */
    public static native void mounted(long tid);

    /** Start of VirtualThread.unmount(): the carrier runs itself again. */
    public static native void unmounted();

    /**
     * Start of VirtualThread.afterDone(boolean), on the carrier: virtual thread {@code tid} ended;
     * releases its record if the Java writer claimed one.
     */
    public static native void terminated(long tid);

    /**
     * Only in a java.base patched by libvtscope.so (PatchLink): whether the library takes this
     * class's calls. Resolved by name (Java_io_vtscope_otep_MountHook_linked) in the agent
     * libraries, as the other natives are there; never called on the JVMTI route.
     */
    public static native boolean linked();
}
