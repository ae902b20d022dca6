// SPDX-License-Identifier: Apache-2.0
package io.vtscope.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * RecordLayout must mirror common/vtscope_record.h constant for constant. The C side is taken as
 * the compiler sees it: the CMake build runs native/tests/record_layout_dump.cpp, which prints
 * every constant and field offset of the header as "JavaName C-expression value", into
 * vtscope_record_layout.txt, whose path Maven passes as vtscope.record.layout. Without that file
 * the test fails rather than skips.
 */
class RecordLayoutTest {
    // Surefire runs in the module directory; the header lives at the repository root.
    private static final Path HEADER = Path.of("../../common/vtscope_record.h");

    private record Entry(String cExpression, String value) {}

    private static Map<String, Entry> compiledLayout() throws IOException {
        String property = System.getProperty("vtscope.record.layout");
        assertNotNull(property, "vtscope.record.layout is not set (the test runs through Maven)");
        Path file = Path.of(property);
        assertTrue(Files.isRegularFile(file), file + " is missing: build the C++ side first (make native)");
        Map<String, Entry> entries = new LinkedHashMap<>();
        for (String line : Files.readAllLines(file)) {
            String[] parts = line.split(" ", 3);
            assertEquals(3, parts.length, "malformed line in " + file + ": " + line);
            assertNull(entries.put(parts[0], new Entry(parts[1], parts[2])), parts[0] + " is dumped twice");
        }
        return entries;
    }

    private static Map<String, Object> javaConstants() throws IllegalAccessException {
        Map<String, Object> constants = new LinkedHashMap<>();
        for (Field field : RecordLayout.class.getDeclaredFields()) {
            int modifiers = field.getModifiers();
            if (Modifier.isPublic(modifiers) && Modifier.isStatic(modifiers) && Modifier.isFinal(modifiers)) {
                constants.put(field.getName(), field.get(null));
            }
        }
        return constants;
    }

    @Test
    void everyJavaConstantEqualsTheCompiledHeader() throws Exception {
        Map<String, Entry> compiled = compiledLayout();
        Map<String, Object> constants = javaConstants();
        assertFalse(constants.isEmpty(), "RecordLayout has public constants");
        for (Map.Entry<String, Object> constant : constants.entrySet()) {
            Entry c = compiled.get(constant.getKey());
            assertNotNull(c, "RecordLayout." + constant.getKey() + " has no C counterpart in record_layout_dump.cpp");
            Object value = constant.getValue();
            String javaValue = value instanceof String s ? s : Long.toString(((Number) value).longValue());
            assertEquals(c.value(), javaValue, "RecordLayout." + constant.getKey() + " against " + c.cExpression());
        }
    }

    @Test
    void everyCompiledConstantHasAJavaMirror() throws Exception {
        Set<String> unmirrored = new TreeSet<>(compiledLayout().keySet());
        unmirrored.removeAll(javaConstants().keySet());
        assertEquals(Set.of(), unmirrored, "dumped from vtscope_record.h but missing in RecordLayout");
    }

    @Test
    void everyDefineAndFieldOfTheHeaderIsDumped() throws Exception {
        String header = Files.readString(HEADER);
        Set<String> expected = new TreeSet<>();
        Matcher define = Pattern.compile("^#define[ \\t]+(VTSCOPE_\\w+)[ \\t]+\\S", Pattern.MULTILINE).matcher(header);
        while (define.find()) {
            expected.add(define.group(1));
        }
        Matcher struct = Pattern.compile(
                        "struct (vtscope_region_header|vtscope_slot_owner|vtscope_record) \\{([^}]*)\\};")
                .matcher(header);
        int structs = 0;
        while (struct.find()) {
            structs++;
            Matcher field = Pattern.compile("__[us]\\d+ (\\w+)(?:\\[\\d+\\])?;").matcher(struct.group(2));
            while (field.find()) {
                if (!field.group(1).equals("reserved")) {
                    expected.add("offsetof(" + struct.group(1) + "," + field.group(1) + ")");
                }
            }
        }
        assertEquals(3, structs, "the header, owner and record structs were found in " + HEADER);
        assertTrue(expected.size() > 30, "the header's defines and fields were found: " + expected);
        expected.removeAll(compiledLayout().values().stream().map(Entry::cExpression).collect(Collectors.toSet()));
        assertEquals(Set.of(), expected, "in vtscope_record.h but not dumped by record_layout_dump.cpp");
    }
}
