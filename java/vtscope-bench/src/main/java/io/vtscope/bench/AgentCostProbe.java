// SPDX-License-Identifier: Apache-2.0
package io.vtscope.bench;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * The per-pair cost of {@link AgentContextPublication}, measured in the calling thread's CPU time
 * instead of wall time: on this VM, JMH's wall-clock scores under the agent spread by tens of ns
 * from one JVM to the next even on a quiet machine, while the thread's own CPU time excludes the
 * time other processes (and the hypervisor) held the core. One JVM under one configuration (set by
 * its JVM options, as for AgentContextPublication); bench/agent-extension-jmh.sh runs both side by
 * side. Prints one line: the median and minimum of ROUNDS rounds of PAIRS make-current/close pairs
 * each, after a warm-up of the same size, on a platform thread or (THREAD {@code virtual}) on one
 * virtual thread.
 *
 * <p>On a virtual thread {@code ThreadMXBean} gives -1, so the round's CPU time is its carrier's
 * ({@code clock_gettime(CLOCK_THREAD_CPUTIME_ID)} through FFM, which runs on the carrier; JDK 22+): a round
 * never blocks, so the virtual thread stays mounted on one carrier throughout (JDK 25 unmounts only
 * at a blocking operation or a yield). The carrier's kernel tid is read before and after, and a
 * round that ran on two carriers would stop the probe rather than be counted.
 *   java [agent options] --enable-native-access=ALL-UNNAMED -cp vtscope-bench.jar
 *       io.vtscope.bench.AgentCostProbe LABEL [ROUNDS] [PAIRS] [platform|virtual]
 */
public final class AgentCostProbe {
    private static volatile Object sink;

    public static void main(String[] args) throws Exception {
        String label = args.length > 0 ? args[0] : "?";
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
        int pairs = args.length > 2 ? Integer.parseInt(args[2]) : 2_000_000;
        String thread = args.length > 3 ? args[3] : "platform";
        if (!thread.equals("platform") && !thread.equals("virtual")) {
            throw new IllegalArgumentException("THREAD is platform or virtual, not " + thread);
        }
        Span span = GlobalOpenTelemetry.getTracer("io.vtscope.bench").spanBuilder("probe").setNoParent().startSpan();
        if (!span.getSpanContext().isValid()) {
            throw new IllegalStateException("invalid span: run under the OpenTelemetry Java agent");
        }
        boolean extension = "agent-extension".equals(System.getProperty("vtscope.otel.publisher"));
        double[] ns = new double[rounds];
        List<Throwable> failure = new ArrayList<>();
        Runnable probe = () -> {
            try {
                if (extension) {
                    Setups.checkPublishes(span);
                }
                ThreadCpuClock clock = thread.equals("virtual") ? new CarrierCpuClock() : new PlatformCpuClock();
                for (int w = 0; w < 5; w++) {
                    run(span, pairs); // warm-up: the JIT compiles the whole path
                }
                for (int r = 0; r < rounds; r++) {
                    long t0 = clock.start();
                    run(span, pairs);
                    ns[r] = clock.stop(t0) / (double) pairs;
                }
            } catch (Throwable t) {
                failure.add(t);
            }
        };
        Thread runner = thread.equals("virtual") ? Thread.ofVirtual().start(probe) : Thread.ofPlatform().start(probe);
        runner.join();
        if (!failure.isEmpty()) {
            throw new IllegalStateException("AgentCostProbe failed", failure.get(0));
        }
        double[] sorted = ns.clone();
        Arrays.sort(sorted);
        System.out.printf("AgentCostProbe %s extension=%b thread=%s: median %.1f ns, min %.1f ns per pair (CPU time, %d rounds of %d)%n",
                label, extension, thread, sorted[rounds / 2], sorted[0], rounds, pairs);
    }

    private static void run(Span span, int pairs) {
        for (int i = 0; i < pairs; i++) {
            Scope scope = span.makeCurrent();
            sink = scope;
            scope.close();
        }
    }

    /** The running thread's CPU time over a round, in ns. */
    private interface ThreadCpuClock {
        long start() throws Throwable;

        long stop(long start) throws Throwable;
    }

    private static final class PlatformCpuClock implements ThreadCpuClock {
        private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

        @Override
        public long start() {
            return threads.getCurrentThreadCpuTime();
        }

        @Override
        public long stop(long start) {
            return threads.getCurrentThreadCpuTime() - start;
        }
    }

    private static final class CarrierCpuClock implements ThreadCpuClock {
        private final LongSupplier clock = Downcalls.threadCpuClock();
        private final IntSupplier gettid = Downcalls.gettid();
        private int startTid;

        @Override
        public long start() {
            startTid = gettid.getAsInt();
            return clock.getAsLong();
        }

        @Override
        public long stop(long start) {
            long end = clock.getAsLong();
            if (gettid.getAsInt() != startTid) {
                throw new IllegalStateException("the virtual thread changed carriers within a round");
            }
            return end - start;
        }
    }

    private AgentCostProbe() {}
}
