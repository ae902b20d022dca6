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
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The paper's Transition workload: one virtual thread calls {@link Thread#yield()} 10,000 times
 * per operation; each yield unmounts the virtual thread from its carrier and mounts it again (on
 * the default scheduler, with JDK-default parallelism = available processors), so the operation is
 * 10,000 unmount/mount pairs.
 *
 * <p>The vtscope writer has no JVMTI agent and no mount/unmount hook; it only runs when the
 * current OpenTelemetry context changes, which never happens inside the loop. The benchmark
 * checks that claim: {@code baseline} touches neither OpenTelemetry nor vtscope (the fork fails if
 * the record region exists), {@code writer} installs the service-loaded vtscope storage and makes
 * a valid span current in the virtual thread before the loop (its record exists and stays valid
 * for the whole trial, checked before and after). The two scores should be equal within error.
 *
 * <p>The loop runs in one long-lived virtual thread (see {@link VirtualWorker}); each operation
 * also includes one hand-off round trip, negligible against 10,000 yields and identical in both
 * configurations.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 2, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(org.openjdk.jmh.annotations.Scope.Thread)
public class Transition {
    static final int YIELDS = 10_000;

    private static final Runnable YIELD_LOOP = () -> {
        for (int i = 0; i < YIELDS; i++) {
            Thread.yield();
        }
    };

    @Param({"baseline", "writer", "writer+trace", "jvmti", "lib", "vtt", "probes", "probes+consumer", "otep", "otep-patched", "otep-jvmti",
            "block"})
    public String config;

    private VirtualWorker worker;
    private Span span;
    /** Written and read only by the worker virtual thread. */
    private Scope scope;

    @Setup(Level.Trial)
    public void setup() throws InterruptedException {
        Matrix.apply(config);
        if (Matrix.writer(config)) {
            span = Setups.validSpan();
        }
        worker = new VirtualWorker("transition");
        if (span != null) {
            worker.run(() -> {
                scope = span.makeCurrent();
                Setups.requireRecord(span.getSpanContext());
            });
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        if (span != null) {
            worker.run(() -> {
                Setups.requireRecord(span.getSpanContext()); // still current after all the yields
                scope.close();
                Setups.requireRecord(null);
            });
        } else if (!Matrix.regionExpected(config)) {
            Setups.requireNoRegion(config);
        }
        worker.close();
    }

    /** 10,000 {@code Thread.yield()} calls in one virtual thread. */
    @Benchmark
    public void yield10k() throws InterruptedException {
        worker.run(YIELD_LOOP);
    }
}
