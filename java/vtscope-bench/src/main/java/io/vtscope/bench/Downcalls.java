// SPDX-License-Identifier: Apache-2.0
package io.vtscope.bench;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * The native calls some benchmarks make: the JDK 21 version of this class, which has none. They
 * are FFM downcalls, final in JDK 22 and a preview in 21; the JDK 22+ version of this class
 * (META-INF/versions/22) makes them. On 21 each refuses with {@link #unavailableReason()}, and
 * the benchmarks that need them (HookCall's downcall, AgentCostProbe on a virtual thread,
 * SwitchStorm's ping-pong) fail at their set-up with that reason.
 */
final class Downcalls {
    static String unavailableReason() {
        return "needs JDK 22+ (FFM), this is JDK " + Runtime.version().feature();
    }

    /** vtscope_thread_context_attach of {@code library}, (long)int, without thread-state transition. */
    static MethodHandle contextAttachCritical(Path library) {
        throw refused();
    }

    /** clock_gettime(CLOCK_THREAD_CPUTIME_ID) of the calling OS thread (a virtual thread's carrier), in ns. */
    static LongSupplier threadCpuClock() {
        throw refused();
    }

    /** gettid(): the calling OS thread. */
    static IntSupplier gettid() {
        throw refused();
    }

    /** pipe(): {read fd, write fd}. */
    static int[] pipe() throws IOException {
        throw refused();
    }

    /**
     * Reads one byte from {@code in} and writes it to {@code out} with blocking downcalls until
     * {@code stop}; the first side writes first and counts a round trip at each byte back.
     */
    static void pingPong(int in, int out, boolean first, BooleanSupplier stop, Runnable roundTrip) throws IOException {
        throw refused();
    }

    private static UnsupportedOperationException refused() {
        return new UnsupportedOperationException("native downcalls " + unavailableReason());
    }

    private Downcalls() {}
}
