// SPDX-License-Identifier: Apache-2.0
package io.vtscope.otel;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextStorage;
import io.opentelemetry.context.Scope;
import io.vtscope.internal.Hex;
import io.vtscope.internal.RecordLayout;
import io.vtscope.internal.RecordRegion;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A {@link ContextStorage} that mirrors every change of the current context into the calling
 * thread's vtscope record. All of OpenTelemetry's "make current" and "restore" operations go
 * through the storage's {@code attach} and {@code Scope.close}, so hooking them sees each change
 * exactly once, on the thread (virtual or platform) that makes it.
 *
 * <p>After each change the record equals the span of the context that is then current (cleared
 * when it has no valid span): an attach publishes the attached context and a close publishes the
 * context the close restored, always into the calling thread's own record. Publishing parses the
 * SDK's hex ids eight digits at a time ({@link Hex#parseDigits}), cheap enough that a close simply
 * publishes again rather than saving and restoring the record.
 *
 * <p>Two shapes, one behaviour. Over OpenTelemetry's default storage (the usual case: the
 * service-loaded provider) it is {@link OwnThreadLocal}: the default storage's own logic,
 * {@code ThreadLocalContextStorage} of opentelemetry-context 1.68, with the record written in the
 * same scope, so a change costs one thread-local read and one scope object, as without vtscope.
 * Over any other storage (another provider, the strict-context storage, further wrappers) it is
 * {@link Wrapping}: that storage decides and vtscope follows.
 */
public abstract sealed class VtScopeContextStorage implements ContextStorage {
    /** One JVM-wide mirror is enough; a second (service loader plus {@link VtScopeOtel#install()}) would only double the work. */
    private static final AtomicBoolean WRAPPED = new AtomicBoolean();

    final RecordRegion region;

    private VtScopeContextStorage(RecordRegion region) {
        this.region = region;
    }

    /**
     * Set (to {@value #PUBLISHER_AGENT_EXTENSION}) by vtscope-otel-agent-extension.jar once its
     * wrapper is on the OpenTelemetry Java agent's own context storage, which happens during the
     * agent's start-up, before the application's main method. The application-side entry points
     * ({@link #wrap}, hence the service-loaded provider and {@link VtScopeOtel#install()}) then
     * stand down: under the agent every change of the current context, the application's API calls
     * included (the agent bridges them onto its own storage), already reaches the extension, so
     * publishing here too would write every record twice.
     */
    public static final String PUBLISHER_PROPERTY = "vtscope.otel.publisher";
    public static final String PUBLISHER_AGENT_EXTENSION = "agent-extension";
    private static final String AGENT_BOOTSTRAP_CLASS = "io.opentelemetry.javaagent.bootstrap.AgentInitializer";
    /** Whether the one line about the agent (stand-down, or agent without the extension) was logged. */
    private static final AtomicBoolean TOLD = new AtomicBoolean();

    /**
     * The application-side wrapper: {@link #wrapStorage}, unless vtscope's agent extension already
     * publishes in this JVM (see {@link #PUBLISHER_PROPERTY}): then {@code storage} is left
     * untouched and one INFO line says so. Under the OpenTelemetry Java agent without the extension
     * it still wraps (the application's own API calls are then published) but warns once: the
     * agent's own spans never pass through this class loader's storage. Usable as a
     * {@link ContextStorage#addWrapper} function.
     */
    public static ContextStorage wrap(ContextStorage storage) {
        if (PUBLISHER_AGENT_EXTENSION.equals(System.getProperty(PUBLISHER_PROPERTY))) {
            if (TOLD.compareAndSet(false, true)) {
                Logger.getLogger(VtScopeContextStorage.class.getName()).info("vtscope: the OpenTelemetry Java agent"
                        + " extension publishes this JVM's contexts; vtscope-otel.jar stands down");
            }
            return storage;
        }
        boolean agentWithoutExtension = agentPresent();
        if (agentWithoutExtension && TOLD.compareAndSet(false, true)) {
            Logger.getLogger(VtScopeContextStorage.class.getName()).warning("vtscope: the OpenTelemetry Java agent"
                    + " runs in this JVM without vtscope's extension, so its spans never reach vtscope-otel.jar;"
                    + " add -Dotel.javaagent.extensions=vtscope-otel-agent-extension.jar");
        }
        // The agent's spans bypass this storage, so it must not tell readers that a record without
        // a context means no span is current.
        return wrapStorage(storage, !agentWithoutExtension);
    }

