// SPDX-License-Identifier: Apache-2.0
package io.vtscope.bench;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
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
 * Cost of vtscope's OpenTelemetry Java agent extension: one operation is {@code span.makeCurrent()}
 * then {@code scope.close()} of a span from {@link GlobalOpenTelemetry} under the agent, i.e. the
 * application's API call through the agent's bridge down to the agent's own (shaded) storage, the
 * path the agent's instrumentation takes too, minus the bridge. {@code agent+extension − agent} is
 * the extension's whole per-change cost.
 *
 * <p>JMH cannot give each {@code @Param} value its own JVM options, so the fork's agent options
 * come from the command line ({@code -jvmArgsAppend}, which replaces the annotation's) and
 * {@code config} only declares them: {@code agent} is {@code -javaagent:opentelemetry-javaagent.jar};
 * {@code agent+extension} adds {@code -Dotel.javaagent.extensions=vtscope-otel-agent-extension.jar}.
 * The setup checks that the fork is what {@code config} says (the agent's bootstrap class, the
 * extension's publisher property, the record region, and for the extension that the thread's
 * record holds the span while it is current), so a mismatched invocation fails instead of
 * reporting a number. bench/agent-extension-jmh.sh runs both side by side.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(org.openjdk.jmh.annotations.Scope.Thread)
public class AgentContextPublication {
    @Param({"agent", "agent+extension"})
    public String config;

    private Span span;
    private VirtualWorker worker;
    private Runnable pairs;

    @Setup(Level.Trial)
    public void setup(BenchmarkParams params) throws InterruptedException {
        boolean extension = switch (config) {
            case "agent" -> false;
            case "agent+extension" -> true;
            default -> throw new IllegalArgumentException("config " + config);
        };
        try {
            Class.forName("io.opentelemetry.javaagent.bootstrap.AgentInitializer", false, null);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("config " + config + " needs -jvmArgsAppend -javaagent:opentelemetry-javaagent.jar");
        }
        boolean published = "agent-extension".equals(System.getProperty("vtscope.otel.publisher"));
        if (published != extension) {
            throw new IllegalStateException("config " + config + " but the agent extension is "
                    + (published ? "" : "not ") + "installed (-Dotel.javaagent.extensions)");
        }
        span = GlobalOpenTelemetry.getTracer("io.vtscope.bench").spanBuilder("bench").setNoParent().startSpan();
        if (!span.getSpanContext().isValid()) {
            throw new IllegalStateException("the agent's SDK returned an invalid span (-Dotel.traces.sampler?)");
        }
        Span s = span;
        pairs = () -> {
            for (int i = 0; i < ContextPublication.PAIRS_PER_TASK; i++) {
                Scope scope = s.makeCurrent();
                scope.close();
            }
        };
        if (extension) {
            Setups.checkPublishes(span);
        } else {
            Setups.requireNoRegion(config);
        }
        if (params.getBenchmark().endsWith(".virtualThread")) {
            worker = new VirtualWorker("agent-context-publication");
            if (extension) {
                worker.run(() -> Setups.checkPublishes(s));
            }
        }
        System.out.println("# vtscope-bench fork: config=" + config + " regionMapped=" + Setups.regionMapped()
                + " current=" + Context.current().getClass().getName() + " java=" + Runtime.version());
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        if (worker != null) {
            worker.close();
        }
        if (config.equals("agent")) {
            Setups.requireNoRegion(config);
        }
    }

    /** One make-current/close pair on the JMH platform thread. */
    @Benchmark
    public void platformThread() {
        Scope scope = span.makeCurrent();
        scope.close();
    }

    /** 1,000 pairs inside a long-lived virtual thread per invocation (see {@link ContextPublication#virtualThread}). */
    @Benchmark
    @OperationsPerInvocation(ContextPublication.PAIRS_PER_TASK)
    public void virtualThread() throws InterruptedException {
        worker.run(pairs);
    }
}
