package io.vtscope.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The Java mirror of the record layout must match common/vtscope_record.h, the C side. */
class RecordLayoutTest {
    private static final Pattern DEFINE =
            Pattern.compile("^#define\\s+(VTSCOPE_\\w+)\\s+\\(?(-?(?:0x[0-9a-fA-F]+|\\d+))(?:U?LL|ULL)?\\)?", Pattern.MULTILINE);

    @Test
    void constantsMatchTheCHeader() throws Exception {
        // Surefire runs in the module directory; the header lives at the repository root.
        String header = Files.readString(Path.of("../../common/vtscope_record.h"));
        Map<String, Long> defines = new HashMap<>();
        Matcher m = DEFINE.matcher(header);
        while (m.find()) {
            defines.put(m.group(1), Long.decode(m.group(2)));
        }
        assertEquals(RecordLayout.MAGIC, defines.get("VTSCOPE_REGION_MAGIC"));
        assertEquals(RecordLayout.VERSION, defines.get("VTSCOPE_REGION_VERSION"));
        assertEquals(RecordLayout.HEADER_SIZE, defines.get("VTSCOPE_REGION_HEADER_SIZE"));
        assertEquals(RecordLayout.SLOT_SIZE, defines.get("VTSCOPE_SLOT_SIZE"));
        assertEquals(RecordLayout.RECORD_OFFSET, defines.get("VTSCOPE_RECORD_OFFSET"));
        assertEquals(RecordLayout.RECORD_SIZE, defines.get("VTSCOPE_RECORD_SIZE"));
        assertEquals(RecordLayout.MAX_PROBE, defines.get("VTSCOPE_MAX_PROBE"));
        assertEquals(RecordLayout.OWNER_FREE, defines.get("VTSCOPE_OWNER_FREE"));
        assertEquals(RecordLayout.OWNER_RELEASED, defines.get("VTSCOPE_OWNER_RELEASED"));
        assertEquals(RecordLayout.OWNER_BUSY, defines.get("VTSCOPE_OWNER_BUSY"));
        assertEquals(RecordLayout.KIND_VIRTUAL, defines.get("VTSCOPE_KIND_VIRTUAL"));
        assertEquals(RecordLayout.KIND_PLATFORM, defines.get("VTSCOPE_KIND_PLATFORM"));
        assertEquals(RecordLayout.REGION_NAME,
                header.replaceAll("(?s).*#define VTSCOPE_REGION_NAME \"([^\"]+)\".*", "$1"));
        // Field offsets: the header's static_asserts pin the C side to these numbers.
        for (String assertion : new String[] {
            "offsetof(struct vtscope_region_header, records_claimed) == " + RecordLayout.H_RECORDS_CLAIMED,
            "offsetof(struct vtscope_region_header, records_unavailable) == " + RecordLayout.H_RECORDS_UNAVAILABLE,
            "offsetof(struct vtscope_region_header, record_offset) == " + RecordLayout.H_RECORD_OFFSET,
            "offsetof(struct vtscope_slot_owner, claimed_at_start) == " + RecordLayout.S_CLAIMED_AT_START,
            "offsetof(struct vtscope_record, span_id) == " + RecordLayout.R_SPAN_ID,
            "offsetof(struct vtscope_record, valid) == " + RecordLayout.R_VALID,
            "offsetof(struct vtscope_record, trace_flags) == " + RecordLayout.R_TRACE_FLAGS,
            "offsetof(struct vtscope_record, attrs_size) == " + RecordLayout.R_ATTRS_SIZE,
        }) {
            assertEquals(true, header.contains(assertion), "vtscope_record.h asserts " + assertion);
        }
    }
}
