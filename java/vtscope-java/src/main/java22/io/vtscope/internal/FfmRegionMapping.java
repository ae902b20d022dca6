// SPDX-License-Identifier: Apache-2.0
package io.vtscope.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The shared memory of a record region on JDK 22+ (compiled for release 22, reached through
 * {@link RegionMapping} only there): an anonymous memfd mapped through FFM downcalls into libc;
 * no file, no native library of vtscope's.
 */
final class FfmRegionMapping {
    private static final int MFD_CLOEXEC = 1;
    private static final int PROT_READ = 1;
    private static final int PROT_WRITE = 2;
    private static final int MAP_SHARED = 1;
    private static final int MAP_POPULATE = 0x8000;
    private static final long MAP_FAILED = -1L;

    private static RegionMapping of(MemorySegment segment) {
        return new RegionMapping(segment.asByteBuffer(), segment.address());
    }

    /** memfd_create + ftruncate + mmap(MAP_SHARED) + close; throws with the failing call's errno. */
    @SuppressWarnings("restricted") // needs native access; without --enable-native-access the JDK only warns
    static RegionMapping create(String name, long size) {
        if (!System.getProperty("os.name", "").startsWith("Linux")) {
            throw new IllegalStateException("not Linux (" + System.getProperty("os.name") + ")");
        }
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        Linker.Option errno = Linker.Option.captureCallState("errno");
        VarHandle errnoValue = Linker.Option.captureStateLayout().varHandle(PathElement.groupElement("errno"));
        MethodHandle memfdCreate = downcall(linker, libc, "memfd_create",
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT), errno);
        MethodHandle ftruncate = downcall(linker, libc, "ftruncate",
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG), errno);
        MethodHandle mmap = downcall(linker, libc, "mmap",
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG),
                errno);
        MethodHandle close = downcall(linker, libc, "close",
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Linker.Option.captureStateLayout());
            int fd = (int) memfdCreate.invokeExact(state, arena.allocateFrom(name), MFD_CLOEXEC);
            if (fd < 0) {
                throw new IllegalStateException("memfd_create failed, errno " + (int) errnoValue.get(state, 0L));
            }
            try {
                if ((int) ftruncate.invokeExact(state, fd, size) != 0) {
                    throw new IllegalStateException("ftruncate failed, errno " + (int) errnoValue.get(state, 0L));
                }
                MemorySegment addr = (MemorySegment) mmap.invokeExact(state, MemorySegment.NULL, size,
                        PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0L);
                if (addr.address() == MAP_FAILED || addr.address() == 0) {
                    throw new IllegalStateException("mmap failed, errno " + (int) errnoValue.get(state, 0L));
                }
                // Global scope: the mapping lives as long as the JVM.
                return of(addr.reinterpret(size));
            } finally {
                // The mapping keeps the memfd alive; the descriptor itself is not needed.
                int ignored = (int) close.invokeExact(fd);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private FfmRegionMapping() {}

    /**
     * The region this process maps at [start, end), used where it is: the kernel says this range
     * is mapped here ({@code path} is not needed to reach it).
     *
     * @throws IllegalStateException if the range is too large for a buffer
     */
    @SuppressWarnings("restricted")
    static RegionMapping adopt(long start, long end, String path) {
        if (end - start > Integer.MAX_VALUE) {
            throw new IllegalStateException(path + " maps " + (end - start) + " bytes, more than a region has");
        }
        return of(MemorySegment.ofAddress(start).reinterpret(end - start));
    }

    @SuppressWarnings("restricted")
    private static MethodHandle downcall(Linker linker, SymbolLookup libc, String name,
            FunctionDescriptor fd, Linker.Option... options) {
        return linker.downcallHandle(libc.find(name)
                .orElseThrow(() -> new IllegalStateException("libc has no " + name)), fd, options);
    }
}
