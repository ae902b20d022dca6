package io.vtscope.bench;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

/**
 * The per-pair cost of {@link AgentContextPublication}, measured in the calling thread's CPU time
 * instead of wall time: on a machine shared with other builds, JMH's wall-clock scores under the
 * agent spread by hundreds of ns, while the thread's own CPU time excludes the time other
 * processes held the core. One JVM under one configuration (set by its JVM options, as for
 * AgentContextPublication); bench/agent-extension-jmh.sh runs both side by side. Prints one line:
 * the median and minimum of ROUNDS rounds of PAIRS make-current/close pairs each, on a platform
 * thread, after a warm-up of the same size.
 *   java [agent options] -cp vtscope-bench.jar io.vtscope.bench.AgentCostProbe LABEL [ROUNDS] [PAIRS]
 */
public final class AgentCostProbe {
    private static volatile Object sink;

    public static void main(String[] args) {
        String label = args.length > 0 ? args[0] : "?";
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
        int pairs = args.length > 2 ? Integer.parseInt(args[2]) : 2_000_000;
        Span span = GlobalOpenTelemetry.getTracer("io.vtscope.bench").spanBuilder("probe").setNoParent().startSpan();
        if (!span.getSpanContext().isValid()) {
            throw new IllegalStateException("invalid span: run under the OpenTelemetry Java agent");
        }
        boolean extension = "agent-extension".equals(System.getProperty("vtscope.otel.publisher"));
        if (extension) {
            Setups.checkPublishes(span);
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (int w = 0; w < 5; w++) {
            run(span, pairs); // warm-up: the JIT compiles the whole path
        }
        double[] ns = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            long t0 = threads.getCurrentThreadCpuTime();
            run(span, pairs);
            ns[r] = (threads.getCurrentThreadCpuTime() - t0) / (double) pairs;
        }
        double[] sorted = ns.clone();
        Arrays.sort(sorted);
        System.out.printf("AgentCostProbe %s extension=%b: median %.1f ns, min %.1f ns per pair (CPU time, %d rounds of %d)%n",
                label, extension, sorted[rounds / 2], sorted[0], rounds, pairs);
    }

    private static void run(Span span, int pairs) {
        for (int i = 0; i < pairs; i++) {
            Scope scope = span.makeCurrent();
            sink = scope;
            scope.close();
        }
    }

    private AgentCostProbe() {}
}
