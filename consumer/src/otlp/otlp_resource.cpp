// SPDX-License-Identifier: Apache-2.0
#include "otlp/otlp_resource.h"

#include <optional>
#include <random>

#include "output/event_format.h"

namespace vtscope {

namespace {

std::string trim(const std::string& s) {
    size_t b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    size_t e = s.find_last_not_of(" \t");
    return s.substr(b, e - b + 1);
}

Expected<std::string> percent_decode(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size(); i++) {
        if (s[i] != '%') {
            out.push_back(s[i]);
            continue;
        }
        auto hex = [](char c) -> int {
            if (c >= '0' && c <= '9') return c - '0';
            if (c >= 'a' && c <= 'f') return c - 'a' + 10;
            if (c >= 'A' && c <= 'F') return c - 'A' + 10;
            return -1;
        };
        if (i + 2 >= s.size() || hex(s[i + 1]) < 0 || hex(s[i + 2]) < 0)
            return make_error("invalid percent escape in '" + s + "'");
        out.push_back(static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2])));
        i += 2;
    }
    return out;
}

}  // namespace

Expected<std::vector<OtlpAttribute>> parse_resource_attributes(const std::string& text) {
    std::vector<OtlpAttribute> out;
    size_t start = 0;
    while (start <= text.size()) {
        size_t comma = text.find(',', start);
        std::string pair = trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (!pair.empty()) {
            size_t eq = pair.find('=');
            if (eq == std::string::npos || trim(pair.substr(0, eq)).empty())
                return make_error("OTEL_RESOURCE_ATTRIBUTES: '" + pair + "' is not key=value");
            auto value = percent_decode(trim(pair.substr(eq + 1)));
            if (!value) return make_error("OTEL_RESOURCE_ATTRIBUTES: " + value.error().message);
            out.push_back(OtlpAttribute::string(trim(pair.substr(0, eq)), *value));
        }
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

Expected<std::vector<OtlpAttribute>> make_resource(const std::string& service_option, const EnvLookup& env, int64_t pid,
                                                   const std::string& host_name, const std::string& instance_id,
                                                   const std::vector<OtlpAttribute>& process_context,
                                                   ServiceNameSource* source, const ContainerIdReader& container_id) {
    std::vector<OtlpAttribute> from_env;
    if (const char* text = env("OTEL_RESOURCE_ATTRIBUTES")) {
        auto parsed = parse_resource_attributes(text);
        if (!parsed) return parsed.error();
        from_env = std::move(*parsed);
    }
    auto find = [](const std::vector<OtlpAttribute>& list, const std::string& key) -> const OtlpAttribute* {
        for (const auto& a : list)
            if (a.key == key) return &a;
        return nullptr;
    };
    // A string attribute of the process context, else of the environment.
    auto text_of = [&](const std::string& key) -> std::optional<std::string> {
        if (const OtlpAttribute* a = find(process_context, key); a && a->kind == OtlpAttribute::Kind::kString)
            return a->text;
        if (const OtlpAttribute* a = find(from_env, key)) return a->text;
        return std::nullopt;
    };
    std::string service = "unknown_service";
    ServiceNameSource from = ServiceNameSource::kDefault;
    const OtlpAttribute* context_service = find(process_context, "service.name");
    if (!service_option.empty()) {
        service = service_option;
        from = ServiceNameSource::kOption;
    } else if (context_service && context_service->kind == OtlpAttribute::Kind::kString &&
               !context_service->text.empty()) {
        service = context_service->text;
        from = ServiceNameSource::kProcessContext;
    } else if (const char* s = env("OTEL_SERVICE_NAME"); s && *s) {
        service = s;
        from = ServiceNameSource::kServiceNameVariable;
    } else if (const OtlpAttribute* from_attributes = find(from_env, "service.name")) {
        service = from_attributes->text;
        from = ServiceNameSource::kResourceAttributes;
    }
    if (source) *source = from;
    std::vector<OtlpAttribute> resource;
    resource.push_back(OtlpAttribute::string("service.name", service));
    resource.push_back(
        OtlpAttribute::string("service.instance.id", text_of("service.instance.id").value_or(instance_id)));
    resource.push_back(OtlpAttribute::integer("process.pid", pid));
    resource.push_back(OtlpAttribute::string("host.name", text_of("host.name").value_or(host_name)));
    // The target's container, as its cgroup names it, unless its own SDK said already.
    bool cgroup_container = false;
    if (!find(process_context, "container.id") && container_id)
        if (auto id = container_id(static_cast<pid_t>(pid))) {
            resource.push_back(OtlpAttribute::string("container.id", *id));
            cgroup_container = true;
        }
    auto own = [&](const std::string& key) {
        return key == "service.name" || key == "service.instance.id" || key == "host.name" || key == "process.pid" ||
               (key == "container.id" && cgroup_container);
    };
    for (const auto& a : process_context)
        if (!own(a.key)) resource.push_back(a);
    for (auto& a : from_env)
        if (!own(a.key) && !find(process_context, a.key)) resource.push_back(std::move(a));
    return resource;
}

const char* service_name_source_name(ServiceNameSource source) {
    switch (source) {
        case ServiceNameSource::kOption: return "service_option";
        case ServiceNameSource::kProcessContext: return "process_context";
        case ServiceNameSource::kServiceNameVariable: return "OTEL_SERVICE_NAME";
        case ServiceNameSource::kResourceAttributes: return "OTEL_RESOURCE_ATTRIBUTES";
        case ServiceNameSource::kDefault: break;
    }
    return "default";
}

std::string service_name_fallback_line(ServiceNameSource source, const std::string& service,
                                       const std::string& why_not_target) {
    // Where the application's own name would have come from, and the ways to give one.
    const std::string how =
        "name it with --service NAME or OTEL_SERVICE_NAME, or let the application's OpenTelemetry publish it "
        "(vtscope-otel.jar or vtscope's agent extension, with libvtscope.so loaded: -agentpath:libvtscope.so=otep "
        "or jcmd PID JVMTI.agent_load libvtscope.so otep)";
    switch (source) {
        case ServiceNameSource::kServiceNameVariable:
        case ServiceNameSource::kResourceAttributes:
            return "vtscope: note: otlp: exporting under service.name=" + service + " from vtscope's own " +
                   service_name_source_name(source) + ", not the target's resource: " + why_not_target +
                   "; to use the application's, " + how;
        case ServiceNameSource::kDefault:
            return "vtscope: warning: otlp: exporting under service.name=unknown_service: no --service, " +
                   why_not_target + ", no OTEL_SERVICE_NAME; " + how;
        case ServiceNameSource::kOption:
        case ServiceNameSource::kProcessContext: break;
    }
    return "";
}

std::string random_uuid() {
    std::random_device device;
    unsigned char b[16];
    for (size_t i = 0; i < sizeof(b); i += 4) {
        uint32_t r = device();
        for (size_t j = 0; j < 4; j++) b[i + j] = static_cast<unsigned char>(r >> (8 * j));
    }
    b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);
    b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);
    std::string h = hex_string(b, sizeof(b));
    return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) + "-" + h.substr(20);
}

}  // namespace vtscope
