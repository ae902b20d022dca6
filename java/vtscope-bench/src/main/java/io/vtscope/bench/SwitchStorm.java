// SPDX-License-Identifier: Apache-2.0
package io.vtscope.bench;

import io.vtscope.VtScope;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The context-switch workload of {@code vtscope-bench --block} (not a JMH benchmark;
 * {@code bench/block_bench.cpp} runs it): two threads hand a byte back and forth over two pipes
 * with blocking FFM downcalls to read and write (JDK 22+), so every hand-off switches one thread of this JVM
 * out (asleep in read) and the other in. Both threads publish a trace context first. After the warm-up it prints one line per interval:
 * {@code # switchstorm interval K: roundtrips=R nanos=T}.
 *
 * <p>Modes: {@code platform}, two platform threads (a switch-out with no virtual thread mounted:
 * vtscope block resolves the thread and keeps nothing); {@code pinned}, two virtual threads, each
 * blocking its carrier in the downcall (a switch-out with a virtual thread mounted: an interval is
 * opened and, shorter than the threshold, counted in the kernel); {@code idle}, no ping-pong at
 * all (the JVM only sleeps, for the cost of the program on other processes' switches).
 *
 * <p>Usage: {@code java --enable-native-access=ALL-UNNAMED -cp vtscope-bench.jar
 * io.vtscope.bench.SwitchStorm MODE WARMUP_MS INTERVAL_MS INTERVALS}
 */
public final class SwitchStorm {
    private SwitchStorm() {}

    /** Reads one byte from in and writes it to out, until stop; the first side writes first. */
    private static void hand(int in, int out, boolean first, AtomicBoolean stop, AtomicLong roundTrips) {
        // A context, as a traced service's threads have: block's attribution then reads the record
        // at every switch-out, as it does there.
        if (!VtScope.publish(String.format("%032x", first ? 0xa : 0xb), String.format("%016x", first ? 0xa : 0xb), 1)) {
            throw new IllegalStateException("VtScope.publish failed: " + VtScope.unavailableReason());
        }
        try {
            Downcalls.pingPong(in, out, first, stop::get, () -> roundTrips.lazySet(roundTrips.get() + 1));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    public static void main(String[] args) throws Throwable {
        String mode = args[0];
        long warmupMs = Long.parseLong(args[1]);
        long intervalMs = Long.parseLong(args[2]);
        int intervals = Integer.parseInt(args[3]);
        if (!mode.equals("platform") && !mode.equals("pinned") && !mode.equals("idle")) {
            throw new IllegalArgumentException("mode: platform, pinned or idle, not " + mode);
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong roundTrips = new AtomicLong();
        if (!mode.equals("idle")) {
            if (Downcalls.unavailableReason() != null) {
                throw new IllegalStateException("mode " + mode + ": the ping-pong " + Downcalls.unavailableReason());
            }
            int[] ab = Downcalls.pipe();
            int[] ba = Downcalls.pipe();
            Thread.Builder builder = mode.equals("pinned") ? Thread.ofVirtual() : Thread.ofPlatform();
            Thread a = builder.name("switchstorm-a").unstarted(() -> hand(ba[0], ab[1], true, stop, roundTrips));
            Thread b = builder.name("switchstorm-b").unstarted(() -> hand(ab[0], ba[1], false, stop, roundTrips));
            a.start();
            b.start();
        }
        System.out.println("# switchstorm started: mode=" + mode + " pid=" + ProcessHandle.current().pid());
        Thread.sleep(warmupMs);
        long before = roundTrips.get();
        long t0 = System.nanoTime();
        for (int i = 1; i <= intervals; i++) {
            Thread.sleep(intervalMs);
            long after = roundTrips.get();
            long t1 = System.nanoTime();
            System.out.println("# switchstorm interval " + i + ": roundtrips=" + (after - before) + " nanos=" + (t1 - t0));
            before = after;
            t0 = t1;
        }
        stop.set(true);
        System.out.println("# switchstorm done");
        System.out.flush();
        // The ping-pong threads may be blocked in read with the other side gone: exit without them.
        Runtime.getRuntime().halt(0);
    }
}