    private static boolean agentPresent() {
        try {
            Class.forName(AGENT_BOOTSTRAP_CLASS, false, null); // the agent puts it on the boot class path
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * Wraps {@code storage} unless a vtscope storage already exists in this class loader or the
     * record region is unavailable (then publishing would be a no-op, so the storage is left
     * untouched). The agent extension calls this directly: it is the publisher {@link #wrap}
     * defers to.
     */
    public static ContextStorage wrapStorage(ContextStorage storage) {
        return wrapStorage(storage, true);
    }

    /**
     * {@link #wrapStorage(ContextStorage)}, declaring the storage a context writer of the region
     * when {@code seesEveryContext}: every context made current in this JVM then passes through it.
     */
    private static ContextStorage wrapStorage(ContextStorage storage, boolean seesEveryContext) {
        RecordRegion region = RecordRegion.global();
        if (storage instanceof VtScopeContextStorage || region == null || !WRAPPED.compareAndSet(false, true)) {
            return storage;
        }
        if (seesEveryContext) {
            region.declareContextWriter(RecordLayout.WRITER_OTEL_STORAGE);
        }
        return storage == ContextStorage.defaultStorage() ? new OwnThreadLocal(region) : new Wrapping(storage, region);
    }

    static SpanContext validSpanContext(Context context) {
        Span span = context == null ? null : Span.fromContextOrNull(context);
        SpanContext sc = span == null ? null : span.getSpanContext();
        return sc != null && sc.isValid() ? sc : null;
    }

    /**
     * What a thread keeps for publishing, touched only by that thread: its record's offset, the
     * scratch buffer the SDK's hex ids are copied into, and the binary ids of the span context it
     * parsed last, so re-publishing that context (a context attached again, e.g. for every
     * callback of one request) does not parse again.
     */
    static class ParsedIds {
        /**
         * The thread's record offset once it has one. A slot changes hands only after its owner
         * has ended (RecordRegion's take-over, libvtscope's release at VirtualThreadEnd), so it
         * stays valid for as long as the thread can publish.
         */
        long record = -1;
        final byte[] scratch = new byte[Hex.IDS_BYTES];
        SpanContext parsed;
        long traceIdHigh;
        long traceIdLow;
        long spanId;
    }

    /**
     * Writes a valid span context into the record at {@code r}. The ids are the SDK's cached,
     * validated lowercase hex strings, parsed eight digits at a time through {@code ids}, so
     * nothing is allocated.
     */
    final void write(long r, SpanContext sc, ParsedIds ids) {
        if (ids.parsed != sc) {
            Hex.copyIds(sc.getTraceId(), sc.getSpanId(), ids.scratch);
            ids.traceIdHigh = Hex.parseDigits(ids.scratch, 0);
            ids.traceIdLow = Hex.parseDigits(ids.scratch, 16);
            ids.spanId = Hex.parseDigits(ids.scratch, 32);
            ids.parsed = sc;
        }
        region.write(r, ids.traceIdHigh, ids.traceIdLow, ids.spanId, sc.getTraceFlags().asByte());
    }

    /**
     * Makes the calling thread's record hold {@code context}'s span, or no context, and keeps the
     * record's offset in {@code ids} once known. A thread that never published has no record,
     * which readers already report as no context, so clearing never claims.
     */
    final void publish(Context context, ParsedIds ids) {
        SpanContext sc = validSpanContext(context);
        if (ids.record < 0) {
            ids.record = sc != null ? region.currentRecordOffset() : region.claimedRecordOffset();
        }
        if (ids.record < 0) {
            return;
        }
        if (sc != null) {
            write(ids.record, sc, ids);
        } else {
            region.clearRecord(ids.record);
        }
    }

    /**
     * OpenTelemetry's default storage, fused with the record: the same thread-local semantics as
     * {@code io.opentelemetry.context.ThreadLocalContextStorage} (null and the current context
     * attach as no-ops; a scope closes once, and only while its context is current, else the call
     * is ignored and logged at FINE). The thread-local holds a mutable per-thread state instead of
     * the context itself, so a change reads the thread-local once and never writes it, and the
     * state carries the thread's parsed ids.
     */
    static final class OwnThreadLocal extends VtScopeContextStorage {
        private static final Logger LOGGER = Logger.getLogger(OwnThreadLocal.class.getName());
        private static final ThreadLocal<ThreadState> STATE = new ThreadLocal<>();

        /** One per thread that attached a context, touched only by that thread. */
        static final class ThreadState extends ParsedIds {
            Context current;
        }

        OwnThreadLocal(RecordRegion region) {
            super(region);
        }

        private static ThreadState state() {
            ThreadState state = STATE.get();
            if (state == null) {
                state = new ThreadState();
                STATE.set(state);
            }
            return state;
        }

        @Override
        public Scope attach(Context toAttach) {
            if (toAttach == null) {
                return Scope.noop();
            }
            ThreadState state = state();
            Context before = state.current;
            if (toAttach == before) {
                return Scope.noop();
            }
            state.current = toAttach;
            publish(toAttach, state);
            return new OwnScope(before, toAttach);
        }

        @Override
        public Context current() {
            ThreadState state = STATE.get();
            return state == null ? null : state.current;
        }

        private final class OwnScope implements Scope {
            private final Context before;
            private final Context attached;
            private boolean closed;

            OwnScope(Context before, Context attached) {
                this.before = before;
                this.attached = attached;
            }

            @Override
            public void close() {
                // The closing thread's own state: a scope closed on another thread (against
                // OpenTelemetry's contract) finds that thread's context, not its own, and is
                // ignored as the default storage ignores it; it never touches another record.
                ThreadState state = STATE.get();
                if (closed || state == null || state.current != attached) {
                    LOGGER.log(Level.FINE, "Trying to close scope which does not represent current context. Ignoring the call.");
                    return;
                }
                closed = true;
                state.current = before;
                publish(before, state);
            }
        }
    }

    /** Over another storage: it decides what is current, and the record follows. */
    static final class Wrapping extends VtScopeContextStorage {
        /** Each thread's parsed ids; the delegate keeps its own thread-local for the context. */
        private static final ThreadLocal<ParsedIds> IDS = ThreadLocal.withInitial(ParsedIds::new);
        private final ContextStorage delegate;

        Wrapping(ContextStorage delegate, RecordRegion region) {
            super(region);
            this.delegate = delegate;
        }

        @Override
        public Scope attach(Context toAttach) {
            Scope scope = delegate.attach(toAttach);
            if (scope == Scope.noop()) {
                return scope; // the delegate changed nothing (same context, or null)
            }
            publish(toAttach, IDS.get());
            return () -> {
                scope.close();
                // Whatever the delegate made current (the context before, or something else after
                // an out-of-order close), on the closing thread, into its own record.
                publish(delegate.current(), IDS.get());
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
    }
}
