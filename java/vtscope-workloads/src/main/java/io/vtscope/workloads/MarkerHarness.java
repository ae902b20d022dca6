// SPDX-License-Identifier: Apache-2.0
package io.vtscope.workloads;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.vtscope.VtScope;
import io.vtscope.internal.RecordRegion;
import java.io.BufferedWriter;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * The dual-channel harness: every marker is one {@code write} of a unique length to one dedicated
 * fd (the OS channel, seen by eBPF) made under a fresh span, and the same (thread, span, fd, length)
 * tuple is written to the --expected file (the ground-truth channel). The consumer's attribution
 * of each write is checked against the tuple with the matching sender-specific length.
 */
public final class MarkerHarness {
    private static final String NAME = "MarkerHarness";
    private static final String USAGE = "--expected PATH [--threads N] [--markers M] [--scope clean|leaky-final]"
            + " [--mode sequential|concurrent] [--platform-threads P] [--nested] [--yields] [--gc-pressure]"
            + " [--no-warm-up] [--waves W] [--context otel|synthetic] [--marker-file PATH] [--ready-file PATH]"
            + " [--go-file PATH] [--late-region] [--tracer own|global] [--writer-stats]";
    /**
     * FileOutputStream.write issues one write(2) for any length (io_util.c copies into a stack
     * buffer up to 8 KiB, a malloc'ed one above, and /dev/null takes it all at once).
     */
    private static final int BASE_COUNT = 1000;
    private static final int MAX_COUNT = 21000;

    /** Keeps --gc-pressure garbage from being optimized away. */
    @SuppressWarnings("unused")
    private static volatile Object sink;

    private record Marker(int seq, String traceId, String spanId, int flags) {}

    private record Config(int markers, boolean leakyFinal, boolean nested, boolean yields, boolean gcPressure,
            boolean synthetic, FileOutputStream out, int fd, byte[] payload, Tracer tracer) {}

    /** One sender thread's identity and its ground truth, filled by that thread only. */
    private static final class Sender implements Runnable {
        final int k;
        final Config c;
        final List<Marker> markers = new ArrayList<>();
        volatile long threadId;
        volatile boolean virtual;
        /** Address of the sender's record while it ran (for the lifecycle-probe checks). */
        volatile long record;

        Sender(int k, Config c) {
            this.k = k;
            this.c = c;
        }

