package io.vtscope.otel;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextStorage;
import io.opentelemetry.context.Scope;
import io.vtscope.internal.Hex;
import io.vtscope.internal.RecordRegion;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link ContextStorage} that mirrors every change of the current context into the calling
 * thread's vtscope record. All of OpenTelemetry's "make current" and "restore" operations go
 * through the storage's {@code attach} and {@code Scope.close}, so hooking them sees each change
 * exactly once, on the thread (virtual or platform) that makes it.
 *
 * <p>After each change the record equals the span of the context that is then current (cleared
 * when it has no valid span). A scope remembers the record it replaced and puts it back on close
 * when the delegate restored the context it replaced, which is the common, well-nested case; any
 * other close (out of order, a foreign storage) republishes {@code delegate.current()}.
 */
public final class VtScopeContextStorage implements ContextStorage {
    /** One JVM-wide mirror is enough; a second (service loader plus {@link VtScopeOtel#install()}) would only double the work. */
    private static final AtomicBoolean WRAPPED = new AtomicBoolean();

    private final ContextStorage delegate;
    private final RecordRegion region;

    private VtScopeContextStorage(ContextStorage delegate, RecordRegion region) {
        this.delegate = delegate;
        this.region = region;
    }

    /**
     * Wraps {@code storage} unless a vtscope storage already exists in this class loader or the
     * record region is unavailable (then publishing would be a no-op, so the storage is left
     * untouched). Usable as a {@link ContextStorage#addWrapper} function.
     */
    public static ContextStorage wrap(ContextStorage storage) {
        RecordRegion region = RecordRegion.global();
        if (storage instanceof VtScopeContextStorage || region == null || !WRAPPED.compareAndSet(false, true)) {
            return storage;
        }
        return new VtScopeContextStorage(storage, region);
    }

    @Override
    public Scope attach(Context toAttach) {
        Context before = delegate.current();
        Scope scope = delegate.attach(toAttach);
        if (scope == Scope.noop()) {
            return scope; // the delegate changed nothing (same context, or null)
        }
        SpanContext sc = validSpanContext(toAttach);
        long existing = region.claimedRecordOffset();
        if (existing < 0) {
            // No record yet: nothing to save, and a slot claimed now need not reflect 'before'
            // (an earlier attach may have found no free slot), so the close republishes.
            long r = sc != null ? region.currentRecordOffset() : -1;
            if (r >= 0) {
                write(r, sc);
            }
            return new RepublishingScope(scope);
        }
        long r = existing;
        RestoringScope restoring = new RestoringScope(scope, before, r, region.traceIdHigh(r),
                region.traceIdLow(r), region.spanId(r), region.validAndFlags(r));
        if (sc != null) {
            write(r, sc);
        } else {
            region.clearRecord(r);
        }
        return restoring;
    }

    @Override
    public Context current() {
        return delegate.current();
    }

    @Override
    public Context root() {
        return delegate.root();
    }

    private static SpanContext validSpanContext(Context context) {
        Span span = context == null ? null : Span.fromContextOrNull(context);
        SpanContext sc = span == null ? null : span.getSpanContext();
        return sc != null && sc.isValid() ? sc : null;
    }

    /** Allocation-free: the SDK's ids are cached, validated lowercase hex strings. */
    private void write(long r, SpanContext sc) {
        String traceId = sc.getTraceId();
        region.write(r, Hex.parseLowerHexUnchecked(traceId, 0), Hex.parseLowerHexUnchecked(traceId, 16),
                Hex.parseLowerHexUnchecked(sc.getSpanId(), 0), sc.getTraceFlags().asByte());
    }

    /** Publishes whatever is current after the delegate's close. */
    private void republish() {
        SpanContext sc = validSpanContext(delegate.current());
        if (sc != null) {
            long r = region.currentRecordOffset();
            if (r >= 0) {
                write(r, sc);
            }
        } else {
            long r = region.claimedRecordOffset();
            if (r >= 0) {
                region.clearRecord(r);
            }
        }
    }

    private final class RestoringScope implements Scope {
        private final Thread owner = Thread.currentThread();
        private final Scope inner;
        private final Context before;
        private final long record;
        private final long traceIdHigh;
        private final long traceIdLow;
        private final long spanId;
        private final int validAndFlags;

        RestoringScope(Scope inner, Context before, long record, long traceIdHigh, long traceIdLow, long spanId,
                int validAndFlags) {
            this.inner = inner;
            this.before = before;
            this.record = record;
            this.traceIdHigh = traceIdHigh;
            this.traceIdLow = traceIdLow;
            this.spanId = spanId;
            this.validAndFlags = validAndFlags;
        }

        @Override
        public void close() {
            inner.close();
            // The saved state belongs to the attaching thread's record, which only that thread
            // may write. A scope closed elsewhere (against OpenTelemetry's contract) republishes
            // the closing thread's own context instead.
            if (Thread.currentThread() != owner) {
                republish();
                return;
            }
            // Unchanged since attach unless nested scopes are still open, which the identity
            // check on the restored context catches.
            if (delegate.current() == before) {
                region.restore(record, traceIdHigh, traceIdLow, spanId, validAndFlags);
            } else {
                republish();
            }
        }
    }

    private final class RepublishingScope implements Scope {
        private final Scope inner;

        RepublishingScope(Scope inner) {
            this.inner = inner;
        }

        @Override
        public void close() {
            inner.close();
            republish();
        }
    }
}
