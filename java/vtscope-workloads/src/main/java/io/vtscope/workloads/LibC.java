// SPDX-License-Identifier: Apache-2.0
package io.vtscope.workloads;

import java.io.IOException;

/**
 * The few libc calls some workloads make (the carrier's CPU clock and tid, a downcall that sleeps
 * with the virtual thread mounted, an OS pipe, an upcall under a native frame). They are FFM
 * downcalls, final in JDK 22 and a preview in 21: {@link LibCs#get()} is null on JDK 21, and the
 * workloads then run without the parts that need them, saying so once.
 */
interface LibC {
    /** A 16-byte timespec for {@link #clockNanos}, owned by the caller's thread. */
    Object newTimespec();

    /** clock_gettime(clock) in ns, into {@code timespec} (from {@link #newTimespec}). */
    long clockNanos(int clock, Object timespec);

    /** gettid(): the OS thread, a virtual thread's carrier. */
    int gettid();

    /** usleep(micros) through a downcall: the carrier sleeps with the calling thread mounted. */
    void usleep(int micros) throws IOException;

    /** pipe(): {read fd, write fd}. */
    int[] pipe() throws IOException;

    /** close(fd). */
    void close(int fd) throws IOException;

    /**
     * qsort of two ints whose comparator, an upcall, runs {@code inComparator} once: the calling
     * thread runs it under a native frame (qsort's).
     */
    void qsortCallingOnce(Runnable inComparator);
}
