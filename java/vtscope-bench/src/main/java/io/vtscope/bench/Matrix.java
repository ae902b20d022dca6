// SPDX-License-Identifier: Apache-2.0
package io.vtscope.bench;

import io.vtscope.VirtualThreadTime;
import io.vtscope.internal.NativeLibrary;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The configurations of the benchmark matrix (driven by {@code build/bin/vtscope-bench}, source
 * {@code bench/bench_matrix.cpp}). Each adds one component:
 * <ul>
 *   <li>{@code baseline}: nothing of vtscope in the JVM (no record region, no libvtscope).
 *   <li>{@code writer}: the service-loaded vtscope OpenTelemetry storage installed, no consumer.
 *   <li>{@code writer+trace}: the same JVM, with {@code vtscope trace --syscalls write} attached
 *       from outside (this JVM cannot see it; the driver checks the attach).
 *   <li>{@code jvmti}: the bench-only control agent {@code libvtscope_bench_agent.so} (a JVMTI
 *       environment with {@code can_support_virtual_threads} and VirtualThreadStart/End enabled,
 *       empty callbacks: the paper's "Agent" variant), no libvtscope.
 *   <li>{@code lib}: libvtscope.so loaded at run time (dlopen through FFM) and not initialised: the
 *       C ABI has no mode with a JVMTI environment but no events, so this is "loaded, no JVMTI".
 *   <li>{@code vtt}: {@link VirtualThreadTime#initialize()} at run time (mount, unmount and end
 *       callbacks on for every virtual thread), nothing registered.
 *   <li>{@code probes}, {@code probes+consumer}: {@code -agentpath:libvtscope.so=probes}; the
 *       second with {@code vtscope trace --identity lifecycle --syscalls write} attached.
 *   <li>{@code otep}: {@code -agentpath:libvtscope.so=otep}, which keeps otel_thread_ctx_v1
 *       current through the VirtualThread mount hook (checked: its class is in the boot loader).
 *   <li>{@code otep-jvmti}: {@code -agentpath:libvtscope.so=otep-jvmti}, the same through the
 *       JVMTI mount/unmount events, the library's fallback (checked: no hook class).
 *   <li>{@code block}: the baseline JVM with {@code vtscope block} attached from outside (its
 *       sched_switch program; issue 11).
 * </ul>
 * The driver passes the JVM options of the configuration and {@code -Dvtscope.bench.config=NAME};
 * the benchmark's {@code config} parameter must name the same configuration. {@link #apply}
 * performs the in-JVM part (install the writer, load or initialise the library) and checks that
 * the JVM is what the configuration claims, throwing on any mismatch.
 */
final class Matrix {
    static final String PROPERTY = "vtscope.bench.config";
    static final String BENCH_AGENT = "libvtscope_bench_agent.so";

    /** True for the configurations whose JVM runs the vtscope writer (OpenTelemetry storage). */
    static boolean writer(String config) {
        return config.equals("writer") || config.equals("writer+trace");
    }

    static boolean isMatrixConfig(String config) {
        return switch (config) {
            case "baseline", "writer", "writer+trace", "jvmti", "lib", "vtt", "probes", "probes+consumer", "otep",
                    "otep-patched", "otep-jvmti", "block" -> true;
            default -> false;
        };
    }

    /** Applies and checks matrix configuration {@code config}. */
    static void apply(String config) {
        checkDeclared(config);
        String maps = maps();
        boolean libMapped = maps.contains("/" + NativeLibrary.LIBRARY_NAME);
        boolean agentMapped = maps.contains("/" + BENCH_AGENT);
        switch (config) {
            case "baseline", "block" -> {
                requireLibrary(config, libMapped, false);
                requireAgent(config, agentMapped, false);
                Setups.baseline(config);
            }
            case "writer", "writer+trace" -> {
                requireLibrary(config, libMapped, false);
                requireAgent(config, agentMapped, false);
                Setups.vtscope(config);
            }
            case "jvmti" -> {
                requireLibrary(config, libMapped, false);
                requireAgent(config, agentMapped, true);
                Setups.baseline(config);
            }
            case "lib" -> {
                requireLibrary(config, libMapped, false); // not as an agent: loaded here
                requireAgent(config, agentMapped, false);
                NativeLibrary lib = NativeLibrary.get();
                if (lib == null) {
                    throw new IllegalStateException(config + ": " + NativeLibrary.unavailableReason());
                }
                requireFeatures(config, lib, 0);
                Setups.baseline(config);
            }
            case "vtt" -> {
                requireLibrary(config, libMapped, false);
                requireAgent(config, agentMapped, false);
                VirtualThreadTime.initialize();
                requireFeatures(config, NativeLibrary.get(), NativeLibrary.FEATURE_VTT);
                Setups.baseline(config);
            }
            case "probes", "probes+consumer" -> {
                requireLibrary(config, libMapped, true);
                requireAgent(config, agentMapped, false);
                requireFeatures(config, NativeLibrary.get(), NativeLibrary.FEATURE_PROBES);
                announce(config);
            }
            case "otep", "otep-patched", "otep-jvmti" -> {
                requireLibrary(config, libMapped, true);
                requireAgent(config, agentMapped, false);
                requireFeatures(config, NativeLibrary.get(), NativeLibrary.FEATURE_OTEP);
                String hook = mountHook();
                String expected = switch (config) {
                    case "otep" -> "retransformed";
                    case "otep-patched" -> "patched";
                    default -> "none";
                };
                if (!hook.equals(expected)) {
                    throw new IllegalStateException(config + ": the mount hook is " + hook + ", not " + expected);
                }
                announce(config);
            }
            default -> throw new IllegalArgumentException("config " + config + " is not a matrix configuration");
        }
    }

    /**
     * Where libvtscope.so's mount hook class is (native/src/mount_hook.h): "retransformed" when the
     * library defined it in the boot loader's unnamed module, "patched" when it is part of a
     * java.base the library patched (java_base_patch.h), "none" when there is none.
     */
    static String mountHook() {
        try {
            Class<?> hook = Class.forName("io.vtscope.otep.MountHook", false, null);
            return "java.base".equals(hook.getModule().getName()) ? "patched" : "retransformed";
        } catch (ClassNotFoundException e) {
            return "none";
        }
    }

    /** Fails if the driver declared another configuration than the benchmark parameter. */
    static void checkDeclared(String config) {
        String declared = System.getProperty(PROPERTY);
        if (declared != null && !declared.equals(config)) {
            throw new IllegalStateException("-D" + PROPERTY + "=" + declared + " but the benchmark parameter is config="
                    + config + " (pass -p config=" + declared + ")");
        }
    }

    /** True for the configurations whose JVM has a record region (the writer's or the library's). */
    static boolean regionExpected(String config) {
        return writer(config) || config.startsWith("probes") || config.startsWith("otep");
    }

    private static void requireLibrary(String config, boolean mapped, boolean expected) {
        if (mapped != expected) {
            throw new IllegalStateException("config " + config + (expected ? " needs" : " must not have")
                    + " libvtscope.so mapped at setup (agent: -agentpath:.../libvtscope.so=...)");
        }
    }

    private static void requireAgent(String config, boolean mapped, boolean expected) {
        if (mapped != expected) {
            throw new IllegalStateException("config " + config + (expected ? " needs" : " must not have")
                    + " the control agent " + BENCH_AGENT);
        }
    }

    private static void requireFeatures(String config, NativeLibrary lib, int expected) {
        int actual = lib == null ? -1 : lib.features();
        if (actual != expected) {
            throw new IllegalStateException("config " + config + " expects libvtscope features " + expected
                    + " but the library reports " + actual);
        }
    }

    private static void announce(String config) {
        System.out.println("# vtscope-bench fork: config=" + config + " regionMapped=" + Setups.regionMapped()
                + " availableProcessors=" + Runtime.getRuntime().availableProcessors() + " java=" + Runtime.version());
    }

    static String maps() {
        try {
            return Files.readString(Path.of("/proc/self/maps"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Matrix() {}
}
