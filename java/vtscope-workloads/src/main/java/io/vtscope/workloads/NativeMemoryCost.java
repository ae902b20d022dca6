// SPDX-License-Identifier: Apache-2.0
package io.vtscope.workloads;

import io.vtscope.VirtualThreadTime;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;

/**
 * Native memory per live virtual thread, as HotSpot's Native Memory Tracking reports it: the
 * committed total outside the Java heap with {@code --threads} parked virtual threads, minus the total after
 * they all ended (the same JVM, warmed up the same way, so the difference is what live threads
 * hold), divided by their number. The total before they started is printed too: "after" must
 * come back to it, or memory grew with the threads. Run it
 * with {@code -XX:NativeMemoryTracking=summary}, with and without libvtscope.so
 * ({@code -agentpath:...=vtt} or {@code --initialize}), to isolate the library's share.
 * {@code --register} also registers every thread for Virtual Thread Time.
 */
public final class NativeMemoryCost {
    private static final String NAME = "NativeMemoryCost";
    private static final Pattern TOTAL = Pattern.compile("Total: reserved=(\\d+)KB, committed=(\\d+)KB");
    private static final Pattern HEAP = Pattern.compile("Java Heap \\(reserved=(\\d+)KB, committed=(\\d+)KB");

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(NAME, "[--threads N] [--initialize] [--register]", args,
                Map.of("threads", "10000"), Set.of("initialize", "register"));
        int threads = o.getInt("threads", 1, 1_000_000);
        boolean register = o.flag("register");
        if (o.flag("initialize") || register) {
            VirtualThreadTime.initialize();
        }
        warmUp();
        long before = committedKb();
        CountDownLatch parked = new CountDownLatch(threads);
        CountDownLatch release = new CountDownLatch(1);
        List<Thread> started = new ArrayList<>(threads);
        for (int i = 0; i < threads; i++) {
            started.add(Thread.ofVirtual().start(() -> {
                try (VirtualThreadTime time = register ? VirtualThreadTime.register() : null) {
                    parked.countDown();
                    release.await(); // parks: the thread stays alive and unmounted
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        parked.await();
        Thread.sleep(200); // every thread has parked after counting down
        long live = committedKb();
        release.countDown();
        for (Thread t : started) {
            t.join();
        }
        started.clear();
        System.gc();
        Thread.sleep(200);
        long after = committedKb();
        System.out.printf("{\"threads\":%d,\"register\":%b,\"committed_kb_before\":%d,\"committed_kb_live\":%d,"
                + "\"committed_kb_after\":%d,\"bytes_per_live_thread\":%.1f}%n", threads, register, before, live, after,
                (live - after) * 1024.0 / threads);
    }

    /** Starts and ends a batch of threads first, so one-time allocations are not counted. */
    private static void warmUp() throws InterruptedException {
        List<Thread> ts = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            ts.add(Thread.ofVirtual().start(Thread::yield));
        }
        for (Thread t : ts) {
            t.join();
        }
        System.gc();
        Thread.sleep(200);
    }

    /** Committed native memory: NMT's total minus the Java heap (whose growth is not native cost). */
    private static long committedKb() throws Exception {
        String out = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                new Object[] {new String[] {"summary"}}, new String[] {String[].class.getName()});
        Matcher total = TOTAL.matcher(out);
        Matcher heap = HEAP.matcher(out);
        if (!total.find() || !heap.find()) {
            throw new IllegalStateException(NAME + ": no NMT summary; run with -XX:NativeMemoryTracking=summary");
        }
        return Long.parseLong(total.group(2)) - Long.parseLong(heap.group(2));
    }

    private NativeMemoryCost() {}
}
