// SPDX-License-Identifier: Apache-2.0
package io.vtscope.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.nio.file.Path;

/**
 * Binds libvtscope.so's C ABI. Binding needs FFM ({@link FfmBinding}), final in JDK 22 and only a
 * preview in 21, and JNI would need native code of its own; so on JDK 21 the library is refused
 * with {@link #unavailableReason()}.
 */
final class NativeBindings {
    /** Why no library can be bound in this JVM, or null if one can. */
    static String unavailableReason() {
        return Ffm.unavailableReason();
    }

    /**
     * dlopen of {@code path} and one downcall handle per function of the C ABI; with
     * {@code unloadable} in an arena that {@link NativeBinding#unload()} closes (for tests).
     *
     * @throws UnsupportedOperationException before JDK 22
     * @throws IllegalArgumentException if the library cannot be opened
     * @throws IllegalStateException if a function of the C ABI is missing
     */
    static NativeBinding bind(Path path, boolean unloadable) {
        MethodHandle bind = Ffm.staticMethod("FfmBinding", "bind",
                MethodType.methodType(NativeBinding.class, Path.class, boolean.class));
        try {
            return (NativeBinding) bind.invokeExact(path, unloadable);
        } catch (Throwable t) {
            throw Ffm.rethrow(t);
        }
    }

    private NativeBindings() {}
}
