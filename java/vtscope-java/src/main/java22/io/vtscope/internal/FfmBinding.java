// SPDX-License-Identifier: Apache-2.0
package io.vtscope.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/**
 * libvtscope's C ABI through FFM downcalls (JDK 22+; compiled for release 22, reached through
 * {@link NativeBindings} only there). These are restricted methods: the JVM needs
 * {@code --enable-native-access=ALL-UNNAMED} (or the module's name) to run them without a warning.
 */
final class FfmBinding implements NativeBinding {
    /** All of the address space: the blocks the library returns are read through it. */
    @SuppressWarnings("restricted")
    private static final MemorySegment EVERYTHING = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private final Arena arena;
    private final MethodHandle init;
    private final MethodHandle error;
    private final MethodHandle features;
    private final MethodHandle register;
    private final MethodHandle unregister;
    private final MethodHandle liveBlocks;
    private final MethodHandle setResource;
    private final MethodHandle attachThreadContext;

    /** See {@link NativeBindings#bind}. */
    static NativeBinding bind(Path path, boolean unloadable) {
        return new FfmBinding(path, unloadable);
    }

    @SuppressWarnings("restricted") // dlopen and downcalls; without native access the JDK only warns
    private FfmBinding(Path path, boolean unloadable) {
        this.arena = unloadable ? Arena.ofShared() : Arena.global();
        SymbolLookup lookup = SymbolLookup.libraryLookup(path, arena);
        Linker linker = Linker.nativeLinker();
        this.init = downcall(linker, lookup, "vtscope_native_init", FunctionDescriptor.of(
                ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
        this.error = downcall(linker, lookup, "vtscope_native_error", FunctionDescriptor.of(ValueLayout.ADDRESS));
        this.features = downcall(linker, lookup, "vtscope_native_features", FunctionDescriptor.of(ValueLayout.JAVA_INT));
        this.register = downcall(linker, lookup, "vtscope_vtt_register",
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        this.unregister = downcall(linker, lookup, "vtscope_vtt_unregister",
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        this.liveBlocks = downcall(linker, lookup, "vtscope_vtt_live_blocks", FunctionDescriptor.of(ValueLayout.JAVA_LONG));
        this.setResource = downcall(linker, lookup, "vtscope_process_context_set_resource",
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
        this.attachThreadContext = downcall(linker, lookup, "vtscope_thread_context_attach",
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
    }

    @Override
    public int init(int featureBits, long regionBase, long regionSize) {
        try {
            return (int) init.invokeExact(featureBits, regionBase, regionSize);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public String error() {
        try {
            MemorySegment s = (MemorySegment) error.invokeExact();
            return s.equals(MemorySegment.NULL) ? "" : reinterpretString(s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int features() {
        try {
            return (int) features.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int register(long[] result) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment out = call.allocate(ValueLayout.ADDRESS);
            int rc = (int) register.invokeExact(out);
            result[0] = out.get(ValueLayout.ADDRESS, 0).address();
            return rc;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int unregister(long block) {
        try {
            return (int) unregister.invokeExact(MemorySegment.ofAddress(block));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long liveBlocks() {
        try {
            return (long) liveBlocks.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int setProcessResource(byte[] entries) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment data = call.allocate(Math.max(1, entries.length));
            MemorySegment.copy(entries, 0, data, ValueLayout.JAVA_BYTE, 0, entries.length);
            return (int) setResource.invokeExact(data, (long) entries.length);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public int attachThreadContext(long recordAddress) {
        try {
            return (int) attachThreadContext.invokeExact(recordAddress);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long readLong(long address) {
        return EVERYTHING.get(ValueLayout.JAVA_LONG, address);
    }

    @Override
    public void unload() {
        arena.close(); // the global arena throws: only an unloadable binding can be unloaded
    }

    @SuppressWarnings("restricted")
    private static String reinterpretString(MemorySegment s) {
        return s.reinterpret(Long.MAX_VALUE).getString(0);
    }

    @SuppressWarnings("restricted")
    private static MethodHandle downcall(Linker linker, SymbolLookup lookup, String name, FunctionDescriptor fd) {
        return linker.downcallHandle(lookup.find(name)
                .orElseThrow(() -> new IllegalStateException("libvtscope.so has no symbol " + name)), fd);
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException(t); // the C functions throw nothing checked
    }
}