        @Override
        public void run() {
            Thread self = Thread.currentThread();
            threadId = self.threadId();
            virtual = self.isVirtual();
            Span root = c.tracer.spanBuilder("sender").setNoParent().startSpan();
            Context rootContext = Context.root().with(root);
            try {
                for (int i = 0; i < c.markers; i++) {
                    if (i > 0) {
                        pause();
                    }
                    marker(i, rootContext);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                root.end();
            }
        }

        private void marker(int i, Context rootContext) throws IOException {
            if (c.synthetic) {
                syntheticMarker(i);
                return;
            }
            Span parent = c.nested ? c.tracer.spanBuilder("parent").setParent(rootContext).startSpan() : null;
            Scope parentScope = parent == null ? null : parent.makeCurrent();
            Span span = c.tracer.spanBuilder("marker")
                    .setParent(parent == null ? rootContext : Context.current()).startSpan();
            Scope scope = span.makeCurrent();
            c.out.write(c.payload, 0, BASE_COUNT + k);
            if (i == 0) {
                record = VtScope.recordAddress();
            }
            SpanContext sc = span.getSpanContext();
            markers.add(new Marker(i, sc.getTraceId(), sc.getSpanId(), sc.getTraceFlags().asByte()));
            span.end();
            if (parent != null) {
                parent.end();
            }
            if (c.leakyFinal && i == c.markers - 1) {
                return; // the leaky-final case: the thread ends with its last scope(s) still open
            }
            scope.close();
            if (parentScope != null) {
                parentScope.close();
            }
        }

        /** The paper's synthetic-context mode: random ids published through the plain API. */
        private void syntheticMarker(int i) throws IOException {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            long high = random.nextLong() | 1, low = random.nextLong(), spanId = random.nextLong() | 1;
            VtScope.publish(high, low, spanId, 1);
            c.out.write(c.payload, 0, BASE_COUNT + k);
            if (i == 0) {
                record = VtScope.recordAddress();
            }
            markers.add(new Marker(i, String.format("%016x%016x", high, low), String.format("%016x", spanId), 1));
            if (!(c.leakyFinal && i == c.markers - 1)) {
                VtScope.clear();
            }
        }

        private void pause() {
            if (c.gcPressure) {
                sink = new byte[64 * 1024];
            }
            LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(200_000, 1_000_001));
            if (c.yields) {
                Thread.yield();
            }
        }
    }

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(NAME, USAGE, args, Map.ofEntries(
                Map.entry("threads", "16"), Map.entry("markers", "8"), Map.entry("scope", "clean"),
                Map.entry("mode", "sequential"), Map.entry("platform-threads", "0"), Map.entry("waves", "1"),
                Map.entry("context", "otel"), Map.entry("marker-file", "/dev/null"), Map.entry("expected", ""),
                Map.entry("ready-file", ""), Map.entry("go-file", ""), Map.entry("tracer", "own")),
                Set.of("nested", "yields", "gc-pressure", "no-warm-up", "late-region", "writer-stats"));
        int threads = o.getInt("threads", 0, MAX_COUNT - BASE_COUNT + 1);
        int waves = o.getInt("waves", 1, 1000);
        int platformThreads = o.getInt("platform-threads", 0, MAX_COUNT - BASE_COUNT + 1);
        if (threads + platformThreads > MAX_COUNT - BASE_COUNT + 1) {
            o.fail("--threads + --platform-threads must be at most " + (MAX_COUNT - BASE_COUNT + 1));
        }
        int markers = o.getInt("markers", 1, 1_000_000);
        boolean leaky = o.choice("scope", "clean", "leaky-final").equals("leaky-final");
        boolean concurrent = o.choice("mode", "sequential", "concurrent").equals("concurrent");
        String expected = o.required("expected");
        // --late-region: the first use of vtscope's writer (which creates the record region) is a
        // sender's first publication after the go file, so a tracer attached before it must learn
        // of the region while the markers are being written. No check, no warm-up before that.
        boolean lateRegion = o.flag("late-region");
        if (!lateRegion) {
            Workloads.checkVtScope(NAME);
        }

        Path markerPath = Path.of(o.get("marker-file"));
        Set<Integer> before = fdsPointingTo(markerPath);
        FileOutputStream out = new FileOutputStream(markerPath.toFile());
        Set<Integer> opened = fdsPointingTo(markerPath);
        opened.removeAll(before);
        if (opened.size() != 1) {
            o.fail("cannot identify the fd of " + markerPath + " (candidates " + opened + ")");
        }
        int fd = opened.iterator().next();

        // own: an SDK of this application (the default). global: GlobalOpenTelemetry, which the
        // OpenTelemetry Java agent bridges onto its own SDK (an application's own SDK under the
        // agent makes spans that live only in the application's context, not the agent's).
        OpenTelemetrySdk sdk = o.choice("tracer", "own", "global").equals("global") ? null : Workloads.sdk();
        Tracer tracer = sdk == null
                ? io.opentelemetry.api.GlobalOpenTelemetry.getTracer("io.vtscope.workloads.MarkerHarness")
                : sdk.getTracer("io.vtscope.workloads.MarkerHarness");
        // Without warm-up no virtual thread has run yet, so the scheduler creates its carriers
        // only after the go file: the case of a tracer that must notice threads started later.
        if (!o.flag("no-warm-up") && !lateRegion) {
            warmUp(tracer);
        }
        String context = o.get("context");
        if (!context.equals("otel") && !context.equals("synthetic")) {
            o.fail("--context must be otel or synthetic");
        }
        Config c = new Config(markers, leaky, o.flag("nested"), o.flag("yields"), o.flag("gc-pressure"),
                context.equals("synthetic"),
                out, fd, new byte[MAX_COUNT], tracer);
        List<Sender> senders = new ArrayList<>();
        List<Thread> started = new ArrayList<>();
        for (int k = 0; k < threads + platformThreads; k++) {
            senders.add(new Sender(k, c));
        }

