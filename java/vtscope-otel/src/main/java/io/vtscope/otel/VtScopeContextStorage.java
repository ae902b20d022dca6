package io.vtscope.otel;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextStorage;
import io.opentelemetry.context.Scope;
import io.vtscope.VtScope;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link ContextStorage} that mirrors every change of the current context into the calling
 * thread's vtscope record. All of OpenTelemetry's "make current" and "restore" operations go
 * through the storage's {@code attach} and {@code Scope.close}, so hooking them sees each change
 * exactly once, on the thread (virtual or platform) that makes it.
 *
 * <p>After each change the record equals the span of the context that is then current (cleared
 * when it has no valid span), including when scopes are closed out of order and the delegate
 * ignores the close: the close path republishes {@code delegate.current()} rather than assuming.
 */
public final class VtScopeContextStorage implements ContextStorage {
    /** One JVM-wide mirror is enough; a second (service loader plus {@link VtScopeOtel#install()}) would only double the work. */
    private static final AtomicBoolean WRAPPED = new AtomicBoolean();

    private final ContextStorage delegate;

    private VtScopeContextStorage(ContextStorage delegate) {
        this.delegate = delegate;
    }

    /**
     * Wraps {@code storage} unless a vtscope storage already exists in this class loader or the
     * record region is unavailable (then publishing would be a no-op, so the storage is left
     * untouched). Usable as a {@link ContextStorage#addWrapper} function.
     */
    public static ContextStorage wrap(ContextStorage storage) {
        if (storage instanceof VtScopeContextStorage || !VtScope.isAvailable() || !WRAPPED.compareAndSet(false, true)) {
            return storage;
        }
        return new VtScopeContextStorage(storage);
    }

    @Override
    public Scope attach(Context toAttach) {
        Scope scope = delegate.attach(toAttach);
        if (scope == Scope.noop()) {
            return scope; // the delegate changed nothing (same context, or null)
        }
        publish(toAttach);
        return () -> {
            scope.close();
            publish(delegate.current());
        };
    }

    @Override
    public Context current() {
        return delegate.current();
    }

    @Override
    public Context root() {
        return delegate.root();
    }

    /** Allocation-free: the ids are cached hex strings, parsed straight into the record. */
    private static void publish(Context context) {
        Span span = context == null ? null : Span.fromContextOrNull(context);
        SpanContext sc = span == null ? null : span.getSpanContext();
        if (sc == null || !sc.isValid()) {
            VtScope.clear();
        } else {
            VtScope.publish(sc.getTraceId(), sc.getSpanId(), sc.getTraceFlags().asByte());
        }
    }
}
