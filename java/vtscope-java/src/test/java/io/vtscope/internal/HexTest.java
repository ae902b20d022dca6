// SPDX-License-Identifier: Apache-2.0
package io.vtscope.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HexFormat;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The SWAR id parser against the JDK's own hex parsing. */
class HexTest {
    private static long expected(String hex16) {
        return Long.parseUnsignedLong(hex16, 16);
    }

    @Test
    void parsesRandomIdsLikeTheJdk() {
        SplittableRandom random = new SplittableRandom(4947);
        byte[] scratch = new byte[Hex.IDS_BYTES];
        for (int i = 0; i < 100_000; i++) {
            String traceId = HexFormat.of().toHexDigits(random.nextLong()) + HexFormat.of().toHexDigits(random.nextLong());
            String spanId = HexFormat.of().toHexDigits(random.nextLong());
            Hex.copyIds(traceId, spanId, scratch);
            assertEquals(expected(traceId.substring(0, 16)), Hex.parseDigits(scratch, 0), traceId);
            assertEquals(expected(traceId.substring(16)), Hex.parseDigits(scratch, 16), traceId);
            assertEquals(expected(spanId), Hex.parseDigits(scratch, 32), spanId);
        }
    }

    @Test
    void everyDigitInEveryPosition() {
        String digits = "0123456789abcdef";
        byte[] scratch = new byte[Hex.IDS_BYTES];
        for (int position = 0; position < 16; position++) {
            for (int d = 0; d < 16; d++) {
                char[] span = "0000000000000000".toCharArray();
                span[position] = digits.charAt(d);
                String spanId = new String(span);
                Hex.copyIds("0".repeat(32), spanId, scratch);
                assertEquals(expected(spanId), Hex.parseDigits(scratch, 32), spanId);
                Hex.copyIds("0".repeat(32), spanId.toUpperCase(), scratch);
                assertEquals(expected(spanId), Hex.parseDigits(scratch, 32), "upper case " + spanId);
            }
        }
        Hex.copyIds("ffffffffffffffffffffffffffffffff", "ffffffffffffffff", scratch);
        assertEquals(-1L, Hex.parseDigits(scratch, 0));
        assertEquals(-1L, Hex.parseDigits(scratch, 32));
    }
}
