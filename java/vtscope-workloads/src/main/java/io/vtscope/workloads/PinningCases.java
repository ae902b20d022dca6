// SPDX-License-Identifier: Apache-2.0
package io.vtscope.workloads;

import io.vtscope.VtScope;
import java.io.BufferedWriter;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * The pinning matrix of {@code vtscope block}: each case runs in its own virtual thread under its
 * own trace id (a fresh one per repetition, published through {@link VtScope}), one case at a time,
 * and its ground truth goes to --expected as one JSON line: the case, the virtual thread, the trace
 * and span, whether it must block its carrier, the carrier's kernel tid at the operation's start
 * (gettid through FFM from inside the virtual thread, 0 on JDK 21), the operation's window in
 * {@code System.nanoTime()} (CLOCK_MONOTONIC on Linux, the clock of vtscope's ts_ns), the part of it
 * that blocks where that is measured apart ({@code <clinit>}), and the syscall the carrier sleeps in.
 *
 * <p>Blocking (the carrier stays off-CPU with the virtual thread mounted): an FFM downcall to
 * usleep; a blocking read of a pipe that a platform thread fills later; an FFM upcall whose Java
 * callback sleeps (pinned: a native frame on the stack); a {@code <clinit>} that sleeps; a thread
 * waiting for another thread's class initialisation (and that initialiser). Not blocking on JDK 24+
 * (the virtual thread unmounts): synchronized + sleep, park inside synchronized, contended monitor
 * enter, Object.wait; before JDK 24 they pin, and block, too. On JDK 21 (FFM a preview there) the
 * downcall, pipe and upcall cases are left out, said once. Run with
 * {@code -Djdk.virtualThreadScheduler.parallelism=2 --enable-native-access=ALL-UNNAMED}.
 */
public final class PinningCases {
    private static final String NAME = "PinningCases";
    private static final String USAGE = "--expected PATH [--repetitions N] [--sleep-ms MS] [--gap-ms MS]"
            + " [--stress N]"
            + " [--ready-file PATH] [--go-file PATH]";

    /** libc through FFM; null on JDK 21, where the cases that need it are left out (said once). */
    private static final LibC LIBC = LibCs.get();
    /**
     * Before JDK 24 (JEP 491) a virtual thread that blocks inside {@code synchronized}, or in
     * Object.wait, pins its carrier: there the monitor cases block it too, in futex.
     */
    private static final boolean MONITORS_PIN = Runtime.version().feature() < 24;

    // Public: SlowInit, defined by a FreshLoader, is in another runtime package.
    public static volatile int sleepMs = 60;
    /** Counted down by SlowInit's {@code <clinit>} once it runs (the class-init wait case). */
    public static volatile CountDownLatch initStarted = new CountDownLatch(0);
    /** Set at the end of SlowInit's {@code <clinit>}: the class-init wait case checks it did wait. */
    public static volatile boolean initDone;
    /**
     * The sleep inside SlowInit's {@code <clinit>}, timed there. Class.forName around it also loads,
     * links and verifies the class: CPU work, not blocking, that took 7.6 ms of a cold first
     * repetition under ZGC.
     */
    public static volatile long clinitSleepStart;
    public static volatile long clinitSleepEnd;

    /** One case's ground truth. */
    private record Result(String kase, int rep, boolean blocking, long vthread, String traceId, String spanId,
            long t0, long t1, long blockedT0, long blockedT1, String syscall, int carrierTid) {}

    /** What a case's body measures of its operation, in System.nanoTime(). */
    private static final class Window {
        /** The whole operation: a blocking case's interval lies in it. */
        long t0;
        long t1;
        /** The part that blocks, where measured apart from the operation (0 when it is the whole). */
        long blockedT0;
        long blockedT1;
        /** The operation turned out not to block (see clinit-wait). */
        boolean didNotBlock;
        /**
         * The carrier's kernel tid just before the operation (0 when not taken): gettid run by the
         * virtual thread is its carrier's, and nothing between it and the operation unmounts it.
         */
        int carrierTid;
    }

    private interface Body {
        void run() throws Throwable;
    }

    private PinningCases() {}

    public static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The downcall cases' operation: an FFM downcall to usleep, during which the carrier sleeps in
     * clock_nanosleep with the virtual thread mounted. Its own method, JIT-compiled in the warm-up,
     * so that a stack taken in it (vtscope block --stacks) names it through the JVM's perf map.
     */
    private static void downcallUsleep(int micros) throws Throwable {
        LIBC.usleep(micros);
    }

    /** A class whose initialiser sleeps; loaded afresh (a new loader) for every repetition. */
    public static final class SlowInit {
        static {
            initStarted.countDown();
            clinitSleepStart = System.nanoTime();
            sleepQuietly(sleepMs);
            clinitSleepEnd = System.nanoTime();
            initDone = true;
        }

        private SlowInit() {}
    }

    /** Defines SlowInit itself (not through its parent), so each loader initialises it once more. */
    private static final class FreshLoader extends ClassLoader {
        private static final String SLOW = SlowInit.class.getName();
        private static final byte[] BYTES;

        static {
            try (InputStream in = PinningCases.class.getResourceAsStream("PinningCases$SlowInit.class")) {
                BYTES = in.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        FreshLoader() {
            super(PinningCases.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.equals(SLOW)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                return c != null ? c : defineClass(name, BYTES, 0, BYTES.length);
            }
        }
    }

    private static String hex(int bytes) {
        StringBuilder sb = new StringBuilder();
        ThreadLocalRandom r = ThreadLocalRandom.current();
        for (int i = 0; i < bytes; i++) {
            sb.append(String.format("%02x", r.nextInt(1, 256)));
        }
        return sb.toString();
    }

    /**
     * Runs body in a new virtual thread under a fresh trace; the window is what body spends in its
     * operation, measured inside it (before and after the call).
     */
    private static Thread start(String kase, int rep, boolean blocking, String syscall, List<Result> out,
            Window window, Body body) {
        String traceId = hex(16);
        String spanId = hex(8);
        return Thread.ofVirtual().name(kase + "-" + rep).start(() -> {
            long id = Thread.currentThread().threadId();
            VtScope.publish(traceId, spanId, 1);
            try {
                body.run();
            } catch (Throwable e) {
                throw new IllegalStateException(kase + " failed", e);
            } finally {
                VtScope.clear();
            }
            synchronized (out) {
                boolean blocked = blocking && !window.didNotBlock;
                boolean apart = window.blockedT0 != 0;
                out.add(new Result(kase, rep, blocked, id, traceId, spanId, window.t0, window.t1,
                        apart ? window.blockedT0 : window.t0, apart ? window.blockedT1 : window.t1, syscall,
                        window.carrierTid));
            }
        });
    }

    private static Thread timed(String kase, int rep, boolean blocking, String syscall, List<Result> out, Body op) {
        Window window = new Window();
        return start(kase, rep, blocking, syscall, out, window, () -> {
            window.carrierTid = LIBC != null ? LIBC.gettid() : 0;
            window.t0 = System.nanoTime();
            op.run();
            window.t1 = System.nanoTime();
        });
    }

    /**
     * A case whose operation initialises SlowInit through loader: the part that blocks is the sleep
     * in {@code <clinit>}, as the thread that ran the initialiser timed it.
     */
    private static Thread initialising(String kase, int rep, List<Result> out, ClassLoader loader) {
        Window window = new Window();
        return start(kase, rep, true, "futex", out, window, () -> {
            window.carrierTid = LIBC != null ? LIBC.gettid() : 0;
            window.t0 = System.nanoTime();
            Class.forName(SlowInit.class.getName(), true, loader);
            window.t1 = System.nanoTime();
            window.blockedT0 = clinitSleepStart;
            window.blockedT1 = clinitSleepEnd;
        });
    }

    /** One repetition of every case, one case at a time, gapMs apart. */
    private static void repetition(int rep, int gapMs, List<Result> out) throws Throwable {
        int ms = sleepMs;
        Runnable gap = () -> sleepQuietly(gapMs);
        if (LIBC != null) {
            libcCases(rep, ms, gap, out);
        }
        monitorCases(rep, ms, gap, out);
    }

    /** The cases that need libc through FFM: a downcall, an OS pipe, an upcall. */
    private static void libcCases(int rep, int ms, Runnable gap, List<Result> out) throws Throwable {
        // FFM downcall to usleep: the carrier sleeps in clock_nanosleep with the thread mounted.
        timed("downcall-usleep", rep, true, "clock_nanosleep", out, () -> downcallUsleep(ms * 1000)).join();
        gap.run();

        // Blocking read of a pipe that a platform thread fills after ms.
        int[] fds = LIBC.pipe();
        try (FileInputStream in = new FileInputStream("/proc/self/fd/" + fds[0]);
                FileOutputStream pipeOut = new FileOutputStream("/proc/self/fd/" + fds[1])) {
            CountDownLatch reading = new CountDownLatch(1);
            Thread reader = timed("pipe-read", rep, true, "read", out, () -> {
                reading.countDown();
                if (in.read() != 'x') {
                    throw new IOException("unexpected pipe content");
                }
            });
            Thread filler = Thread.ofPlatform().start(() -> {
                try {
                    reading.await();
                    Thread.sleep(ms);
                    pipeOut.write('x');
                } catch (InterruptedException | IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            reader.join();
            filler.join();
        }
        LIBC.close(fds[0]);
        LIBC.close(fds[1]);
        gap.run();

        // FFM upcall whose Java callback sleeps: pinned (a native frame on the stack).
        timed("upcall-sleep", rep, true, "futex", out, () -> LIBC.qsortCallingOnce(() -> sleepQuietly(ms))).join();
        gap.run();
    }

    /** The class-initialisation and monitor cases: pure Java. */
    private static void monitorCases(int rep, int ms, Runnable gap, List<Result> out) throws Throwable {

        // A <clinit> that sleeps: pinned (a VM call to <clinit> on the stack).
        initialising("clinit-sleep", rep, out, new FreshLoader()).join();
        gap.run();

        // A thread waiting for another's class initialisation (pinned too), and that initialiser.
        FreshLoader shared = new FreshLoader();
        CountDownLatch started = new CountDownLatch(1);
        initStarted = started;
        initDone = false;
        Thread initialiser = initialising("clinit-initialiser", rep, out, shared);
        Window window = new Window();
        Thread waiter = start("clinit-wait", rep, true, "futex", out, window, () -> {
            started.await(); // unmounts: not pinned
            boolean doneBefore = initDone;
            window.carrierTid = LIBC != null ? LIBC.gettid() : 0;
            window.t0 = System.nanoTime();
            Class.forName(SlowInit.class.getName(), true, shared);
            window.t1 = System.nanoTime();
            // On a loaded machine the waiter may run only once the initialiser is (nearly) done: then
            // it did not wait, or too briefly to be reported (under 10 ms), and its truth says so.
            window.didNotBlock = doneBefore || window.t1 - window.t0 < 10_000_000L;
        });
        initialiser.join();
        waiter.join();
        initStarted = new CountDownLatch(0);
        gap.run();

        // The cases that must produce nothing on JDK 24+: the virtual thread unmounts.
        boolean pins = MONITORS_PIN;
        String pinSyscall = pins ? "futex" : null;
        Object lock = new Object();
        timed("synchronized-sleep", rep, pins, pinSyscall, out, () -> {
            synchronized (lock) {
                Thread.sleep(ms);
            }
        }).join();
        gap.run();
        timed("synchronized-park", rep, pins, pinSyscall, out, () -> {
            synchronized (lock) {
                LockSupport.parkNanos(ms * 1_000_000L);
            }
        }).join();
        gap.run();
        CountDownLatch held = new CountDownLatch(1);
        Thread holder = Thread.ofPlatform().start(() -> {
            synchronized (lock) {
                held.countDown();
                sleepQuietly(ms);
            }
        });
        held.await();
        timed("contended-enter", rep, pins, pinSyscall, out, () -> {
            synchronized (lock) {
                lock.hashCode();
            }
        }).join();
        holder.join();
        gap.run();
        timed("object-wait", rep, pins, pinSyscall, out, () -> {
            synchronized (lock) {
                lock.wait(ms);
            }
        }).join();
        gap.run();
    }

    /** The stress case: n virtual threads at once, each making one blocking downcall of ms under its own trace. */
    private static void stress(int n, int ms, List<Result> out) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            threads.add(timed("stress-usleep", i, true, "clock_nanosleep", out, () -> downcallUsleep(ms * 1000)));
        }
        for (Thread t : threads) {
            t.join();
        }
    }

    public static void main(String[] args) throws Throwable {
        Options o = Options.parse(NAME, USAGE, args, Map.ofEntries(Map.entry("repetitions", "10"),
                Map.entry("sleep-ms", "60"), Map.entry("gap-ms", "20"), Map.entry("stress", "0"), Map.entry("expected", ""),
                Map.entry("ready-file", ""), Map.entry("go-file", "")), Set.of());
        int repetitions = o.getInt("repetitions", 1, 100_000);
        int sleep = o.getInt("sleep-ms", 1, 60_000);
        int gapMs = o.getInt("gap-ms", 0, 60_000);
        int stressThreads = o.getInt("stress", 0, 1_000_000);
        String expected = o.required("expected");
        if (LIBC == null) {
            if (stressThreads > 0) {
                System.err.println(NAME + ": --stress (downcalls to usleep) " + LibCs.unavailableReason());
                System.exit(2);
            }
            System.err.println(NAME + ": without the downcall-usleep, pipe-read and upcall-sleep cases (libc "
                    + LibCs.unavailableReason() + ")");
        }
        Workloads.checkVtScope(NAME);

        // Warm-up (not recorded): links the downcalls and upcall, loads the classes, starts the carriers.
        sleepMs = Math.min(sleep, 5);
        repetition(-1, 0, new ArrayList<>());
        sleepMs = sleep;
        // Past the JIT's tier-3 and tier-4 invocation thresholds (200 and 5,000 by default): the
        // downcall's method is compiled before the cases run. usleep(0) returns at once.
        for (int i = 0; LIBC != null && i < 20_000; i++) {
            downcallUsleep(0);
        }

        Workloads.signalReady(o.get("ready-file"));
        Workloads.awaitGo(NAME, o.get("go-file"));
        List<Result> results = new ArrayList<>();
        long t0 = System.nanoTime();
        if (stressThreads > 0) {
            stress(stressThreads, sleepMs, results); // --sleep-ms applies
        } else {
            for (int rep = 0; rep < repetitions; rep++) {
                repetition(rep, gapMs, results);
            }
        }
        long elapsedMs = (System.nanoTime() - t0) / 1_000_000;
        try (BufferedWriter w = Files.newBufferedWriter(Path.of(expected))) {
            for (Result r : results) {
                w.write("{\"case\":\"" + r.kase + "\",\"rep\":" + r.rep + ",\"blocking\":" + r.blocking
                        + ",\"vthread\":" + r.vthread + ",\"trace_id\":\"" + r.traceId + "\",\"span_id\":\""
                        + r.spanId + "\",\"t0_ns\":" + r.t0 + ",\"t1_ns\":" + r.t1 + ",\"blocked_t0_ns\":" + r.blockedT0
                        + ",\"blocked_t1_ns\":" + r.blockedT1 + ",\"syscall\":"
                        + (r.syscall == null ? "null" : "\"" + r.syscall + "\"") + ",\"carrier_tid\":" + r.carrierTid
                        + "}\n");
            }
        }
        System.err.printf("%s: %d cases x %d repetitions in %d ms%n", NAME, results.size() / Math.max(1, repetitions),
                repetitions, elapsedMs);
    }
}
