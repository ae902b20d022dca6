// SPDX-License-Identifier: Apache-2.0
package io.vtscope.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/** Gate for tests that need the real libvtscope.so, which the CMake build produces. */
public final class NativeTestSupport {
    /**
     * The built library named by {@code -Dvtscope.library.path} (set by the pom to
     * {@code build/native/libvtscope.so}); skips the calling test, loudly, when it is absent or
     * when this JDK cannot bind it (JDK 21).
     */
    public static Path builtLibrary() {
        String unbindable = NativeBindings.unavailableReason();
        if (unbindable != null) {
            // JDK 21: libvtscope cannot be bound (FFM is a preview there), whether built or not.
            System.err.println("*** SKIPPED: the native library " + unbindable + " ***");
        }
        Assumptions.assumeTrue(unbindable == null, "the native library " + unbindable);
        String property = System.getProperty(NativeLibrary.LIBRARY_PATH_PROPERTY);
        boolean present = property != null && Files.isRegularFile(Path.of(property));
        if (!present) {
            System.err.println("*** SKIPPED: native library " + property
                    + " is absent; build the native library to run the native tests ***");
        }
        Assumptions.assumeTrue(present, "native library " + property + " is absent: build it to run this test");
        return Path.of(property);
    }

    private NativeTestSupport() {}
}
