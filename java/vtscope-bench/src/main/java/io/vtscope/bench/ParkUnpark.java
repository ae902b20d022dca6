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
 * The paper's Park/Unpark workload: two virtual threads hand control to each other 10,000 times
 * per operation with {@code LockSupport.park/unpark} (see {@link PingPong}). In the writer
 * configurations both threads have a valid span current for the whole trial (their records are
 * claimed once, during setup, and checked at the end), as in {@link Transition}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 2, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(org.openjdk.jmh.annotations.Scope.Thread)
public class ParkUnpark {
    @Param({"baseline", "writer", "writer+trace", "jvmti", "lib", "vtt", "probes", "probes+consumer", "otep", "otep-patched", "otep-jvmti",
            "block"})
    public String config;

    private PingPong pingPong;
    private Span span;
    private final Scope[] scopes = new Scope[2];

    @Setup(Level.Trial)
    public void setup() throws InterruptedException {
        Matrix.apply(config);
        if (Matrix.writer(config)) {
            span = Setups.validSpan();
        }
        pingPong = new PingPong("park-unpark", role -> {
            if (span != null) {
                scopes[role] = span.makeCurrent();
                Setups.requireRecord(span.getSpanContext());
            }
        }, role -> {
            if (span != null) {
                Setups.requireRecord(span.getSpanContext()); // still current after all the hand-offs
                scopes[role].close();
                Setups.requireRecord(null);
            }
        });
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        pingPong.close();
        if (!Matrix.regionExpected(config)) {
            Setups.requireNoRegion(config);
        }
    }

    /** 10,000 park/unpark round trips between two virtual threads. */
    @Benchmark
    public void handoff10k() throws InterruptedException {
        pingPong.run();
    }
}
