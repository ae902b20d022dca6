// SPDX-License-Identifier: Apache-2.0
package io.vtscope.bench;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Cost of publishing a context change: one operation is {@code span.makeCurrent()} followed by
 * {@code scope.close()} on a pre-built valid SDK span, i.e. the two context changes an
 * instrumented request makes around a unit of work. This is the only place where the vtscope
 * writer does work, so {@code vtscope − plain} is its whole per-change overhead: parsing the cached
 * hex ids into the thread's 64-byte record on attach, clearing it on close, and the wrapper scope.
 *
 * <p>{@code config}: {@code plain} (matrix name {@code baseline}) is OpenTelemetry's default thread-local storage, selected with
 * {@code io.opentelemetry.context.contextStorageProvider=default} although vtscope-otel's provider
 * is on the class path; {@code vtscope} (matrix name {@code writer}) is that service-loaded provider (the vtscope wrapper around
 * the same default storage). Each fork checks its storage class and, for vtscope, that the record
 * region exists and that the thread's record really holds the span while it is current (see
 * {@link Setups}). The thread's record is claimed during setup, so the measurement is the steady
 * state of a thread that has published before.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 2, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(org.openjdk.jmh.annotations.Scope.Thread)
public class ContextPublication {
    static final int PAIRS_PER_TASK = 1000;

    @Param({"plain", "vtscope", "baseline", "writer"})
    public String config;

    private Span span;
    /** Distinct spans, used in turn, so no attach finds its ids parsed already. */
    private final Span[] distinct = new Span[64];
    private int next;
    private VirtualWorker worker;
    private Runnable pairs;
    private boolean writes;

    @Setup(Level.Trial)
    public void setup(BenchmarkParams params) throws InterruptedException {
        switch (config) {
            case "plain", "baseline" -> {
                Matrix.checkDeclared(config);
                Setups.plainOpenTelemetry(config);
            }
            case "vtscope", "writer" -> {
                Matrix.checkDeclared(config);
                Setups.vtscope(config);
            }
            default -> throw new IllegalArgumentException("config " + config);
        }
        writes = config.equals("vtscope") || config.equals("writer");
        span = Setups.validSpan();
        for (int i = 0; i < distinct.length; i++) {
            distinct[i] = Setups.validSpan();
        }
        Span s = span;
        pairs = () -> {
            for (int i = 0; i < PAIRS_PER_TASK; i++) {
                Scope scope = s.makeCurrent();
                scope.close();
            }
        };
        if (writes) {
            Setups.checkPublishes(span); // on this JMH (platform) thread
        }
        if (params.getBenchmark().endsWith(".virtualThread")) {
            worker = new VirtualWorker("context-publication");
            if (writes) {
                worker.run(() -> Setups.checkPublishes(s)); // in the worker virtual thread
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        if (worker != null) {
            worker.close();
        }
        if (!writes) {
            Setups.requireNoRegion(config);
        }
    }

    /**
     * One make-current/close pair on the JMH platform thread. The scope is closed explicitly
     * (not try-with-resources) so the operation is exactly the two calls.
     */
    @Benchmark
    public void platformThread() {
        Scope scope = span.makeCurrent();
        scope.close();
    }

    /**
     * The pair on the platform thread with a different span each time (64 in turn): every attach
     * parses its span's ids, none is the one the thread parsed last. The worst case of the writer;
     * {@link #platformThread} re-attaches one span, as a request's callbacks do.
     */
    @Benchmark
    public void platformThreadDistinctSpans() {
        Span s = distinct[next++ & (distinct.length - 1)];
        Scope scope = s.makeCurrent();
        scope.close();
    }

    /**
     * The same pair inside a virtual thread: one invocation hands a task of 1,000 pairs to an
     * already-running virtual thread (see {@link VirtualWorker}) and waits for it, and the score is
     * per pair ({@code @OperationsPerInvocation(1000)}). The score therefore includes 1/1000 of a
     * hand-off round trip (two park/unpark transitions of the virtual thread), identical in both
     * configurations, so it cancels in the difference. The virtual thread stays alive for the whole
     * trial, so its vtscope record is claimed once (during setup), as for a long-lived request
     * thread that changes context many times; per-thread claim cost is measured by {@link Churn}.
     */
    @Benchmark
    @OperationsPerInvocation(PAIRS_PER_TASK)
    public void virtualThread() throws InterruptedException {
        worker.run(pairs);
    }
}
