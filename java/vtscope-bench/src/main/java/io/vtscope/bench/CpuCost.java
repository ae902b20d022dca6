// SPDX-License-Identifier: Apache-2.0
package io.vtscope.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import java.util.concurrent.locks.LockSupport;

/**
 * The matrix's Transition, Park/Unpark and Churn workloads measured in the process's CPU time
 * rather than in wall time: on a machine shared with other builds, a JVM waits for a CPU for
 * much of its wall time, which the JMH scores count and CPU time does not. Run with
 * {@code -Djdk.virtualThreadScheduler.parallelism=1}, so no idle carrier spins for work on the
 * other CPU. Prints, for one JVM, the median over the measured rounds of process CPU ns and wall
 * ns per unit (a mount or unmount for transition and parkunpark; a thread for churn).
 * {@code bench/otep-cpu-cost.sh} runs it per configuration, interleaved; so does
 * {@code vtscope-bench}'s profile part with {@code vtscope profile} attached to it: with
 * {@code --go-file PATH} it prints {@code # cpucost ready} after the warm-up rounds and waits for
 * that file before the measured ones, so a profiler attached in between sees only those.
 *
 * <p>With {@code --phases K} (and {@code --go-file PATH}) one JVM runs K phases of {@code rounds}
 * rounds each after the warm-up, for {@code vtscope-bench}'s alternating part (a consumer attached
 * in some phases, detached in the others, the same JVM throughout): before phase P it waits for
 * {@code PATH.P}, after it prints
 * {@code # cpucost phase=P cpu_ns_per_unit X wall_ns_per_unit Y cpu_ns Z}, the phase's CPU and wall
 * time over all its units and its total CPU (totals, not medians: a cost that lands in one round,
 * such as a perf map written for a profiler, must count).
 *
 * <p>Usage: {@code CpuCost transition|parkunpark|churn [rounds] [warm-up rounds] [--go-file PATH]
 * [--phases K]}
 */
public final class CpuCost {
    private CpuCost() {}

