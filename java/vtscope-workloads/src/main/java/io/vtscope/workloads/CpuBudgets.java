// SPDX-License-Identifier: Apache-2.0
package io.vtscope.workloads;

import io.vtscope.VtScope;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * The profile workload with a known answer: N virtual threads, each under its own trace, each
 * spinning its own CPU budget in slices of random length separated by {@code Thread.yield()} (so they migrate
 * between carriers). Ground truth per thread is the sum over its slices of the carrier's
 * CLOCK_THREAD_CPUTIME_ID deltas around each slice (read through FFM: ThreadMXBean gives -1 on a
 * virtual thread), valid because nothing unmounts the thread inside a slice. One more virtual
 * thread, under its own trace, parks before the ready signal and is never unparked: no sample may
 * name its trace.
 * Writes one JSON line per thread to --expected (with its spin() calls, the work done, so a
 * profiler's overhead shows as fewer calls per CPU second), and prints the wall time of the
 * spinning phase on stdout ({@code # cpubudgets elapsed_ns=N}).
 */
public final class CpuBudgets {
    private static final String NAME = "CpuBudgets";
    private static final String USAGE = "--expected PATH [--budgets-ms 50,100,...] [--slice-ms N] [--ready-file PATH]"
            + " [--go-file PATH] [--hold-file PATH]";
    /** The carrier's CPU clock and tid; null on JDK 21 (FFM), where this workload cannot run. */
    private static final LibC LIBC = LibCs.get();

    /** Keeps the spin's result alive. */
    @SuppressWarnings("unused")
    private static volatile long sink;

    /** The running carrier's CPU time in ns (CLOCK_THREAD_CPUTIME_ID reads the OS thread's clock). */
    static long carrierCpuNanos(Object timespec) {
        return LIBC.clockNanos(Workloads.CLOCK_THREAD_CPUTIME_ID, timespec);
    }

    static int carrierTid() {
        return LIBC.gettid();
    }

    /**
     * The CPU burner the stack check looks for: pure arithmetic, compiled by the JIT. Run with
     * -XX:CompileCommand=dontinline,io.vtscope.workloads.CpuBudgets::spin so it keeps its own frame.
     */
    static long spin(long x, int rounds) {
        for (int i = 0; i < rounds; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    /**
     * Spins until the carrier's CPU clock advanced by sliceNanos; returns the measured delta and
     * adds the spin() calls made to spins[0].
     */
    static long slice(Object timespec, long sliceNanos, long[] spins) {
        long start = carrierCpuNanos(timespec);
        long now = start;
        long x = ThreadLocalRandom.current().nextLong() | 1;
        while (now - start < sliceNanos) {
            x = spin(x, 100000);
            spins[0]++;
            now = carrierCpuNanos(timespec);
        }
        sink = x;
        return now - start;
    }

    private static final class Spinner implements Runnable {
        final int k;
        final long budgetNanos;
        final long sliceNanos;
        final String traceId;
        final String spanId;
        volatile long threadId;
        volatile long cpuNanos;
        volatile int slices;
        volatile long spins;
        final Set<Integer> carriers = new TreeSet<>();

        Spinner(int k, long budgetNanos, long sliceNanos) {
            this.k = k;
            this.budgetNanos = budgetNanos;
            this.sliceNanos = sliceNanos;
            ThreadLocalRandom r = ThreadLocalRandom.current();
            this.traceId = String.format("%016x%016x", r.nextLong() | 1, r.nextLong());
            this.spanId = String.format("%016x", r.nextLong() | 1);
        }

        @Override
        public void run() {
            threadId = Thread.currentThread().threadId();
            VtScope.publish(traceId, spanId, 1);
            long total = 0;
            int n = 0;
            long[] calls = new long[1];
            Object timespec = LIBC.newTimespec();
            while (total < budgetNanos) {
                // The carrier is read inside the slice: no unmount happens until the yield.
                synchronized (carriers) {
                    carriers.add(carrierTid());
                }
                // Slice lengths vary (0.5 to 1.5 times --slice-ms): slices of one fixed length,
                // cycling through the carriers, would keep each thread at one phase of the
                // sampler's fixed period, so its slices would always catch the same number of
                // samples (up to one more or less per slice than their share: +-20% at 5 ms).
                long length = sliceNanos / 2 + ThreadLocalRandom.current().nextLong(sliceNanos + 1);
                total += slice(timespec, Math.min(length, budgetNanos - total), calls);
                n++;
                Thread.yield();
            }
            cpuNanos = total;
            slices = n;
            spins = calls[0];
            VtScope.clear();
        }
    }

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(NAME, USAGE, args, Map.of("expected", "", "budgets-ms",
                "50,100,150,200,250,300,350,400", "slice-ms", "5", "ready-file", "", "go-file", "", "hold-file", ""),
                Set.of());
        String expected = o.required("expected");
        long sliceNanos = o.getInt("slice-ms", 1, 1000) * 1_000_000L;
        List<Spinner> spinners = new ArrayList<>();
        for (String b : o.get("budgets-ms").split(",")) {
            int ms;
            try {
                ms = Integer.parseInt(b.trim());
            } catch (NumberFormatException e) {
                o.fail("--budgets-ms must be a comma-separated list of milliseconds");
                return;
            }
            spinners.add(new Spinner(spinners.size(), ms * 1_000_000L, sliceNanos));
        }
        if (LIBC == null) {
            // Its ground truth is the carriers' CPU clocks (ThreadMXBean gives -1 on a virtual
            // thread): nothing to run without them.
            System.err.println(NAME + ": the carrier's CPU clock " + LibCs.unavailableReason());
            System.exit(2);
        }
        Workloads.checkVtScope(NAME);

        // Warm-up on a platform thread: spin and slice are JIT-compiled before the measured part.
        Thread warm = Thread.ofPlatform().name("warm-up").start(() -> {
            Object timespec = LIBC.newTimespec();
            long[] calls = new long[1];
            for (int i = 0; i < 100; i++) {
                slice(timespec, 2_000_000L, calls);
            }
        });
        warm.join();
        // Then the measured path itself, on virtual threads: publish, short slices, yields, clear.
        // Without it, the first few hundred yields of the measured part run the continuation's
        // freeze/thaw and mount code in the interpreter, and the shortest trace's samples land
        // outside spin() often enough (about 7% of the 50 ms trace's, against 2-4% for the others)
        // to miss the stack check now and then.
        List<Thread> warmers = new ArrayList<>();
        for (int k = 0; k < 8; k++) {
            warmers.add(Thread.ofVirtual().name("warm-up-" + k).start(new Spinner(k, 50_000_000L, 200_000L)));
        }
        for (Thread t : warmers) {
            t.join();
        }
        // The control: a virtual thread under its own trace that stays parked, never mounted again
        // once it parked. It is never unparked: mounted again to clear its context, it would run
        // under its trace while the profiler (held by --hold-file) still samples, and a sample then
        // names it correctly. Virtual threads are daemons, so the JVM exits with it parked.
        String idleTrace = String.format("%016x%016x", ThreadLocalRandom.current().nextLong() | 1, 7L);
        String idleSpan = String.format("%016x", ThreadLocalRandom.current().nextLong() | 1);
        long[] idleId = new long[1];
        Thread idle = Thread.ofVirtual().name("idle").unstarted(() -> {
            idleId[0] = Thread.currentThread().threadId();
            VtScope.publish(idleTrace, idleSpan, 1);
            while (true) {
                LockSupport.park();  // spurious returns park again
            }
        });
        idle.start();
        // WAITING only once unmounted: VirtualThread.threadState() maps PARKING (still mounted) to
        // RUNNABLE and PARKED, set in afterYield() after the unmount, to WAITING.
        while (idle.getState() != Thread.State.WAITING) {
            if (!idle.isAlive()) {
                throw new IllegalStateException("the control thread ended before it parked");
            }
            Thread.onSpinWait();
        }

        Workloads.signalReady(o.get("ready-file"));
        Workloads.awaitGo(NAME, o.get("go-file"));
        long started = System.nanoTime();
        List<Thread> threads = new ArrayList<>();
        for (Spinner s : spinners) {
            threads.add(Thread.ofVirtual().name("spinner-" + s.k).start(s));
        }
        for (Thread t : threads) {
            t.join();
        }
        long elapsed = System.nanoTime() - started;

        StringBuilder out = new StringBuilder();
        for (Spinner s : spinners) {
            out.append(String.format("{\"trace_id\":\"%s\",\"span_id\":\"%s\",\"vthread\":%d,\"budget_ms\":%d,"
                    + "\"cpu_ns\":%d,\"slices\":%d,\"spins\":%d,\"carriers\":%s}%n", s.traceId, s.spanId,
                    s.threadId, s.budgetNanos / 1_000_000, s.cpuNanos, s.slices, s.spins, s.carriers));
        }
        out.append(String.format("{\"trace_id\":\"%s\",\"span_id\":\"%s\",\"vthread\":%d,\"budget_ms\":0,"
                + "\"cpu_ns\":0,\"slices\":0,\"spins\":0,\"carriers\":[],\"idle\":true}%n", idleTrace, idleSpan, idleId[0]));
        Path path = Path.of(expected);
        Path tmp = path.resolveSibling(path.getFileName() + ".tmp");
        Files.writeString(tmp, out);
        Files.move(tmp, path, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        System.out.println("# cpubudgets elapsed_ns=" + elapsed);
        System.out.flush();
        String hold = o.get("hold-file");
        if (hold != null) {
            long deadline = System.nanoTime() + 120_000_000_000L;
            while (!Files.exists(Path.of(hold)) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
        }
    }

    private CpuBudgets() {}
}
