// SPDX-License-Identifier: Apache-2.0
package io.vtscope.internal;

import java.nio.file.Path;

/**
 * Binds libvtscope.so's C ABI: the JDK 21 version of this class, which has none. Binding needs
 * FFM (java.lang.foreign), final in JDK 22 and only a preview in 21, and JNI would need native
 * code of its own; so on 21 the library is refused with {@link #unavailableReason()}, and the
 * JDK 22+ version of this class (META-INF/versions/22 of the Multi-Release jar) binds it.
 */
final class NativeBindings {
    /** Why no library can be bound in this JVM, or null if one can. */
    static String unavailableReason() {
        return "needs JDK 22+ (FFM), this is JDK " + Runtime.version().feature();
    }

    /** Never returns on this JDK: see {@link #unavailableReason()}. */
    static NativeBinding bind(Path path, boolean unloadable) {
        throw new UnsupportedOperationException("cannot bind " + path + ": " + unavailableReason());
    }

    private NativeBindings() {}
}
