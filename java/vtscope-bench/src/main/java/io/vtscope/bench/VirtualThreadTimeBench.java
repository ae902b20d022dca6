// SPDX-License-Identifier: Apache-2.0
package io.vtscope.bench;

import io.vtscope.VirtualThreadTime;
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
 * Virtual Thread Time with a registered thread (configuration {@code vtt} only: the library
 * initialised at run time).
 * <ul>
 *   <li>{@link #mountedTimePair}: two {@code mountedTimeNanos()} reads and their difference, per
 *       operation, in a registered virtual thread ({@value #PAIRS} pairs per hand-off to it, so the
 *       hand-off adds under 1 ns per pair); {@link #nanoTimePair} is the same loop with two
 *       {@code System.nanoTime()} calls, the clock reads the pair cannot avoid.
 *   <li>{@link #yield10kRegistered}: {@link Transition}'s loop in a registered thread (the mount
 *       and unmount callbacks update its block).
 *   <li>{@link #handoff10kRegistered}: {@link ParkUnpark}'s round trips between two registered
 *       threads.
 * </ul>
 * At the end of a trial the transition variants print the registered threads' mount and unmount
 * counts and the number of operations, a line the driver reads to normalise per transition:
 * {@code # vtscope-bench transitions: benchmark=NAME ops=N mounts=M unmounts=U}.
 */
@BenchmarkMode(Mode.AverageTime)
@Fork(value = 2, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(org.openjdk.jmh.annotations.Scope.Thread)
public class VirtualThreadTimeBench {
    static final int PAIRS = 10_000;

    @Param({"vtt"})
    public String config;

    private String benchmark;
    private VirtualWorker worker;
    private PingPong pingPong;
    private final VirtualThreadTime[] trackers = new VirtualThreadTime[2];
    private long ops;
    private final long[] mounts = new long[2];
    private final long[] unmounts = new long[2];
    /** Sum of the pair differences, so the reads cannot be removed. */
    public volatile long sink;

    private final Runnable pairLoop = () -> {
        VirtualThreadTime t = trackers[0];
        long sum = 0;
        for (int i = 0; i < PAIRS; i++) {
            long a = t.mountedTimeNanos();
            long b = t.mountedTimeNanos();
            sum += b - a;
        }
        sink = sum;
    };

    private final Runnable nanoTimeLoop = () -> {
        long sum = 0;
        for (int i = 0; i < PAIRS; i++) {
            long a = System.nanoTime();
            long b = System.nanoTime();
            sum += b - a;
        }
        sink = sum;
    };

    private static final Runnable YIELD_LOOP = () -> {
        for (int i = 0; i < Transition.YIELDS; i++) {
            Thread.yield();
        }
    };

    @Setup(Level.Trial)
    public void setup(BenchmarkParams params) throws InterruptedException {
        if (!config.equals("vtt")) {
            throw new IllegalArgumentException("VirtualThreadTimeBench runs in configuration vtt only, not " + config);
        }
        Matrix.apply(config);
        String name = params.getBenchmark();
        benchmark = name.substring(name.lastIndexOf('.') + 1);
        if (benchmark.equals("handoff10kRegistered")) {
            pingPong = new PingPong("vtt-park-unpark", role -> trackers[role] = VirtualThreadTime.register(),
                    this::closeTracker);
        } else {
            worker = new VirtualWorker("vtt");
            worker.run(() -> trackers[0] = VirtualThreadTime.register());
        }
    }

    /** On the tracker's own thread: keeps its counts, then closes it. */
    private void closeTracker(int role) {
        mounts[role] = trackers[role].mountCount();
        unmounts[role] = trackers[role].unmountCount();
        trackers[role].close();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        if (pingPong != null) {
            pingPong.close();
        } else {
            worker.run(() -> closeTracker(0));
            worker.close();
        }
        if (benchmark.endsWith("Registered")) {
            System.out.println("# vtscope-bench transitions: benchmark=" + benchmark + " ops=" + ops + " mounts="
                    + (mounts[0] + mounts[1]) + " unmounts=" + (unmounts[0] + unmounts[1]));
        }
    }

    @Benchmark
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    @OperationsPerInvocation(PAIRS)
    public void mountedTimePair() throws InterruptedException {
        worker.run(pairLoop);
    }

    @Benchmark
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    @OperationsPerInvocation(PAIRS)
    public void nanoTimePair() throws InterruptedException {
        worker.run(nanoTimeLoop);
    }

    @Benchmark
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public void yield10kRegistered() throws InterruptedException {
        worker.run(YIELD_LOOP);
        ops++;
    }

    @Benchmark
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public void handoff10kRegistered() throws InterruptedException {
        pingPong.run();
        ops++;
    }
}
