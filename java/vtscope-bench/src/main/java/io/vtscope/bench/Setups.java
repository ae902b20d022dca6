// SPDX-License-Identifier: Apache-2.0
package io.vtscope.bench;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextStorage;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.vtscope.VtScope;
import io.vtscope.internal.RecordLayout;
import io.vtscope.internal.RecordRegion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Selects and verifies the context-storage configuration of a benchmark fork.
 *
 * <p>The uber-jar always holds vtscope-otel and thus its {@code ContextStorageProvider} service
 * file. OpenTelemetry's {@code LazyStorage} (opentelemetry-context 1.68.0) chooses the storage once
 * per JVM, on the first use of {@link ContextStorage#get()}: with the system property
 * {@value #PROVIDER_PROPERTY} equal to {@code default} it returns {@code ContextStorage.defaultStorage()}
 * (the thread-local storage) without consulting the service loader; with the property unset and a
 * single provider on the class path it uses that provider, i.e. the vtscope wrapper. The choice is
 * made here, in the fork's {@code @Setup}, before anything touches {@code Context}; JMH runs each
 * {@code @Param} value in its own fork, so each fork sees exactly one configuration. Every check
 * throws, so a fork that is not what its parameter claims (for example under {@code -f 0}, where
 * the storage chosen by an earlier configuration sticks) fails instead of reporting a number.
 */
final class Setups {
    static final String PROVIDER_PROPERTY = "io.opentelemetry.context.contextStorageProvider";
    static final String DEFAULT_STORAGE = "io.opentelemetry.context.ThreadLocalContextStorage";
    static final String VTSCOPE_STORAGE = "io.vtscope.otel.VtScopeContextStorage";

    /** Plain OpenTelemetry: the default thread-local storage, no vtscope wrapper, no record region. */
    static void plainOpenTelemetry(String label) {
        String before = System.getProperty(PROVIDER_PROPERTY);
        if (before != null && !before.equals("default")) {
            throw new IllegalStateException(PROVIDER_PROPERTY + "=" + before + " conflicts with config " + label);
        }
        System.setProperty(PROVIDER_PROPERTY, "default");
        requireStorage(DEFAULT_STORAGE, label);
        requireNoRegion(label);
        announce(label);
    }

    /** vtscope: the service-loaded wrapper around the default storage, with a live record region. */
    static void vtscope(String label) {
        String before = System.getProperty(PROVIDER_PROPERTY);
        if (before != null) {
            throw new IllegalStateException(PROVIDER_PROPERTY + "=" + before
                    + " is set; config " + label + " measures the service-loaded provider with the property unset");
        }
        requireStorage(VTSCOPE_STORAGE, label);
        if (!VtScope.isAvailable()) {
            throw new IllegalStateException(label + ": " + VtScope.unavailableReason());
        }
        if (!regionMapped()) {
            throw new IllegalStateException(label + ": VtScope is available but no " + RecordLayout.REGION_NAME
                    + " mapping is in /proc/self/maps");
        }
        announce(label);
    }

    /** Baseline: neither OpenTelemetry's storage nor vtscope is touched (checked through /proc/self/maps). */
    static void baseline(String label) {
        requireNoRegion(label);
        announce(label, false);
    }

    private static void requireStorage(String expected, String label) {
        String actual = ContextStorage.get().getClass().getName();
        // vtscope's storage is one of the nested shapes of VtScopeContextStorage.
        if (!actual.equals(expected) && !actual.startsWith(expected + "$")) {
            throw new IllegalStateException("config " + label + " expects ContextStorage " + expected
                    + " but this JVM has " + actual + " (each config needs its own fork; do not use -f 0)");
        }
    }

    /** Fails if this JVM has created vtscope's record region. */
    static void requireNoRegion(String label) {
        if (regionMapped()) {
            throw new IllegalStateException("config " + label + " must not create the vtscope record region, but "
                    + RecordLayout.REGION_NAME + " is mapped");
        }
    }

    /**
     * True if the region is mapped in this process (REGION_NAME is a compile-time constant): the
     * memfd (JDK 22+), or the file {@code REGION_NAME-<pid>-<random>} of the JDK 21 writer.
     */
    static boolean regionMapped() {
        try {
            String maps = Files.readString(Path.of("/proc/self/maps"));
            return maps.contains("/memfd:" + RecordLayout.REGION_NAME) || maps.contains("/" + RecordLayout.REGION_NAME + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void announce(String label) {
        announce(label, true);
    }

    private static void announce(String label, boolean storageInitialized) {
        String storage = !storageInitialized ? "(not initialized)" : ContextStorage.get().getClass().getName();
        System.out.println("# vtscope-bench fork: config=" + label + " storage=" + storage
                + " regionMapped=" + regionMapped()
                + " availableProcessors=" + Runtime.getRuntime().availableProcessors()
                + " java=" + Runtime.version());
    }

    /**
     * A recording, sampled span from an SDK tracer provider. The SDK (1.68) hands out invalid
     * (non-recording) spans when no span processor is registered, so a processor that does nothing
     * is registered; the span is never ended.
     */
    static Span validSpan() {
        SdkTracerProvider provider = SdkTracerProvider.builder().addSpanProcessor(new NoopProcessor()).build();
        Span span = provider.get("io.vtscope.bench").spanBuilder("bench").setNoParent().startSpan();
        if (!span.getSpanContext().isValid()) {
            throw new IllegalStateException("SDK returned an invalid span: " + span.getSpanContext());
        }
        return span;
    }

    /**
     * On the calling thread (platform or virtual), makes {@code span} current and checks that the
     * thread's vtscope record holds its ids, then closes the scope and checks the record is cleared.
     * Only for vtscope configurations (it claims the thread's record).
     */
    static void checkPublishes(Span span) {
        if (Context.current() != Context.root()) {
            throw new IllegalStateException("a context is already current on " + Thread.currentThread());
        }
        try (Scope ignored = span.makeCurrent()) {
            requireRecord(span.getSpanContext());
        }
        requireRecord(null);
    }

    /** Checks the calling thread's record: holds {@code sc}'s ids, or (sc null) holds no context. */
    static void requireRecord(SpanContext sc) {
        RecordRegion region = RecordRegion.global();
        ByteBuffer r = region == null ? null : region.currentRecord();
        if (r == null) {
            throw new IllegalStateException("no vtscope record for " + Thread.currentThread());
        }
        r.order(ByteOrder.BIG_ENDIAN); // the ids' byte order
        byte valid = r.get((int) RecordLayout.R_VALID);
        String trace = String.format("%016x%016x", r.getLong((int) RecordLayout.R_TRACE_ID),
                r.getLong((int) RecordLayout.R_TRACE_ID + 8));
        String spanId = String.format("%016x", r.getLong((int) RecordLayout.R_SPAN_ID));
        boolean ok = sc == null
                ? valid == 0 && trace.equals("0".repeat(32))
                : valid == 1 && trace.equals(sc.getTraceId()) && spanId.equals(sc.getSpanId());
        if (!ok) {
            throw new IllegalStateException("record of " + Thread.currentThread() + " is valid=" + valid + " trace="
                    + trace + " span=" + spanId + ", expected " + (sc == null ? "no context" : sc));
        }
    }

    /** Header counter of the record region (claimed, released, unavailable). */
    static long counter(long headerOffset) {
        return (long) MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder())
                .getVolatile(RecordRegion.global().buffer(), (int) headerOffset);
    }

    private static final class NoopProcessor implements SpanProcessor {
        @Override
        public void onStart(Context parentContext, ReadWriteSpan span) {}

        @Override
        public boolean isStartRequired() {
            return false;
        }

        @Override
        public void onEnd(ReadableSpan span) {}

        @Override
        public boolean isEndRequired() {
            return false;
        }
    }

    private Setups() {}
}
