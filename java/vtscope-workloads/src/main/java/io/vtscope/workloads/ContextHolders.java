// SPDX-License-Identifier: Apache-2.0
package io.vtscope.workloads;

import io.vtscope.VtScope;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Threads that hold a context for their whole life, for attaching to a JVM that is already busy:
 * N virtual threads (and P platform threads), thread k publishes trace id 0x5000+k / span id
 * 0x6000+k and then writes k+2 bytes to /dev/null in a loop, yielding every 2 writes (so virtual
 * threads move between carriers) and sleeping 1 ms every 4 (at most a few hundred thousand events a
 * second, so a sanitized test can check every one). Ground truth, one JSON line per thread in --expected:
 * {@code {"k":K,"thread_id":ID,"virtual":true,"trace_id":"...","span_id":"...","count":K+2}}.
 * A write of k+2 bytes is thread k's, so every such event of a trace has one right answer.
 *
 * <p>Usage: {@code ContextHolders --expected FILE --ready-file FILE [--threads N]
 * [--platform-threads P] [--seconds S]}
 */
public final class ContextHolders {
    private static final String NAME = "ContextHolders";

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(NAME, "--expected FILE --ready-file FILE [--threads N] [--platform-threads P]"
                + " [--seconds S]", args,
                java.util.Map.of("expected", "", "ready-file", "", "threads", "64", "platform-threads", "2",
                        "seconds", "60"),
                java.util.Set.of());
        int threads = o.getInt("threads", 1, 10000);
        int platform = o.getInt("platform-threads", 0, 64);
        long deadline = System.nanoTime() + o.getInt("seconds", 1, 3600) * 1_000_000_000L;
        List<String> truth = new ArrayList<>();
        List<Thread> started = new ArrayList<>();
        Object lock = new Object();
        for (int k = 0; k < threads + platform; k++) {
            int id = k;
            Thread t = (k < threads ? Thread.ofVirtual() : Thread.ofPlatform()).unstarted(() -> {
                String trace = String.format("%032x", 0x5000 + id);
                String span = String.format("%016x", 0x6000 + id);
                if (!VtScope.publish(trace, span, 1)) {
                    throw new IllegalStateException("VtScope.publish failed: " + VtScope.unavailableReason());
                }
                synchronized (lock) {
                    truth.add("{\"k\":" + id + ",\"thread_id\":" + Thread.currentThread().threadId()
                            + ",\"virtual\":" + Thread.currentThread().isVirtual() + ",\"trace_id\":\"" + trace
                            + "\",\"span_id\":\"" + span + "\",\"count\":" + (id + 2) + "}");
                }
                byte[] bytes = new byte[id + 2];
                try (FileOutputStream out = new FileOutputStream("/dev/null")) {
                    for (long n = 0; System.nanoTime() < deadline; n++) {
                        out.write(bytes);
                        if (n % 2 == 0) {
                            Thread.yield();
                        }
                        if (n % 4 == 0) {
                            Thread.sleep(1);
                        }
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            t.setDaemon(true);
            t.start();
            started.add(t);
        }
        while (true) {
            synchronized (lock) {
                if (truth.size() == started.size()) {
                    break;
                }
            }
            Thread.sleep(5);
        }
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(Path.of(o.required("expected"))))) {
            synchronized (lock) {
                truth.forEach(w::println);
            }
        }
        Workloads.signalReady(o.get("ready-file"));
        for (Thread t : started) {
            t.join();
        }
    }

    private ContextHolders() {}
}
