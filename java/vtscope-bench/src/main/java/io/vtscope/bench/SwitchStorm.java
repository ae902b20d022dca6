// SPDX-License-Identifier: Apache-2.0
package io.vtscope.bench;

import io.vtscope.VtScope;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The context-switch workload of {@code vtscope-bench --block} (not a JMH benchmark;
 * {@code bench/block_bench.cpp} runs it): two threads hand a byte back and forth over two pipes
 * with blocking FFM downcalls to read and write, so every hand-off switches one thread of this JVM
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
    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final MethodHandle PIPE = LINKER.downcallHandle(LIBC.find("pipe").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
    private static final MethodHandle READ = LINKER.downcallHandle(LIBC.find("read").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                    ValueLayout.JAVA_LONG));
    private static final MethodHandle WRITE = LINKER.downcallHandle(LIBC.find("write").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                    ValueLayout.JAVA_LONG));

    private SwitchStorm() {}

    private static int[] pipe(Arena arena) throws Throwable {
        MemorySegment fds = arena.allocate(ValueLayout.JAVA_INT, 2);
        if ((int) PIPE.invokeExact(fds) != 0) {
            throw new IOException("pipe failed");
        }
        return new int[] {fds.getAtIndex(ValueLayout.JAVA_INT, 0), fds.getAtIndex(ValueLayout.JAVA_INT, 1)};
    }

    /** Reads one byte from in and writes it to out, until stop; the first side writes first. */
    private static void hand(int in, int out, boolean first, AtomicBoolean stop, AtomicLong roundTrips) {
        // A context, as a traced service's threads have: block's attribution then reads the record
        // at every switch-out, as it does there.
        if (!VtScope.publish(String.format("%032x", first ? 0xa : 0xb), String.format("%016x", first ? 0xa : 0xb), 1)) {
            throw new IllegalStateException("VtScope.publish failed: " + VtScope.unavailableReason());
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment b = arena.allocate(1);
            if (first && (long) WRITE.invokeExact(out, b, 1L) != 1) {
                throw new IOException("write failed");
            }
            while (!stop.get()) {
                if ((long) READ.invokeExact(in, b, 1L) != 1) {
                    throw new IOException("read failed");
                }
                if (first) {
                    roundTrips.lazySet(roundTrips.get() + 1);
                }
                if ((long) WRITE.invokeExact(out, b, 1L) != 1) {
                    throw new IOException("write failed");
                }
            }
        } catch (Throwable e) {
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
            int[] ab;
            int[] ba;
            try (Arena arena = Arena.ofConfined()) {
                ab = pipe(arena);
                ba = pipe(arena);
            }
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
