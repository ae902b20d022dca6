// SPDX-License-Identifier: Apache-2.0
package io.vtscope.otep;

/**
 * Only in a {@code java.base} that libvtscope.so patched ({@code -agentpath:libvtscope.so=write-patch=DIR},
 * then {@code --patch-module java.base=DIR}; see {@link VirtualThreadTransformer#writePatch}):
 * whether libvtscope.so is loaded with OTEP to take {@link MountHook}'s calls. Every call the patch
 * puts into {@code java.lang.VirtualThread} is guarded by {@link #LIVE}, so a JVM run with the
 * patched {@code java.base} but without the library (or without its {@code otep} feature) runs its
 * virtual threads exactly as the JDK's own class would, instead of failing with an
 * UnsatisfiedLinkError at the first mount.
 *
 * <p>The patched {@code VirtualThread.<clinit>} reads {@link #LIVE} first, so this class is
 * initialised there, on the platform thread that first uses virtual threads, and never on a
 * mount path. {@code static final}: the JIT folds the guard away.
 */
public final class PatchLink {
    private PatchLink() {}

    /** libvtscope.so runs OTEP through this patch (MountHook.linked() said so). */
    public static final boolean LIVE = link();

    private static boolean link() {
        try {
            return MountHook.linked();
        } catch (UnsatisfiedLinkError e) {
            System.err.println("vtscope: otep: java.base carries vtscope's mount hook (--patch-module) but "
                    + "libvtscope.so is not loaded (-agentpath:libvtscope.so=otep): otel_thread_ctx_v1 is not kept");
            return false;
        }
    }
}