        Workloads.signalReady(o.get("ready-file"));
        Workloads.awaitGo(NAME, o.get("go-file"));
        long t0 = System.nanoTime();
        // Concurrent mode runs the senders in waves (all of a wave at once, waves one after
        // another), so later waves' threads reuse record slots of terminated earlier ones.
        int waveSize = (senders.size() + waves - 1) / waves;
        for (Sender s : senders) {
            Thread t = (s.k < threads ? Thread.ofVirtual() : Thread.ofPlatform()).name("sender-" + s.k).unstarted(s);
            t.start();
            if (concurrent) {
                started.add(t);
                if (started.size() == waveSize) {
                    for (Thread w : started) {
                        w.join();
                    }
                    started.clear();
                }
            } else {
                t.join(); // sequential: one sender at a time, like the paper's harness
            }
        }
        for (Thread t : started) {
            t.join();
        }
        long elapsedMs = (System.nanoTime() - t0) / 1_000_000;

        int written = 0;
        try (BufferedWriter w = Files.newBufferedWriter(Path.of(expected))) {
            for (Sender s : senders) {
                for (Marker m : s.markers) {
                    w.write("{\"sender\":" + s.k + ",\"seq\":" + m.seq + ",\"platform\":" + !s.virtual
                            + ",\"vthread\":" + (s.virtual ? Long.toString(s.threadId) : "null")
                            + ",\"thread_id\":" + s.threadId + ",\"trace_id\":\"" + m.traceId
                            + "\",\"span_id\":\"" + m.spanId + "\",\"trace_flags\":" + m.flags
                            + ",\"fd\":" + fd + ",\"count\":" + (BASE_COUNT + s.k) + ",\"record\":" + s.record + "}\n");
                    written++;
                }
            }
        }
        // Closed only now, so the expected file cannot reuse the marker fd number while a tracer watches.
        out.close();
        if (sdk != null) {
            sdk.close();
        }
        int expectedTotal = (threads + platformThreads) * markers;
        System.err.printf("%s: %d markers (%d virtual + %d platform senders x %d, %s, %s%s%s%s) on fd %d in %d ms%n",
                NAME, written, threads, platformThreads, markers, concurrent ? "concurrent" : "sequential",
                leaky ? "leaky-final" : "clean", c.nested ? ", nested" : "", c.yields ? ", yields" : "",
                c.gcPressure ? ", gc-pressure" : "", fd, elapsedMs);
        if (written != expectedTotal) {
            System.err.println(NAME + ": expected " + expectedTotal + " markers, a sender failed");
            System.exit(1);
        }
        // --writer-stats: the region's final counters, which a tracer can only sample while the
        // JVM lives (its summary holds its last look).
        if (o.flag("writer-stats")) {
            RecordRegion region = RecordRegion.global();
            if (region != null) {
                long[] stats = region.writerStats();
                System.err.printf("%s: writer records: %d claimed, %d released, %d unavailable%n", NAME, stats[0],
                        stats[1], stats[2]);
            }
        }
    }

    /** Gets the JIT, the carrier pool and the context storage going before the measured run. */
    @SuppressWarnings("try") // the scope is held only for its effect on the current context
    private static void warmUp(Tracer tracer) throws Exception {
        List<Thread> warm = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            warm.add(Thread.ofVirtual().start(() -> {
                for (int i = 0; i < 50; i++) {
                    Span span = tracer.spanBuilder("warm-up").startSpan();
                    try (Scope scope = span.makeCurrent()) {
                        LockSupport.parkNanos(100_000);
                        Thread.yield();
                    } finally {
                        span.end();
                    }
                }
            }));
        }
        for (Thread t : warm) {
            t.join();
        }
    }

    /** Open descriptors of this process whose /proc/self/fd link resolves to {@code path}. */
    private static Set<Integer> fdsPointingTo(Path path) throws IOException {
        Set<Integer> fds = new HashSet<>();
        Path target = path.toAbsolutePath().normalize();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path link : dir) {
                try {
                    Path p = Files.readSymbolicLink(link);
                    if (p.equals(target) || (Files.exists(target) && Files.isSameFile(p, target))) {
                        fds.add(Integer.parseInt(link.getFileName().toString()));
                    }
                } catch (IOException | NumberFormatException e) {
                    // descriptor closed meanwhile, or not a path (socket, pipe): not ours
                }
            }
        }
        return fds;
    }
}
