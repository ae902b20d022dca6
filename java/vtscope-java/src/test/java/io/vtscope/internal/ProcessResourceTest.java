// SPDX-License-Identifier: Apache-2.0
package io.vtscope.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProcessResourceTest {
    @Test
    void entriesAreTheCAbisLayout() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("service.name", "abc");
        m.put("pid", 4242L);
        // The same bytes as native/tests/process_context_test.cpp's ResourceEntriesFromTheCAbi.
        byte[] expected = {0, 12, 0, 's', 'e', 'r', 'v', 'i', 'c', 'e', '.', 'n', 'a', 'm', 'e', 3, 0, 0, 0, 'a', 'b', 'c',
                           1, 3, 0, 'p', 'i', 'd', (byte) 0x92, 0x10, 0, 0, 0, 0, 0, 0};
        assertArrayEquals(expected, ProcessResource.encode(m));
    }

    @Test
    void publishKeepsTheEntriesForALibraryLoadedLater() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("service.name", "abc");
        m.put("pid", 4242L);
        try {
            // Whether or not a library is mapped in this test JVM, the hand-over is kept.
            assertTrue(ProcessResource.publish(m) >= 0);
            assertEquals(HexFormat.of().formatHex(ProcessResource.encode(m)),
                    System.getProperty(ProcessResource.RESOURCE_PROPERTY));
        } finally {
            System.clearProperty(ProcessResource.RESOURCE_PROPERTY);
        }
    }

    @Test
    void otherValuesBecomeStrings() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("b", true);
        m.put("d", 1.5);
        m.put("a", List.of("x", "y"));
        byte[] e = ProcessResource.encode(m);
        assertEquals(ProcessResource.KIND_STRING, e[0]);
        String all = new String(e, java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(true, all.contains("true") && all.contains("1.5") && all.contains("[x,y]"), all);
    }
}
