// SPDX-License-Identifier: Apache-2.0
package io.vtscope.internal;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The application's OpenTelemetry resource for the OTEP 4719 process context that libvtscope
 * publishes, so that external readers (the OpenTelemetry eBPF profiler, OTEP 4947 readers) learn
 * {@code service.name} and the rest with no configuration of their own.
 *
 * <p>Values become protobuf {@code AnyValue}s of the two kinds every current reader decodes:
 * strings stay strings, integral numbers become {@code int_value}, and everything else (booleans,
 * doubles, arrays) its string form: the OTEP's reference reader rejects a whole payload that holds
 * a {@code bool_value} or {@code double_value}.
 *
 * <p><b>A library loaded later.</b> The resource is known when the OpenTelemetry SDK (or the
 * Java agent's) is built, at start-up; libvtscope may come into the process only later (loaded
 * into the running JVM with {@code jcmd PID JVMTI.agent_load libvtscope.so otep}, or by
 * vtscope-java's own late initialisation). So {@link #publish} also keeps the encoded resource,
 * in hex, in the system property {@value #RESOURCE_PROPERTY}, and libvtscope reads it through JNI
 * when it initialises its process context (native/src/agent.cpp). A system property because it is
 * one per process whatever class loader sets it (the agent extension's is not the application's)
 * and a library can read it with JNI alone, with no class of ours to find. It is set before the
 * library is looked for, so a library mapped after that look finds it, and one mapped before
 * gets the resource through the C ABI; the library keeps a resource from the C ABI over the
 * property's (the newer one).
 */
public final class ProcessResource {
    static final int KIND_STRING = 0;
    static final int KIND_INT = 1;
    /** The hand-over to a libvtscope loaded later: the last {@link #encode} entries, lowercase hex. */
    public static final String RESOURCE_PROPERTY = "vtscope.process.resource";

    /**
     * Publishes {@code attributes} into the process context: at once if this process maps
     * libvtscope (it does with {@code -agentpath:libvtscope.so=otep}), and in any case for a
     * libvtscope loaded later (see the class comment). Returns the number of attributes published,
     * 0 when no library is mapped yet, or a negative result code. Never throws.
     */
    public static int publish(Map<String, ?> attributes) {
        try {
            byte[] entries = encode(attributes);
            System.setProperty(RESOURCE_PROPERTY, HexFormat.of().formatHex(entries));
            NativeLibrary library = NativeLibrary.ifMapped();
            return library == null ? 0 : library.setProcessResource(entries);
        } catch (RuntimeException | LinkageError e) {
            return NativeLibrary.ERR_REGION;
        }
    }

    /**
     * The C ABI's entries (vtscope_native.h): per attribute u8 kind, u16 key length, key, then u32
     * length and UTF-8 bytes (string) or 8 bytes (int64), little-endian. Keys longer than 65535
     * bytes are left out.
     */
    public static byte[] encode(Map<String, ?> attributes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Map.Entry<String, ?> e : attributes.entrySet()) {
            Object v = e.getValue();
            if (e.getKey() == null || v == null) {
                continue;
            }
            byte[] key = e.getKey().getBytes(StandardCharsets.UTF_8);
            if (key.length > 0xffff) {
                continue;
            }
            boolean integral = v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte;
            out.write(integral ? KIND_INT : KIND_STRING);
            putLe(out, key.length, 2);
            out.writeBytes(key);
            if (integral) {
                putLe(out, ((Number) v).longValue(), 8);
            } else {
                byte[] value = stringForm(v).getBytes(StandardCharsets.UTF_8);
                putLe(out, value.length, 4);
                out.writeBytes(value);
            }
        }
        return out.toByteArray();
    }

    private static String stringForm(Object v) {
        if (v instanceof List<?> list) {
            return list.stream().map(String::valueOf).collect(Collectors.joining(",", "[", "]"));
        }
        return String.valueOf(v);
    }

    private static void putLe(ByteArrayOutputStream out, long v, int bytes) {
        for (int i = 0; i < bytes; i++) {
            out.write((int) (v >>> (8 * i)) & 0xff);
        }
    }

    private ProcessResource() {}
}
