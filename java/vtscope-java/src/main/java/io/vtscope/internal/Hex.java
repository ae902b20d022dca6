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

    private static int nibble(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        int lower = c | 0x20; // folds 'A'-'F' onto 'a'-'f'
        return lower >= 'a' && lower <= 'f' ? lower - 'a' + 10 : -1;
    }

    private Hex() {}
}
