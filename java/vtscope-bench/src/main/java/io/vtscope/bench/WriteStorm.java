// SPDX-License-Identifier: Apache-2.0
package io.vtscope.bench;

import io.vtscope.VtScope;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The per-event consumer workload (not a JMH benchmark; {@code bench/bench_matrix.cpp} runs it):
 * N virtual threads each publish a context ({@link VtScope#publish}) and then write one byte to
 * {@code /dev/null} as fast as they can, so every {@code write} is an event a
 * {@code vtscope trace --syscalls write} attributes as {@code ok}. After the warm-up it prints
 * one line per interval:
 * {@code # writestorm interval K: writes=W nanos=T} (W writes by all threads in T ns of wall time).
 *
 * <p>Usage: {@code java -cp vtscope-bench.jar io.vtscope.bench.WriteStorm THREADS WARMUP_MS INTERVAL_MS INTERVALS}
 */
public final class WriteStorm {
    private static final int STRIDE = 16; // one counter per 128 bytes: no false sharing

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        long warmupMs = Long.parseLong(args[1]);
        long intervalMs = Long.parseLong(args[2]);
        int intervals = Integer.parseInt(args[3]);
        AtomicLongArray counts = new AtomicLongArray(threads * STRIDE);
        Thread[] ts = new Thread[threads];
        var stop = new java.util.concurrent.atomic.AtomicBoolean();
        for (int t = 0; t < threads; t++) {
            int slot = t * STRIDE;
            int k = t;
            ts[t] = Thread.ofVirtual().name("writestorm-" + t).start(() -> {
                if (!VtScope.publish(String.format("%032x", 0x1000 + k), String.format("%016x", 0x2000 + k), 1)) {
                    throw new IllegalStateException("VtScope.publish failed: " + VtScope.unavailableReason());
                }
                try (FileOutputStream out = new FileOutputStream("/dev/null")) {
                    long n = 0;
                    while (!stop.get()) {
                        out.write(0);
                        counts.lazySet(slot, ++n);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
        System.out.println("# writestorm started: threads=" + threads + " pid=" + ProcessHandle.current().pid());
        Thread.sleep(warmupMs);
        long before = sum(counts, threads);
        long t0 = System.nanoTime();
        for (int i = 1; i <= intervals; i++) {
            Thread.sleep(intervalMs);
            long after = sum(counts, threads);
            long t1 = System.nanoTime();
            System.out.println("# writestorm interval " + i + ": writes=" + (after - before) + " nanos=" + (t1 - t0));
            before = after;
            t0 = t1;
        }
        stop.set(true);
        for (Thread t : ts) {
            t.join();
        }
        System.out.println("# writestorm done");
    }

    private static long sum(AtomicLongArray counts, int threads) {
        long s = 0;
        for (int t = 0; t < threads; t++) {
            s += counts.get(t * STRIDE);
        }
        return s;
    }

    private WriteStorm() {}
}
