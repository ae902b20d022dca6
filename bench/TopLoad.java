// SPDX-License-Identifier: Apache-2.0
// The load of bench/top-cost.sh, run by the JDK's source launcher (java bench/TopLoad.java, with
// vtscope-java.jar on the class path): N live virtual threads (default 10,000), each under its own
// trace context (VtScope.publish), each waking every 0.5-1.5 s to write 512 bytes to /dev/null and
// spin about 20 us, so about N wake-ups, writes and unmounts a second spread over the carriers.
// It writes READY_FILE once every thread has published its context and prints nothing else.

import io.vtscope.VtScope;
import java.io.FileOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;

public final class TopLoad {
    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        Path ready = Path.of(args.length > 1 ? args[1] : "topload.ready");
        FileOutputStream out = new FileOutputStream("/dev/null");
        CountDownLatch published = new CountDownLatch(threads);
        for (int i = 0; i < threads; i++) {
            final int id = i;
            Thread.ofVirtual().name("load-" + i).start(() -> run(id, out, published));
        }
        published.await();
        Files.writeString(ready, "ready\n");
        Thread.sleep(Long.MAX_VALUE);
    }

    private static void run(int id, FileOutputStream out, CountDownLatch published) {
        VtScope.publish(0x5eed_0000_0000_0000L | id, id + 1L, id + 1L, 1);
        published.countDown();
        SplittableRandom random = new SplittableRandom(id);
        byte[] buffer = new byte[512];
        long sink = 0;
        try {
            while (true) {
                Thread.sleep(500 + random.nextInt(1000));
                out.write(buffer);
                long until = System.nanoTime() + 20_000;
                while (System.nanoTime() < until) sink += random.nextInt();
                if (sink == 42) System.out.print("");
            }
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }
}
