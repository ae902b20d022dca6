// SPDX-License-Identifier: Apache-2.0
package io.vtscope.workloads;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/** {@link LibC} through FFM downcalls (JDK 22+; run with --enable-native-access=ALL-UNNAMED). */
final class FfmLibC implements LibC {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();

    private final MethodHandle clockGettime = downcall("clock_gettime",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
    private final MethodHandle gettid = downcall("gettid", FunctionDescriptor.of(ValueLayout.JAVA_INT));
    private final MethodHandle usleep = downcall("usleep",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private final MethodHandle pipe = downcall("pipe", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
    private final MethodHandle close = downcall("close", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private final MethodHandle qsort = downcall("qsort", FunctionDescriptor.ofVoid(ValueLayout.ADDRESS,
            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS));
    private final MemorySegment compareStub;

    /** What the comparator runs at its next call (once), set by {@link #qsortCallingOnce}. */
    private static volatile Runnable inComparator;

    @SuppressWarnings("restricted") // the upcall stub; without native access the JDK only warns
    FfmLibC() {
        try {
            MethodHandle compare = MethodHandles.lookup().findStatic(FfmLibC.class, "compare",
                    MethodType.methodType(int.class, MemorySegment.class, MemorySegment.class));
            compareStub = LINKER.upcallStub(compare, FunctionDescriptor.of(ValueLayout.JAVA_INT,
                    ValueLayout.ADDRESS.withTargetLayout(ValueLayout.JAVA_INT),
                    ValueLayout.ADDRESS.withTargetLayout(ValueLayout.JAVA_INT)), Arena.global());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public Object newTimespec() {
        return Arena.ofAuto().allocate(16, 8);
    }

    /**
     * CLOCK_PROCESS_CPUTIME_ID is the CPU time of all the process's threads, those that exited
     * included, to the ns (getProcessCpuTime moves in 10 ms ticks here); CLOCK_THREAD_CPUTIME_ID
     * that of the calling OS thread (a virtual thread's carrier).
     */
    @Override
    public long clockNanos(int clock, Object timespec) {
        MemorySegment ts = (MemorySegment) timespec;
        try {
            int rc = (int) clockGettime.invokeExact(clock, ts);
            if (rc != 0) {
                throw new IllegalStateException("clock_gettime failed");
            }
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        return ts.get(ValueLayout.JAVA_LONG, 0) * 1_000_000_000L + ts.get(ValueLayout.JAVA_LONG, 8);
    }

    @Override
    public int gettid() {
        try {
            return (int) gettid.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    @Override
    public void usleep(int micros) throws IOException {
        int rc;
        try {
            rc = (int) usleep.invokeExact(micros);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        if (rc != 0) {
            throw new IOException("usleep failed");
        }
    }

    @Override
    public int[] pipe() throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment fds = arena.allocate(ValueLayout.JAVA_INT, 2);
            int rc;
            try {
                rc = (int) pipe.invokeExact(fds);
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
            if (rc != 0) {
                throw new IOException("pipe failed");
            }
            return new int[] {fds.getAtIndex(ValueLayout.JAVA_INT, 0), fds.getAtIndex(ValueLayout.JAVA_INT, 1)};
        }
    }

    @Override
    public void close(int fd) throws IOException {
        int rc;
        try {
            rc = (int) close.invokeExact(fd);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        if (rc != 0) {
            throw new IOException("close failed");
        }
    }

    @Override
    public void qsortCallingOnce(Runnable callback) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ints = arena.allocate(ValueLayout.JAVA_INT, 2);
            ints.setAtIndex(ValueLayout.JAVA_INT, 0, 2);
            ints.setAtIndex(ValueLayout.JAVA_INT, 1, 1);
            inComparator = callback;
            qsort.invokeExact(ints, 2L, 4L, compareStub);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** The qsort comparator (an upcall): runs the pending callback once. */
    private static int compare(MemorySegment a, MemorySegment b) {
        Runnable callback = inComparator;
        if (callback != null) {
            inComparator = null;
            callback.run();
        }
        return Integer.compare(a.get(ValueLayout.JAVA_INT, 0), b.get(ValueLayout.JAVA_INT, 0));
    }

    @SuppressWarnings("restricted")
    private static MethodHandle downcall(String name, FunctionDescriptor fd) {
        return LINKER.downcallHandle(LIBC.find(name).orElseThrow(), fd);
    }
}
