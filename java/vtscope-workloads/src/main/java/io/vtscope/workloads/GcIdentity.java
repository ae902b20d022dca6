// SPDX-License-Identifier: Apache-2.0
package io.vtscope.workloads;

import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * Thread identity under moving collectors, for any JDK from 21 (no java.lang.foreign, no
 * OpenTelemetry): virtual threads each write markers whose length encodes their own
 * {@code Thread.threadId()} ({@code BASE + id} bytes in one write(2) to --marker-file), parking
 * between markers so that they remount on either carrier, while a platform thread forces
 * collections (System.gc() and allocation; run it in a small heap) for as long as they write. The
 * --expected file gets one JSON line per virtual thread: its id and its marker count.
 */
public final class GcIdentity {
    private static final String USAGE = "--expected PATH [--threads N] [--markers M] [--park-us U]"
            + " [--marker-file PATH] [--ready-file PATH] [--go-file PATH]";
    /** Marker lengths are BASE + id: far above any other write of the JVM. */
    static final int BASE = 100_000;
    static final int MAX_ID = 100_000;

    /** Keeps the garbage from being optimized away. */
    @SuppressWarnings("unused")
    private static volatile Object sink;

    private GcIdentity() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> o = parse(args);
        int threads = Integer.parseInt(o.getOrDefault("threads", "64"));
        int markers = Integer.parseInt(o.getOrDefault("markers", "40"));
        long parkNanos = Long.parseLong(o.getOrDefault("park-us", "200")) * 1000;
        String expected = o.get("expected");
        if (expected == null || threads <= 0 || markers <= 0) {
            System.err.println("usage: GcIdentity " + USAGE);
            System.exit(2);
        }
        try (FileOutputStream out = new FileOutputStream(o.getOrDefault("marker-file", "/dev/null"))) {
            byte[] payload = new byte[BASE + MAX_ID];
            signalReady(o.get("ready-file"));
            awaitGo(o.get("go-file"));
            run(out, payload, threads, markers, parkNanos, Path.of(expected));
        }
    }

    private static void run(FileOutputStream out, byte[] payload, int threads, int markers, long parkNanos,
            Path expected)
            throws Exception {
        var done = new java.util.concurrent.atomic.AtomicBoolean();
        var collections = new java.util.concurrent.atomic.AtomicLong();
        Thread collector = Thread.ofPlatform().name("gc-forcer").daemon().start(() -> {
            while (!done.get()) {
                for (int i = 0; i < 64; i++) sink = new byte[16 * 1024];
                System.gc();
                collections.incrementAndGet();
            }
        });
        long start = System.nanoTime();
        List<Thread> senders = new ArrayList<>();
        long[] ids = new long[threads];
        for (int k = 0; k < threads; k++) {
            final int slot = k;
            senders.add(Thread.ofVirtual().name("sender-" + k).start(() -> {
                long id = Thread.currentThread().threadId();
                ids[slot] = id;
                if (id <= 0 || id >= MAX_ID) throw new IllegalStateException("thread id out of range: " + id);
                for (int m = 0; m < markers; m++) {
                    try {
                        out.write(payload, 0, BASE + (int) id);
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                    sink = new Object[256];  // garbage of this thread too, so its own allocation can trigger a pause
                    LockSupport.parkNanos(parkNanos);
                }
            }));
        }
        for (Thread t : senders) t.join();
        done.set(true);
        collector.join();
        StringBuilder lines = new StringBuilder();
        for (long id : ids) lines.append("{\"thread\":").append(id).append(",\"markers\":").append(markers).append("}\n");
        Files.writeString(expected, lines.toString(), StandardCharsets.UTF_8);
        long ms = (System.nanoTime() - start) / 1_000_000;
        System.err.println("GcIdentity: " + threads + " threads x " + markers + " markers in " + ms + " ms, "
                + collections.get() + " System.gc() calls");
    }

    private static Map<String, String> parse(String[] args) {
        Map<String, String> o = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) throw new IllegalArgumentException("usage: GcIdentity " + USAGE);
            o.put(args[i].substring(2), args[i + 1]);
        }
        return o;
    }

    /** The fixture's ready file: the pid, written atomically. */
    private static void signalReady(String readyFile) throws IOException {
        if (readyFile == null || readyFile.isEmpty()) return;
        Path target = Path.of(readyFile);
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        Files.writeString(tmp, ProcessHandle.current().pid() + "\n");
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private static void awaitGo(String goFile) throws InterruptedException {
        if (goFile == null || goFile.isEmpty()) return;
        while (!Files.exists(Path.of(goFile))) Thread.sleep(10);
    }
}
