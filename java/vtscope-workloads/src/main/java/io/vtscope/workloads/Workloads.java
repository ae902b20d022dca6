// SPDX-License-Identifier: Apache-2.0
package io.vtscope.workloads;

import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.vtscope.VtScope;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/** What every workload shares: the OpenTelemetry SDK and the ready/go handshake with the test driver. */
final class Workloads {
    private Workloads() {}

    // <time.h>'s clock ids on Linux (include/uapi/linux/time.h).
    static final int CLOCK_PROCESS_CPUTIME_ID = 2;
    static final int CLOCK_THREAD_CPUTIME_ID = 3;

    /**
     * The process's CPU time: clock_gettime(CLOCK_PROCESS_CPUTIME_ID) through {@link LibC}, the
     * CPU time of all its threads, those that exited included, to the ns. On JDK 21 (no FFM) the
     * JVM's own getProcessCpuTime instead, which moves in 10 ms ticks here; said once on stderr.
     */
    static final class ProcessCpu {
        private static final AtomicBoolean NOTED = new AtomicBoolean();
        private final LibC libc = LibCs.get();
        private final Object timespec = libc == null ? null : libc.newTimespec();

        ProcessCpu(String program) {
            if (libc == null && !NOTED.getAndSet(true)) {
                System.err.println(program + ": cpu_ns from getProcessCpuTime (10 ms ticks): clock_gettime "
                        + LibCs.unavailableReason());
            }
        }

        long nanos() {
            if (libc != null) {
                return libc.clockNanos(CLOCK_PROCESS_CPUTIME_ID, timespec);
            }
            return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                    .getProcessCpuTime();
        }

        long since(long start) {
            return nanos() - start;
        }
    }

    /**
     * An SDK without exporter. One do-nothing span processor is registered because SDK 1.68 hands
     * out no-op tracers (invalid span contexts, so nothing to attribute) when there is none.
     */
    static OpenTelemetrySdk sdk() {
        // Autoconfigured (exporters off; -Dotel.service.name etc. apply), as most applications
        // build theirs: vtscope-otel's resource customizer then publishes the resource.
        return AutoConfiguredOpenTelemetrySdk.builder()
                .addPropertiesSupplier(() -> Map.of(
                        "otel.traces.exporter", "none", "otel.metrics.exporter", "none", "otel.logs.exporter", "none"))
                .addTracerProviderCustomizer((builder, config) -> builder.addSpanProcessor(new SpanProcessor() {
                    @Override
                    public void onStart(Context parentContext, ReadWriteSpan span) {}

                    @Override
                    public boolean isStartRequired() {
                        return false;
                    }

                    @Override
                    public void onEnd(ReadableSpan span) {}

                    @Override
                    public boolean isEndRequired() {
                        return false;
                    }
                }))
                .build()
                .getOpenTelemetrySdk();
    }

    /** Warns (once, on stderr) when records cannot be published; the workload still runs. */
    static void checkVtScope(String program) {
        if (!VtScope.isAvailable()) {
            System.err.println(program + ": warning: " + VtScope.unavailableReason());
        }
    }

    /** Writes "pid\n" under a temporary name and renames it, so a reader never sees a partial file. */
    static void signalReady(String readyFile) {
        if (readyFile == null) {
            return;
        }
        Path target = Path.of(readyFile).toAbsolutePath();
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp" + ProcessHandle.current().pid());
        try {
            Files.writeString(tmp, ProcessHandle.current().pid() + "\n");
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Polls every 10 ms for the go file; exits with status 3 after 120 s. */
    static void awaitGo(String program, String goFile) throws InterruptedException {
        if (goFile == null) {
            return;
        }
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (!Files.exists(Path.of(goFile))) {
            if (System.nanoTime() > deadline) {
                System.err.println(program + ": go file " + goFile + " did not appear within 120 s");
                System.exit(3);
            }
            Thread.sleep(10);
        }
    }
}
