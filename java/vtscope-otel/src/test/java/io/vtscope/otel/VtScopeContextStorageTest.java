// SPDX-License-Identifier: Apache-2.0
package io.vtscope.otel;

import static org.junit.jupiter.api.Assertions.*;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextKey;
import io.opentelemetry.context.ContextStorage;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.vtscope.VtScope;
import io.vtscope.internal.RecordLayout;
import io.vtscope.internal.RecordRegion;
import io.vtscope.internal.RecordRegion;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** Drives the real SDK through the service-loaded storage and reads the record as a reader would. */
@SuppressWarnings({"restricted", "try"}) // scopes are opened only for their effect
class VtScopeContextStorageTest {
    /** SDK 1.68 hands out a no-op tracer (invalid spans) when no span processor is registered. */
    private static final SdkTracerProvider PROVIDER = SdkTracerProvider.builder()
            .addSpanProcessor(new SpanProcessor() {
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
            })
            .build();
    private static final Tracer TRACER = PROVIDER.get("vtscope-test");
    private static final byte KIND_VIRTUAL = 1;
    private static final byte KIND_PLATFORM = 2;

    @AfterAll
    static void shutdown() {
        PROVIDER.close();
    }

    /** The calling thread's slot (owner word, kind, then its 64-byte record at +64), as readers see it. */
    private static ByteBuffer slot() {
        RecordRegion region = RecordRegion.global();
        long recordAt = VtScope.recordAddress() - region.address();
        return region.buffer().slice(Math.toIntExact(recordAt - 64), 128);
    }

    private static byte[] recordBytes(int offset, int length) {
        byte[] b = new byte[length];
        slot().get(64 + offset, b);
        return b;
    }

    private static byte kind() {
        return slot().get(8);
    }

    private static void assertRecord(Span span) {
        SpanContext sc = span.getSpanContext();
        assertTrue(sc.isValid());
        assertEquals(1, recordBytes(24, 1)[0], "valid");
        assertArrayEquals(HexFormat.of().parseHex(sc.getTraceId()), recordBytes(0, 16));
        assertArrayEquals(HexFormat.of().parseHex(sc.getSpanId()), recordBytes(16, 8));
        assertEquals(sc.getTraceFlags().asByte(), recordBytes(25, 1)[0]);
    }

    private static void assertCleared() {
        assertEquals(0, recordBytes(24, 1)[0], "valid");
        assertArrayEquals(new byte[24], recordBytes(0, 24));
    }

