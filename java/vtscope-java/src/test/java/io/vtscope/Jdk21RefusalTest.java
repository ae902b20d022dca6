// SPDX-License-Identifier: Apache-2.0
package io.vtscope;

import static org.junit.jupiter.api.Assertions.*;

import io.vtscope.internal.NativeLibrary;
import org.junit.jupiter.api.Test;

/**
 * What JDK 21 refuses, and how it says so: libvtscope and Virtual Thread Time need FFM (final in
 * 22, a preview in 21), so there they are unavailable with one reason naming the JDK, while the
 * record region (VtScope) works. On JDK 22+ the same calls must not give that reason.
 */
class Jdk21RefusalTest {
    private static final boolean JDK21 = Runtime.version().feature() < 22;
    private static final String REASON = "needs JDK 22+ (FFM), this is JDK " + Runtime.version().feature();

    @Test
    void nativeLibraryAndVirtualThreadTimeNameTheJdk() {
        String reason = VirtualThreadTime.unsupportedReason();
        if (JDK21) {
            assertNull(NativeLibrary.get());
            assertEquals("libvtscope.so unavailable: " + REASON, NativeLibrary.unavailableReason());
            assertFalse(VirtualThreadTime.isSupported());
            assertEquals(NativeLibrary.unavailableReason(), reason);
            IllegalStateException e = assertThrows(IllegalStateException.class, VirtualThreadTime::initialize);
            assertEquals(reason, e.getMessage());
        } else {
            assertTrue(reason == null || !reason.contains("needs JDK 22+"), reason);
            String library = NativeLibrary.unavailableReason();
            assertTrue(library == null || !library.contains("needs JDK 22+"), library);
        }
    }

    @Test
    void recordRegionWorksOnEveryJdk() {
        assertTrue(VtScope.isAvailable(), VtScope.unavailableReason());
        assertTrue(VtScope.publish("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", 1));
        assertNotEquals(0, VtScope.recordAddress());
        VtScope.clear();
    }
}
