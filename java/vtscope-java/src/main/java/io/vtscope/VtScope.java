// SPDX-License-Identifier: Apache-2.0
package io.vtscope;

import io.vtscope.internal.RecordLayout;
import io.vtscope.internal.RecordRegion;

/**
 * Publishes the calling thread's current trace context into this JVM's shared record region,
 * where vtscope's eBPF programs read it synchronously at each syscall of the carrier thread.
 *
 * <p>A virtual thread is a {@link Thread} with its own thread id, so its record follows it across
 * carriers: the reader maps the carrier's mounted virtual thread to that thread's record. Calls
 * are meant for context-switch hot paths: after a thread's first publish (which claims its slot
 * and creates the region on the JVM's first call) they allocate nothing, take no locks and make no
 * syscalls. If the region cannot be created (not Linux, native access denied, mmap failure) every
 * call is a cheap no-op returning false and {@link #unavailableReason()} says why; nothing here
 * throws.
 */
public final class VtScope {
    /** True if the record region exists (creating it on first call). */
    public static boolean isAvailable() {
        return RecordRegion.global() != null;
    }

    /** One line explaining why the region is unavailable, or null if it is available. */
    public static String unavailableReason() {
        return RecordRegion.unavailableReason();
    }

    /**
     * Publishes a W3C span context given as hex ids (32 and 16 digits, either case, not all zero).
     * Invalid ids clear the record and return false.
     *
     * @return true if the record now holds the context
     */
    public static boolean publish(CharSequence traceIdHex, CharSequence spanIdHex, int traceFlags) {
        RecordRegion r = writer();
        return r != null && r.publish(traceIdHex, spanIdHex, traceFlags);
    }

    /** Publishes a span context given as the big-endian halves of the ids. */
    public static boolean publish(long traceIdHigh, long traceIdLow, long spanId, int traceFlags) {
        RecordRegion r = writer();
        return r != null && r.publish(traceIdHigh, traceIdLow, spanId, traceFlags);
    }

    /** Marks that no span is current on the calling thread. */
    public static void clear() {
        RecordRegion r = writer();
        if (r != null) {
            r.clear();
        }
    }

    /**
     * Native address of the calling thread's 64-byte OTEP 4947 record (claiming it if needed), or 0
     * if there is none; for tests and native components that share the region.
     */
    public static long recordAddress() {
        RecordRegion r = RecordRegion.global();
        long offset = r == null ? -1 : r.currentRecordOffset();
        return offset < 0 ? 0 : r.address() + offset;
    }

    /**
     * The region, with this API declared as a context writer of it: an application that publishes
     * through this class keeps its threads' records current, so readers may take a thread without a
     * context for one with no span.
     */
    private static RecordRegion writer() {
        RecordRegion r = RecordRegion.global();
        if (r != null) {
            r.declareContextWriter(RecordLayout.WRITER_API);
        }
        return r;
    }

    private VtScope() {}
}