    /** Runs the checks on a fresh thread so that every test starts from a thread without a record. */
    private static void run(Thread.Builder builder, Runnable body) throws InterruptedException {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = builder.start(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        t.join();
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
    }

    @Test
    void serviceLoaderInstalledTheStorageOnce() {
        ContextStorage storage = ContextStorage.get();
        assertInstanceOf(VtScopeContextStorage.OwnThreadLocal.class, storage, "fused over the default storage");
        assertSame(storage, VtScopeContextStorage.wrap(storage));
        assertSame(ContextStorage.defaultStorage(), VtScopeContextStorage.wrap(ContextStorage.defaultStorage()));
        VtScopeOtel.install(); // too late and already wrapped: must not change anything
        assertSame(storage, ContextStorage.get());
        // Installed without the OpenTelemetry Java agent, it sees every context: it says so to readers.
        int writers = RecordRegion.global().contextWriters();
        assertEquals(RecordLayout.WRITER_OTEL_STORAGE, writers & RecordLayout.WRITER_OTEL_STORAGE, "writers: " + writers);
    }

    @Test
    void nestedScopesInVirtualThread() throws Exception {
        run(Thread.ofVirtual(), () -> {
            Span outer = TRACER.spanBuilder("outer").startSpan();
            try (Scope o = outer.makeCurrent()) {
                assertRecord(outer);
                assertEquals(KIND_VIRTUAL, kind());
                Span inner = TRACER.spanBuilder("inner").startSpan();
                try (Scope i = inner.makeCurrent()) {
                    assertRecord(inner);
                    try (Scope same = Context.current().makeCurrent()) {
                        assertRecord(inner); // attaching the current context is a no-op
                    }
                    assertRecord(inner);
                } finally {
                    inner.end();
                }
                assertRecord(outer);
            } finally {
                outer.end();
            }
            assertCleared();
        });
    }

    @Test
    void contextWithoutSpanClears() throws Exception {
        ContextKey<String> key = ContextKey.named("k");
        run(Thread.ofVirtual(), () -> {
            Span span = TRACER.spanBuilder("s").startSpan();
            try (Scope s = span.makeCurrent()) {
                assertRecord(span);
                try (Scope plain = Context.root().with(key, "v").makeCurrent()) {
                    assertCleared();
                }
                assertRecord(span);
                try (Scope invalid = Span.getInvalid().makeCurrent()) {
                    assertCleared();
                }
                assertRecord(span);
            } finally {
                span.end();
            }
        });
    }

    /** Over a storage other than the default one, vtscope wraps it and follows what it decides. */
    @Test
    void wrappingAnotherStorageFollowsIt() throws Exception {
        ContextStorage other = ContextStorage.defaultStorage(); // not the global storage: a separate thread-local
        ContextStorage wrapping = new VtScopeContextStorage.Wrapping(other, io.vtscope.internal.RecordRegion.global());
        run(Thread.ofVirtual(), () -> {
            Span a = TRACER.spanBuilder("a").startSpan();
            Span b = TRACER.spanBuilder("b").startSpan();
            Scope sa = wrapping.attach(Context.root().with(a));
            assertRecord(a);
            Scope sb = wrapping.attach(Context.root().with(b));
            assertRecord(b);
            assertSame(Scope.noop(), wrapping.attach(other.current()), "the delegate's no-op passes through");
            sa.close(); // out of order: the default storage ignores it, b stays current
            assertSame(b, Span.fromContext(wrapping.current()));
            assertRecord(b);
            sb.close();
            assertRecord(a);
            sa.close();
            assertCleared();
            a.end();
            b.end();
        });
    }

    @Test
    void outOfOrderCloseFollowsCurrentContext() throws Exception {
        run(Thread.ofVirtual(), () -> {
            Span a = TRACER.spanBuilder("a").startSpan();
            Span b = TRACER.spanBuilder("b").startSpan();
            Scope sa = a.makeCurrent();
            Scope sb = b.makeCurrent();
            sa.close(); // ignored by the default storage: b stays current
            assertSame(b, Span.current());
            assertRecord(b);
            sb.close();
            assertSame(a, Span.current());
            assertRecord(a);
            a.end();
            b.end();
        });
    }

    @Test
    void platformThreadHasItsOwnRecord() throws Exception {
        AtomicReference<Long> virtualRecord = new AtomicReference<>();
        Span span = TRACER.spanBuilder("p").startSpan();
        run(Thread.ofVirtual(), () -> {
            try (Scope s = span.makeCurrent()) {
                virtualRecord.set(VtScope.recordAddress());
            }
        });
        run(Thread.ofPlatform(), () -> {
            try (Scope s = span.makeCurrent()) {
                assertRecord(span);
                assertEquals(KIND_PLATFORM, kind());
                assertNotEquals(virtualRecord.get(), VtScope.recordAddress());
            }
            assertCleared();
        });
        span.end();
    }

    @Test
    void scopeClosedOnAnotherThreadNeverWritesTheAttachingThreadsRecord() throws Exception {
        Span span = TRACER.spanBuilder("handed-over").startSpan();
        AtomicReference<Scope> handed = new AtomicReference<>();
        java.util.concurrent.CountDownLatch attached = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread a = Thread.ofVirtual().start(() -> {
            try {
                Span earlier = TRACER.spanBuilder("earlier").startSpan();
                try (Scope ignored = earlier.makeCurrent()) {
                    assertRecord(earlier); // the thread now has a record, so the next scope saves it
                }
                earlier.end();
                Scope s = span.makeCurrent();
                handed.set(s);
                attached.countDown();
                closed.await();
                assertRecord(span); // still inside the span: the foreign close must not clear it
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        attached.await();
        run(Thread.ofVirtual(), () -> handed.get().close());
        closed.countDown();
        a.join();
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        span.end();
    }
}
