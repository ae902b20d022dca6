// SPDX-License-Identifier: Apache-2.0
// The resource of every export: --service, the target's process context, OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES, and the line that says where service.name came from.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "otlp/otlp_config.h"
#include "otlp/otlp_model.h"
#include "process/container_id.h"

namespace vtscope {

// OTEL_RESOURCE_ATTRIBUTES: key=value pairs, comma-separated, values percent-decoded.
Expected<std::vector<OtlpAttribute>> parse_resource_attributes(const std::string& text);

// The resource of every export. service.name: --service, else the target's process context
// (OTEP 4719: the resource its own SDK reports its telemetry under), else OTEL_SERVICE_NAME,
// else service.name in OTEL_RESOURCE_ATTRIBUTES, else "unknown_service". service.instance.id and
// host.name: the process context's, else OTEL_RESOURCE_ATTRIBUTES', else instance_id and
// host_name. process.pid: the target. container.id: the process context's, else the one named
// by the target's cgroup (container_id(pid), process/container_id.h: the target's, which
// vtscope's own environment cannot know), else OTEL_RESOURCE_ATTRIBUTES' (set by hand), else
// none. Then the process context's other attributes, and those of OTEL_RESOURCE_ATTRIBUTES it
// does not name. Why the application's own resource comes before
// vtscope's environment: README, "The resource".
// *source (optional) says which of them gave service.name.
using ContainerIdReader = std::function<std::optional<std::string>(pid_t)>;
enum class ServiceNameSource { kOption, kProcessContext, kServiceNameVariable, kResourceAttributes, kDefault };
Expected<std::vector<OtlpAttribute>> make_resource(const std::string& service_option, const EnvLookup& env, int64_t pid,
                                                   const std::string& host_name, const std::string& instance_id,
                                                   const std::vector<OtlpAttribute>& process_context = {},
                                                   ServiceNameSource* source = nullptr,
                                                   const ContainerIdReader& container_id = read_container_id);
// The name of a source in --summary-json: "service_option", "process_context",
// "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES", "default".
const char* service_name_source_name(ServiceNameSource source);
// The one stderr line for a service.name that does not come from --service or the target (its
// source is vtscope's own environment, or the default unknown_service): where it came from, why
// the target gave none (why_not_target: "the target publishes no process context", ...) and how
// to give one. Empty for the other sources.
std::string service_name_fallback_line(ServiceNameSource source, const std::string& service,
                                       const std::string& why_not_target);
// A random UUID (version 4) for service.instance.id.
std::string random_uuid();

}  // namespace vtscope
