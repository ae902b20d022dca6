// SPDX-License-Identifier: Apache-2.0
// Prints the record-region protocol of common/vtscope_record.h as the compiler sees it: one line
// "JavaName C-expression value" per constant and field offset that io.vtscope.internal.RecordLayout
// mirrors. The build runs it into vtscope_record_layout.txt next to libvtscope.so, and
// RecordLayoutTest (java/vtscope-java) checks it against RecordLayout both ways, and against the
// #defines and struct fields of the header, so a constant added on one side only fails a test.
#include <cstddef>
#include <cstdio>

#include "../../common/vtscope_record.h"

#define CONSTANT(java_name, c_name) std::printf("%s %s %lld\n", java_name, #c_name, static_cast<long long>(c_name))
#define OFFSET(java_name, type, field) \
    std::printf("%s offsetof(%s,%s) %zu\n", java_name, #type, #field, offsetof(struct type, field))

int main() {
    std::printf("REGION_NAME VTSCOPE_REGION_NAME %s\n", VTSCOPE_REGION_NAME);
    std::printf("REGION_FILE_PREFIX VTSCOPE_REGION_FILE_PREFIX %s\n", VTSCOPE_REGION_FILE_PREFIX);
    CONSTANT("MAGIC", VTSCOPE_REGION_MAGIC);
    CONSTANT("VERSION", VTSCOPE_REGION_VERSION);
    CONSTANT("HEADER_SIZE", VTSCOPE_REGION_HEADER_SIZE);
    CONSTANT("SLOT_SIZE", VTSCOPE_SLOT_SIZE);
    CONSTANT("RECORD_OFFSET", VTSCOPE_RECORD_OFFSET);
    CONSTANT("RECORD_SIZE", VTSCOPE_RECORD_SIZE);
    CONSTANT("MAX_PROBE", VTSCOPE_MAX_PROBE);
    CONSTANT("OWNER_FREE", VTSCOPE_OWNER_FREE);
    CONSTANT("OWNER_RELEASED", VTSCOPE_OWNER_RELEASED);
    CONSTANT("OWNER_BUSY", VTSCOPE_OWNER_BUSY);
    CONSTANT("KIND_NONE", VTSCOPE_KIND_NONE);
    CONSTANT("KIND_VIRTUAL", VTSCOPE_KIND_VIRTUAL);
    CONSTANT("KIND_PLATFORM", VTSCOPE_KIND_PLATFORM);
    CONSTANT("DEFAULT_CAPACITY", VTSCOPE_DEFAULT_CAPACITY);
    CONSTANT("MIN_CAPACITY", VTSCOPE_MIN_CAPACITY);
    CONSTANT("MAX_CAPACITY", VTSCOPE_MAX_CAPACITY);
    CONSTANT("WRITER_OTEL_STORAGE", VTSCOPE_WRITER_OTEL_STORAGE);
    CONSTANT("WRITER_API", VTSCOPE_WRITER_API);

    OFFSET("H_MAGIC", vtscope_region_header, magic);
    OFFSET("H_VERSION", vtscope_region_header, version);
    OFFSET("H_HEADER_SIZE", vtscope_region_header, header_size);
    OFFSET("H_SLOT_SIZE", vtscope_region_header, slot_size);
    OFFSET("H_CAPACITY", vtscope_region_header, capacity);
    OFFSET("H_MAX_PROBE", vtscope_region_header, max_probe);
    OFFSET("H_WRITER_PID", vtscope_region_header, writer_pid);
    OFFSET("H_RECORDS_CLAIMED", vtscope_region_header, records_claimed);
    OFFSET("H_RECORDS_RELEASED", vtscope_region_header, records_released);
    OFFSET("H_RECORDS_UNAVAILABLE", vtscope_region_header, records_unavailable);
    OFFSET("H_RECORD_OFFSET", vtscope_region_header, record_offset);
    OFFSET("H_CONTEXT_WRITERS", vtscope_region_header, context_writers);

    OFFSET("S_OWNER", vtscope_slot_owner, owner);
    OFFSET("S_KIND", vtscope_slot_owner, kind);
    OFFSET("S_CLAIMED_AT_START", vtscope_slot_owner, claimed_at_start);

    OFFSET("R_TRACE_ID", vtscope_record, trace_id);
    OFFSET("R_SPAN_ID", vtscope_record, span_id);
    OFFSET("R_VALID", vtscope_record, valid);
    OFFSET("R_TRACE_FLAGS", vtscope_record, trace_flags);
    OFFSET("R_ATTRS_SIZE", vtscope_record, attrs_size);
    OFFSET("R_ATTRS", vtscope_record, attrs);
    return 0;
}
