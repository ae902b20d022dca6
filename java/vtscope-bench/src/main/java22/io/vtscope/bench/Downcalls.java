// SPDX-License-Identifier: Apache-2.0
package io.vtscope.bench;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/** The benchmarks' native calls through FFM downcalls: the JDK 22+ version of this class. */
final class Downcalls {
    private static final int CLOCK_THREAD_CPUTIME_ID = 3; // <linux/time.h>
    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();

    /** Null: FFM is final from JDK 22 on. */
    static String unavailableReason() {
        return null;
    }

    @SuppressWarnings("restricted")
    static MethodHandle contextAttachCritical(Path library) {
        SymbolLookup lib = SymbolLookup.libraryLookup(library, Arena.global());
        return LINKER.downcallHandle(lib.find("vtscope_thread_context_attach").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG), Linker.Option.critical(false));
    }

    static LongSupplier threadCpuClock() {
        MethodHandle clockGettime = libc("clock_gettime",
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        MemorySegment timespec = Arena.ofAuto().allocate(16, 8);
        return () -> {
            try {
                if ((int) clockGettime.invokeExact(CLOCK_THREAD_CPUTIME_ID, timespec) != 0) {
                    throw new IllegalStateException("clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
                }
            } catch (Throwable t) {
                throw rethrow(t);
            }
            return timespec.get(ValueLayout.JAVA_LONG, 0) * 1_000_000_000L + timespec.get(ValueLayout.JAVA_LONG, 8);
        };
    }

    static IntSupplier gettid() {
        MethodHandle gettid = libc("gettid", FunctionDescriptor.of(ValueLayout.JAVA_INT));
        return () -> {
            try {
                return (int) gettid.invokeExact();
            } catch (Throwable t) {
                throw rethrow(t);
            }
        };
    }

    static int[] pipe() throws IOException {
        MethodHandle pipe = libc("pipe", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment fds = arena.allocate(ValueLayout.JAVA_INT, 2);
            int rc;
            try {
                rc = (int) pipe.invokeExact(fds);
            } catch (Throwable t) {
                throw rethrow(t);
            }
            if (rc != 0) {
                throw new IOException("pipe failed");
            }
            return new int[] {fds.getAtIndex(ValueLayout.JAVA_INT, 0), fds.getAtIndex(ValueLayout.JAVA_INT, 1)};
        }
    }

    /** read and write, constants to the JIT as they were in SwitchStorm itself. */
    private static final class Io {
        static final FunctionDescriptor FD = FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT,
                ValueLayout.ADDRESS, ValueLayout.JAVA_LONG);
        static final MethodHandle READ = libc("read", FD);
        static final MethodHandle WRITE = libc("write", FD);
    }

    static void pingPong(int in, int out, boolean first, BooleanSupplier stop, Runnable roundTrip) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment b = arena.allocate(1);
            if (first && (long) Io.WRITE.invokeExact(out, b, 1L) != 1) {
                throw new IOException("write failed");
            }
            while (!stop.getAsBoolean()) {
                if ((long) Io.READ.invokeExact(in, b, 1L) != 1) {
                    throw new IOException("read failed");
                }
                if (first) {
                    roundTrip.run();
                }
                if ((long) Io.WRITE.invokeExact(out, b, 1L) != 1) {
                    throw new IOException("write failed");
                }
            }
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    @SuppressWarnings("restricted")
    private static MethodHandle libc(String name, FunctionDescriptor fd) {
        return LINKER.downcallHandle(LIBC.find(name).orElseThrow(), fd);
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException(t);
    }

    private Downcalls() {}
}
