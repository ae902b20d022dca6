// SPDX-License-Identifier: Apache-2.0
#include "channels/writer_diagnosis.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "output/safe_text.h"

namespace vtscope {
namespace {

std::vector<std::string> split_nul(const std::string& text) {
    std::vector<std::string> parts;
    std::string current;
    for (char c : text) {
        if (c == '\0') {
            parts.push_back(current);
            current.clear();
        } else {
            current.push_back(c);
        }
    }
    if (!current.empty()) parts.push_back(current);
    return parts;
}

std::string read_all(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

bool contains(const std::string& text, const char* needle) { return text.find(needle) != std::string::npos; }

// The value of a -Dname=value argument, empty when absent.
std::string system_property(const std::vector<std::string>& arguments, const std::string& name) {
    std::string prefix = "-D" + name + "=";
    for (const auto& a : arguments)
        if (a.rfind(prefix, 0) == 0) return a.substr(prefix.size());
    return "";
}

}  // namespace

ProcessFacts read_process_facts(pid_t pid) {
    ProcessFacts facts;
    std::string proc = "/proc/" + std::to_string(pid);
    facts.arguments = split_nul(read_all(proc + "/cmdline"));
    for (const auto& entry : split_nul(read_all(proc + "/environ")))
        if (entry.rfind("CLASSPATH=", 0) == 0) facts.class_path_env = entry.substr(10);
    std::error_code ec;
    for (const auto& fd : std::filesystem::directory_iterator(proc + "/fd", ec)) {
        std::error_code link_ec;
        auto target = std::filesystem::read_symlink(fd.path(), link_ec);
        if (!link_ec) facts.open_files.push_back(target.string());
    }
    return facts;
}

namespace {

// The jar of an OpenTelemetry Java agent given with -javaagent, empty when none. The target wrote
// it and the sentences quoting it go to the terminal: its controls come out as visible escapes.
std::string opentelemetry_agent(const ProcessFacts& facts) {
    std::string agent;
    for (const auto& a : facts.arguments)
        if (a.rfind("-javaagent:", 0) == 0 && contains(a, "opentelemetry-javaagent")) agent = a.substr(11);
    return terminal_safe(agent);
}

bool has_vtscope_extension(const ProcessFacts& facts) {
    return contains(system_property(facts.arguments, "otel.javaagent.extensions"), "vtscope");
}

}  // namespace

std::string explain_missing_region(const ProcessFacts& facts) {
    std::string agent = opentelemetry_agent(facts);
    std::string class_path = facts.class_path_env;
    for (size_t i = 0; i + 1 < facts.arguments.size(); i++) {
        const std::string& a = facts.arguments[i];
        if (a == "-cp" || a == "-classpath" || a == "--class-path") class_path += ":" + facts.arguments[i + 1];
    }
    bool writer_open = false;
    for (const auto& f : facts.open_files)
        if (contains(f, "vtscope-java") || contains(f, "vtscope-otel")) writer_open = true;
    bool writer_on_class_path = contains(class_path, "vtscope-java") || writer_open;
    if (!agent.empty()) {
        if (has_vtscope_extension(facts))
            return "the target runs the OpenTelemetry Java agent with vtscope's agent extension, which has published "
                   "no context yet (its record region is created at the first context use)";
        return "the target runs the OpenTelemetry Java agent (" + agent +
               ") without vtscope's agent extension, so its contexts are not published (add "
               "-Dotel.javaagent.extensions=vtscope-otel-agent-extension.jar; see the README, \"With the "
               "OpenTelemetry Java agent\")";
    }
    if (writer_on_class_path)
        return "vtscope's writer is in the target but has published no context yet (its record region is created "
               "at the first context use)";
    return "no record region found: the target publishes no trace context (put vtscope-java.jar and "
           "vtscope-otel.jar on its class path)";
}

std::string explain_missing_writer(const ProcessFacts& facts) {
    const std::string consequence =
        ", so a thread without a published context is reported as context_unknown (no_context_writer), never "
        "no_context";
    std::string agent = opentelemetry_agent(facts);
    if (!agent.empty() && !has_vtscope_extension(facts))
        return "the target runs the OpenTelemetry Java agent (" + agent +
               ") without vtscope's agent extension: its spans reach no vtscope writer" + consequence +
               " (add -Dotel.javaagent.extensions=vtscope-otel-agent-extension.jar)";
    return "no context writer (vtscope-otel, vtscope's agent extension or io.vtscope.VtScope) has declared itself "
           "in the target's record region" +
           consequence;
}

}  // namespace vtscope
