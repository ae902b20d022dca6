// SPDX-License-Identifier: Apache-2.0
package io.vtscope.workloads;

/**
 * The JDK 21 version of this class: no {@link LibC}, since its calls are FFM downcalls (a preview
 * in 21); the JDK 22+ version (META-INF/versions/22) makes them.
 */
final class LibCs {
    /** Null on this JDK: see {@link #unavailableReason()}. */
    static LibC get() {
        return null;
    }

    /** Why {@link #get()} is null, or null if it is not. */
    static String unavailableReason() {
        return "needs JDK 22+ (FFM), this is JDK " + Runtime.version().feature();
    }

    private LibCs() {}
}
