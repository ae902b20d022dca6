// SPDX-License-Identifier: Apache-2.0
package io.vtscope.bench;

import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;

/**
 * Two long-lived virtual threads that hand control to each other with
 * {@link LockSupport#park()}/{@link LockSupport#unpark(Thread)}: {@link #run()} makes
 * {@value #ROUND_TRIPS} round trips (the first thread unparks the second and parks until the
 * second unparks it back; the second then parks again). Each round trip is normally two parks,
 * so two unmounts and two mounts; when an unpark arrives before the matching park, the park
 * returns at once and the pair of transitions does not happen, so the exact count per operation
 * is measured (by the {@code vtt} configuration's registered variant) rather than assumed.
 *
 * <p>The first thread is a {@link VirtualWorker}, so an operation also includes one hand-off
 * round trip with the JMH thread, the same in every configuration.
 */
final class PingPong implements AutoCloseable {
    static final int ROUND_TRIPS = 10_000;

    private final VirtualWorker worker;
    private final Thread partner;
    private final IntConsumer exit;
    private volatile Thread first;
    private volatile int turn; // 0: the first thread runs, 1: the partner runs
    private volatile boolean stop;
    private final Runnable loop = this::firstLoop;

    /**
     * @param enter runs on each thread before any round trip, with 0 (first thread) or 1 (partner)
     * @param exit runs on each thread at {@link #close()}, with its role
     */
    PingPong(String name, IntConsumer enter, IntConsumer exit) throws InterruptedException {
        this.exit = exit;
        worker = new VirtualWorker(name + "-a");
        worker.run(() -> {
            first = Thread.currentThread();
            enter.accept(0);
        });
        partner = Thread.ofVirtual().name(name + "-b").start(() -> {
            enter.accept(1);
            partnerLoop();
            exit.accept(1);
        });
    }

    private void firstLoop() {
        Thread b = partner;
        for (int i = 0; i < ROUND_TRIPS; i++) {
            turn = 1;
            LockSupport.unpark(b);
            while (turn != 0) {
                LockSupport.park();
            }
        }
    }

    private void partnerLoop() {
        for (;;) {
            while (turn != 1) {
                if (stop) {
                    return;
                }
                LockSupport.park();
            }
            turn = 0;
            LockSupport.unpark(first);
        }
    }

    /** One operation: {@value #ROUND_TRIPS} round trips. */
    void run() throws InterruptedException {
        worker.run(loop);
    }

    /** Runs {@code task} on the first thread. */
    void onFirst(Runnable task) throws InterruptedException {
        worker.run(task);
    }

    @Override
    public void close() throws InterruptedException {
        stop = true;
        LockSupport.unpark(partner);
        partner.join();
        worker.run(() -> exit.accept(0));
        worker.close();
    }
}
