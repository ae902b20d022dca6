// SPDX-License-Identifier: Apache-2.0
package io.vtscope.internal;

import java.nio.file.Path;

/** Binds libvtscope.so's C ABI with FFM downcalls: the JDK 22+ version of this class. */
final class NativeBindings {
    /** Null: FFM is final from JDK 22 on. */
    static String unavailableReason() {
        return null;
    }

    /**
     * dlopen of {@code path} and one downcall handle per function of the C ABI; with
     * {@code unloadable} in an arena that {@link NativeBinding#unload()} closes (for tests), else
     * never unloaded.
     *
     * @throws IllegalArgumentException if the library cannot be opened
     * @throws IllegalStateException if a function of the C ABI is missing
     */
    static NativeBinding bind(Path path, boolean unloadable) {
        return new FfmBinding(path, unloadable);
    }

    private NativeBindings() {}
}
