// SPDX-License-Identifier: Apache-2.0
package io.vtscope.bench;

import java.util.concurrent.SynchronousQueue;

/**
 * One long-lived virtual thread that runs tasks handed to it through a {@link SynchronousQueue}
 * and answers through another. A benchmark operation is one round trip: the JMH (platform) thread
 * blocks while the virtual thread, mounted on a carrier of the default scheduler, runs the task.
 * The virtual thread keeps its identity (thread id, thread locals, vtscope record, current
 * OpenTelemetry context) from one task to the next. Each round trip costs two hand-offs (the
 * virtual thread parks in {@code take} and is unparked by {@code put}), the same in every
 * configuration.
 */
final class VirtualWorker implements AutoCloseable {
    private static final Object DONE = new Object();
    private static final Runnable STOP = () -> {};

    private final SynchronousQueue<Runnable> requests = new SynchronousQueue<>();
    private final SynchronousQueue<Object> replies = new SynchronousQueue<>();
    private final Thread thread;

    VirtualWorker(String name) {
        thread = Thread.ofVirtual().name(name).start(this::loop);
    }

    private void loop() {
        try {
            for (;;) {
                Runnable task = requests.take();
                if (task == STOP) {
                    return;
                }
                Object reply = DONE;
                try {
                    task.run();
                } catch (Throwable t) {
                    reply = t;
                }
                replies.put(reply);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Runs {@code task} on the virtual thread and waits for it; rethrows its failure. */
    void run(Runnable task) throws InterruptedException {
        requests.put(task);
        Object reply = replies.take();
        if (reply != DONE) {
            throw new IllegalStateException("task failed in " + thread, (Throwable) reply);
        }
    }

    @Override
    public void close() throws InterruptedException {
        requests.put(STOP);
        thread.join();
    }
}
