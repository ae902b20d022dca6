// SPDX-License-Identifier: Apache-2.0
package io.vtscope.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Whether this JVM has FFM (java.lang.foreign: final in JDK 22, a preview in 21), and the classes
 * that use it. Those classes ({@code src/main/java22}: {@link FfmBinding}, {@link FfmRegionMapping})
 * are compiled for release 22 next to the others and reached only by name, only on JDK 22+, so a
 * JDK 21 never loads them. A Multi-Release overlay would not do here: the OpenTelemetry Java agent
 * opens extension jars without versioning ({@code new JarFile(file, false)} in its
 * RemappingUrlStreamHandler), so this jar, shaded into vtscope's extension, would run its JDK 21
 * classes on every JDK.
 */
final class Ffm {
    /** True from JDK 22 on. */
    static final boolean AVAILABLE = Runtime.version().feature() >= 22;

    /** Why FFM cannot be used here, or null if it can. */
    static String unavailableReason() {
        return AVAILABLE ? null : "needs JDK 22+ (FFM), this is JDK " + Runtime.version().feature();
    }

    /**
     * The static method {@code name} of the FFM class {@code simpleName} of this package.
     *
     * @throws UnsupportedOperationException before JDK 22
     */
    static MethodHandle staticMethod(String simpleName, String name, MethodType type) {
        if (!AVAILABLE) {
            throw new UnsupportedOperationException(unavailableReason());
        }
        try {
            Class<?> c = Class.forName(Ffm.class.getPackageName() + "." + simpleName);
            return MethodHandles.lookup().findStatic(c, name, type);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("this vtscope jar lacks its FFM class " + simpleName, e);
        }
    }

    /** Rethrows what an FFM method threw, unchecked as it was thrown. */
    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException(t);
    }

    private Ffm() {}
}
