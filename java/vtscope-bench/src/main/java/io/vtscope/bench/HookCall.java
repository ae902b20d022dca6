// SPDX-License-Identifier: Apache-2.0
package io.vtscope.bench;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The two ways a hook in VirtualThread's mount path can call into libvtscope.so, measured alone
 * on a platform thread (issue 15): a JNI static native (what the mount hook uses:
 * io.vtscope.otep.MountHook.unmounted, bound with RegisterNatives, which stores null into
 * otel_thread_ctx_v1) and an FFM downcall with {@code Linker.Option.critical(false)} (no thread
 * state transition) into {@code vtscope_thread_context_attach(0)}, which checks its argument
 * against the record region and returns (a few compares: no less work than the JNI native's one
 * store). {@code empty} is the loop alone. Needs the JVM started with
 * {@code -agentpath:libvtscope.so=otep} (the hook class exists only then) and
 * {@code -Dvtscope.library.path=} that library.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(Scope.Benchmark)
public class HookCall {
    private static final MethodHandle JNI = jni();
    private static final MethodHandle CRITICAL = critical();

    private static MethodHandle jni() {
        try {
            Class<?> hook = Class.forName("io.vtscope.otep.MountHook", true, null);
            return MethodHandles.publicLookup().findStatic(hook, "unmounted", MethodType.methodType(void.class));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("no mount hook: run with -agentpath:libvtscope.so=otep", e);
        }
    }

    private static MethodHandle critical() {
        String path = System.getProperty("vtscope.library.path");
        if (path == null) throw new IllegalStateException("-Dvtscope.library.path= is not set");
        return Downcalls.contextAttachCritical(Path.of(path)); // JDK 22+ (FFM)
    }

    @Benchmark
    public void empty() {}

    @Benchmark
    public void jniStaticNative() throws Throwable {
        JNI.invokeExact();
    }

    @Benchmark
    public int ffmCriticalDowncall() throws Throwable {
        return (int) CRITICAL.invokeExact(0L);
    }
}