    // The process's CPU time in ns: the sum over its threads of /proc/self/task/*/schedstat's
    // first field (time on a CPU, ns; Documentation/scheduler/sched-stats.rst). Finer than
    // getProcessCpuTime, which moves in 10 ms steps here. No thread of this process exits
    // during a round (virtual threads are not OS threads), so nothing is lost from the sum.
    static long cpuNanos() throws IOException {
        long sum = 0;
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    String stat = Files.readString(task.resolve("schedstat"));
                    sum += Long.parseLong(stat.substring(0, stat.indexOf(' ')));
                } catch (IOException e) {
                    // the thread ended between the listing and the read: not one of the round's
                }
            }
        }
        return sum;
    }

    public static void main(String[] args) throws Exception {
        Path goFile = null;
        int phases = 0;
        List<String> positional = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--go-file") && i + 1 < args.length) {
                goFile = Path.of(args[++i]);
            } else if (args[i].equals("--phases") && i + 1 < args.length) {
                phases = Integer.parseInt(args[++i]);
            } else {
                positional.add(args[i]);
            }
        }
        if (positional.isEmpty() || positional.size() > 3 || phases < 0 || (phases > 0 && goFile == null)) {
            System.err.println("usage: CpuCost transition|parkunpark|churn [rounds] [warm-up rounds] [--go-file PATH]"
                    + " [--phases K] (--phases needs --go-file)");
            System.exit(2);
        }
        String workload = positional.get(0);
        int rounds = positional.size() > 1 ? Integer.parseInt(positional.get(1)) : 15;
        int warmup = positional.size() > 2 ? Integer.parseInt(positional.get(2)) : 10;
        Round round = switch (workload) {
            case "transition" -> CpuCost::transition;
            case "parkunpark" -> CpuCost::parkUnpark;
            case "churn" -> CpuCost::churn;
            default -> {
                System.err.println("CpuCost: unknown workload " + workload);
                System.exit(2);
                yield null;
            }
        };
        if (phases > 0) {
            runPhases(round, rounds, warmup, goFile, phases);
            return;
        }
        double[] cpu = new double[rounds];
        double[] wall = new double[rounds];
        for (int i = -warmup; i < rounds; i++) {
            if (i == 0 && goFile != null) {
                System.out.println("# cpucost ready");
                System.out.flush();
                awaitGo(goFile);
            }
            long c0 = cpuNanos(), w0 = System.nanoTime();
            long units = round.run();
            long c1 = cpuNanos(), w1 = System.nanoTime();
            if (i >= 0) {
                cpu[i] = (double) (c1 - c0) / units;
                wall[i] = (double) (w1 - w0) / units;
            }
        }
        System.out.printf("%s cpu_ns_per_unit %.2f wall_ns_per_unit %.2f%n", workload, median(cpu), median(wall));
    }

    // Waits for the go file; exits with status 3 after 120 s.
    private static void awaitGo(Path goFile) throws InterruptedException {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (!Files.exists(goFile)) {
            if (System.nanoTime() > deadline) {
                System.err.println("CpuCost: go file " + goFile + " did not appear within 120 s");
                System.exit(3);
            }
            Thread.sleep(10);
        }
    }

    // The warm-up rounds, then per phase: wait for GO.P, run the rounds, print the phase's totals.
    private static void runPhases(Round round, int rounds, int warmup, Path goFile, int phases) throws Exception {
        for (int i = 0; i < warmup; i++) round.run();
        System.out.println("# cpucost ready");
        System.out.flush();
        for (int p = 1; p <= phases; p++) {
            awaitGo(goFile.resolveSibling(goFile.getFileName() + "." + p));
            long cpu = 0, wall = 0, units = 0;
            for (int i = 0; i < rounds; i++) {
                long c0 = cpuNanos(), w0 = System.nanoTime();
                units += round.run();
                cpu += cpuNanos() - c0;
                wall += System.nanoTime() - w0;
            }
            // One write for the whole line: printf writes it in pieces, which a reader can catch half-way.
            String line = String.format(Locale.ROOT,
                    "# cpucost phase=%d cpu_ns_per_unit %.3f wall_ns_per_unit %.3f cpu_ns %d", p,
                    (double) cpu / units, (double) wall / units, cpu);
            System.out.println(line);
            System.out.flush();
        }
    }

    interface Round {
        long run() throws Exception;
    }

    static final int YIELDS = 200_000;

    // One virtual thread, YIELDS yields: 2 * YIELDS transitions.
    static long transition() throws InterruptedException {
        Thread t = Thread.ofVirtual().start(() -> {
            for (int i = 0; i < YIELDS; i++) Thread.yield();
        });
        t.join();
        return 2L * YIELDS;
    }

    static final int HANDOFFS = 100_000;
    static volatile int turn;

    // Two virtual threads hand a turn back and forth with park/unpark: each hand-off parks one
    // (unmount) and unparks the other (mount), about 2 transitions per hand-off.
    static long parkUnpark() throws InterruptedException {
        turn = 0;
        Thread[] threads = new Thread[2];
        for (int me = 0; me < 2; me++) {
            int self = me;
            threads[me] = Thread.ofVirtual().unstarted(() -> {
                for (int i = 0; i < HANDOFFS; i++) {
                    while (turn != self) LockSupport.park();
                    turn = 1 - self;
                    LockSupport.unpark(threads[1 - self]);
                }
            });
        }
        threads[0].start();
        threads[1].start();
        threads[0].join();
        threads[1].join();
        return 2L * 2 * HANDOFFS;
    }

    static final int CHURN = 100_000;

    // CHURN empty virtual threads started and joined.
    static long churn() throws InterruptedException {
        Thread[] threads = new Thread[CHURN];
        for (int i = 0; i < CHURN; i++) threads[i] = Thread.ofVirtual().start(() -> {});
        for (Thread t : threads) t.join();
        return CHURN;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
