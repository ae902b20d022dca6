// SPDX-License-Identifier: Apache-2.0
package io.vtscope.workloads;

/** The JDK 22+ version of this class: libc through FFM downcalls ({@link FfmLibC}). */
final class LibCs {
    /**
     * The downcalls, linked at the first call: a workload that never makes one (AgentHttpService
     * under --illegal-native-access=deny) must not fail in a class initialisation.
     */
    private static final class Holder {
        static final LibC INSTANCE = new FfmLibC();
    }

    static LibC get() {
        return Holder.INSTANCE;
    }

    /** Null: FFM is final from JDK 22 on. */
    static String unavailableReason() {
        return null;
    }

    private LibCs() {}
}
