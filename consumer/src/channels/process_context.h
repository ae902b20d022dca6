// SPDX-License-Identifier: Apache-2.0
// The target's OTEP 4719 process context, read from outside: the resource its OpenTelemetry SDK
// describes itself with (service.name, service.instance.id, ...), which vtscope's exports take
// so that they join the application's own telemetry in a backend.
//
// The layout (OTEP 4719 as merged in opentelemetry-specification 34f27fd; native/src/otel_ctx.h
// writes it): a mapping named OTEL_CTX ("[anon:OTEL_CTX]", "[anon_shmem:OTEL_CTX]" or
// "/memfd:OTEL_CTX (deleted)" in /proc/PID/maps) whose first 32 bytes are the header
//   char signature[8] = "OTEL_CTX"; u32 version = 2; u32 payload_size;
//   u64 monotonic_published_at_ns (0 while being written or updated); u64 payload (address)
// and the payload a protobuf opentelemetry.proto.processcontext.v1development.ProcessContext
// (opentelemetry-proto 1.11.0, decoded with its generated message: cmake/OtlpProto.cmake):
// field 1 the Resource, field 2 the context's own attributes.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/expected.h"
#include "otlp/otlp_encoding.h"
#include "process/proc_maps.h"
#include "process/process_memory.h"

namespace vtscope {

// What a ProcessContext resource keeps of a target's payload (up to 1 MiB, of the target's
// choosing): the first 128 distinct keys (OpenTelemetry's default attribute count limit), keys of
// at most 256 bytes (longer ones are skipped), string values cut to 4 KiB; every string made
// well-formed UTF-8 (else U+FFFD).
constexpr size_t kMaxProcessContextAttributes = 128;
constexpr size_t kMaxProcessContextKeyBytes = 256;
constexpr size_t kMaxProcessContextValueBytes = 4096;

// The resource attributes of a ProcessContext payload: its resource's KeyValues whose AnyValue
// is a string, bool, int64 or double (as a string attribute, %.17g); other kinds (arrays, maps,
// bytes) are skipped, as are unknown fields. An error when the payload is not a ProcessContext
// message (truncated, a length past the end, a bad wire type, a string that is not UTF-8).
Expected<std::vector<OtlpAttribute>> decode_process_context_resource(std::span<const uint8_t> payload);

// The start of the target's OTEL_CTX mapping in its maps, or nullopt.
std::optional<uint64_t> find_process_context(const std::vector<Mapping>& maps);

// Reads and decodes the process context at header_address: header checked (signature, version
// 2, published, payload size at most 1 MiB), payload read, then the timestamp read again; a
// timestamp that changed (an update in between) makes it retry, at most three times. Every read
// goes through memory (process_vm_readv for a real target) and is checked.
Expected<std::vector<OtlpAttribute>> read_process_context(const MemoryReader& memory, uint64_t header_address);

// The resource of pid's process context; nullopt when it publishes none; an error when it
// publishes one that cannot be read.
Expected<std::optional<std::vector<OtlpAttribute>>> target_process_context(pid_t pid);

}  // namespace vtscope
