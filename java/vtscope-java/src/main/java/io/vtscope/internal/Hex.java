package io.vtscope.internal;

/**
 * Allocation-free parsing of W3C trace-context ids. OpenTelemetry hands out ids as cached hex
 * strings; parsing them straight into longs avoids the byte[] copies of the OTel helpers on the
 * context-switch hot path.
 */
public final class Hex {
    public static final int TRACE_ID_CHARS = 32;
    public static final int SPAN_ID_CHARS = 16;

    /** True if {@code s} has exactly {@code length} hex digits (either case). */
    public static boolean isHex(CharSequence s, int length) {
        if (s == null || s.length() != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (nibble(s.charAt(i)) < 0) {
                return false;
            }
        }
        return true;
    }

    /** The 16 hex digits at {@code offset}, most significant first; input must pass {@link #isHex}. */
    public static long parseLong(CharSequence s, int offset) {
        long v = 0;
        for (int i = offset; i < offset + 16; i++) {
            v = (v << 4) | nibble(s.charAt(i));
        }
        return v;
    }

    /** Nibble values of '0'-'9' and 'a'-'f' (index: char & 0x7f); other entries are 0. */
    private static final byte[] LOWER_HEX = new byte[128];

    static {
        for (int c = '0'; c <= '9'; c++) {
            LOWER_HEX[c] = (byte) (c - '0');
        }
        for (int c = 'a'; c <= 'f'; c++) {
            LOWER_HEX[c] = (byte) (c - 'a' + 10);
        }
    }

    /**
     * The 16 lowercase hex digits at {@code offset} without validation: for ids that OpenTelemetry
     * already validated ({@code SpanContext.isValid()} implies 32/16 lowercase hex digits). A
     * malformed input yields a wrong value, never an exception.
     */
    public static long parseLowerHexUnchecked(String s, int offset) {
        long v = 0;
        for (int i = offset; i < offset + 16; i++) {
            v = (v << 4) | LOWER_HEX[s.charAt(i) & 0x7f];
        }
        return v;
    }

    private static int nibble(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        int lower = c | 0x20; // folds 'A'-'F' onto 'a'-'f'
        return lower >= 'a' && lower <= 'f' ? lower - 'a' + 10 : -1;
    }

    private Hex() {}
}
