// SPDX-License-Identifier: Apache-2.0
package io.vtscope.bench;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.vtscope.internal.RecordLayout;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Virtual-thread churn: one operation starts 1,000 virtual threads and joins them all; divide a
 * score difference by 1,000 for the cost per virtual thread.
 *
 * <p>{@code config}:
 * <ul>
 *   <li>{@code baseline}: empty thread body; neither OpenTelemetry nor vtscope touched (the fork
 *       fails if the record region exists).
 *   <li>{@code installed}: empty body, with the service-loaded vtscope storage installed and the
 *       region created. Threads that publish nothing must cost nothing: the writer has no
 *       thread-start or thread-exit hook and claims a record only on a thread's first publish
 *       (checked: the region's claimed-records counter must not move during the iterations).
 *   <li>{@code span-plain}: each thread makes one valid span current and closes it, with
 *       OpenTelemetry's default storage (control: the cost OpenTelemetry itself adds, including
 *       the first use of a thread local on a new thread).
 *   <li>{@code span-vtscope}: the same with the vtscope storage. Each thread claims its record on
 *       its first publish (a probe and a CAS on a slot, one weak reference to the thread), writes
 *       it and restores it on close. Slots of terminated threads are taken over by later claims,
 *       with no GC or Cleaner involved. {@code span-vtscope − span-plain} is the per-thread cost
 *       of the writer, claim included. Each iteration prints the region's counters: every
 *       started thread must claim exactly once, and no claim may fail (else the fork fails).
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 2, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(org.openjdk.jmh.annotations.Scope.Thread)
public class Churn {
    static final int THREADS = 1000;

    @Param({"baseline", "writer", "writer+trace", "jvmti", "lib", "vtt", "probes", "probes+consumer", "otep",
        "otep-patched", "otep-jvmti", "block", "installed", "span-plain", "span-vtscope"})
    public String config;

    private final Thread[] threads = new Thread[THREADS];
    private Runnable body;
    private boolean vtscope;
    private long invocations;
    private long claimedBefore;
    private long unavailableBefore;

    @Setup(Level.Trial)
    public void setup() throws InterruptedException {
        if (Matrix.isMatrixConfig(config)) {
            Matrix.apply(config); // writer, writer+trace: as "installed" (empty body, no claim)
            vtscope = Matrix.writer(config);
            body = () -> {};
            return;
        }
        switch (config) {
            case "installed" -> {
                Setups.vtscope(config);
                vtscope = true;
                body = () -> {};
            }
            case "span-plain" -> {
                Setups.plainOpenTelemetry(config);
                body = spanBody(Setups.validSpan());
            }
            case "span-vtscope" -> {
                Setups.vtscope(config);
                vtscope = true;
                Span span = Setups.validSpan();
                body = spanBody(span);
                Thread t = Thread.ofVirtual().start(() -> Setups.checkPublishes(span));
                t.join(); // failures are visible in the output; the iteration checks catch a broken claim too
            }
            default -> throw new IllegalArgumentException("config " + config);
        }
    }

    private static Runnable spanBody(Span span) {
        return () -> {
            Scope scope = span.makeCurrent();
            scope.close();
        };
    }

    @Setup(Level.Iteration)
    public void startIteration() {
        invocations = 0;
        if (vtscope) {
            claimedBefore = Setups.counter(RecordLayout.H_RECORDS_CLAIMED);
            unavailableBefore = Setups.counter(RecordLayout.H_RECORDS_UNAVAILABLE);
        }
    }

    @TearDown(Level.Iteration)
    public void checkIteration() {
        if (!vtscope) {
            if (config.equals("span-plain") || (Matrix.isMatrixConfig(config) && !Matrix.regionExpected(config))) {
                Setups.requireNoRegion(config);
            }
            return;
        }
        long started = invocations * THREADS;
        long claimed = Setups.counter(RecordLayout.H_RECORDS_CLAIMED) - claimedBefore;
        long unavailable = Setups.counter(RecordLayout.H_RECORDS_UNAVAILABLE) - unavailableBefore;
        long released = Setups.counter(RecordLayout.H_RECORDS_RELEASED);
        System.out.println("# vtscope-bench " + config + " iteration: threads=" + started + " claimed=" + claimed
                + " unavailable=" + unavailable + " releasedTotal=" + released);
        if ((config.equals("installed") || Matrix.writer(config)) && (claimed != 0 || unavailable != 0)) {
            throw new IllegalStateException("installed: threads that publish nothing claimed " + claimed
                    + " records (" + unavailable + " failed claims)");
        }
        if (config.equals("span-vtscope")) {
            if (claimed != started || unavailable != 0) {
                throw new IllegalStateException("span-vtscope: " + started + " threads started but " + claimed
                        + " claims and " + unavailable + " failed claims");
            }
        }
    }

    /** Starts 1,000 virtual threads, then joins them all. */
    @Benchmark
    public void startJoin1000() throws InterruptedException {
        Thread[] ts = threads;
        Runnable r = body;
        for (int i = 0; i < THREADS; i++) {
            ts[i] = Thread.startVirtualThread(r);
        }
        for (int i = 0; i < THREADS; i++) {
            ts[i].join();
        }
        invocations++;
    }
}
