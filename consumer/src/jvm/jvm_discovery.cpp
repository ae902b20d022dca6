// SPDX-License-Identifier: Apache-2.0
#include "jvm/jvm_discovery.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "../../../common/vtscope_record.h"
#include "otlp/otlp_resource.h"
#include "output/safe_text.h"
#include "process/proc_maps.h"
#include "process/target_files.h"

namespace vtscope {
namespace {

// A command line or environment is at most ARG_MAX-like sizes; one that says more is cut here.
constexpr uint64_t kMaxProcText = 1 << 20;
constexpr uint64_t kMaxReleaseBytes = 64 << 10;  // a JDK's release file is about 1 KiB

// The launcher options that take their value as the next argument (`java --help`, JDK 21 and 25).
constexpr std::array<std::string_view, 15> kOptionsWithValue = {"-cp",
                                                                "-classpath",
                                                                "--class-path",
                                                                "-p",
                                                                "--module-path",
                                                                "--add-modules",
                                                                "--add-opens",
                                                                "--add-exports",
                                                                "--add-reads",
                                                                "--patch-module",
                                                                "--limit-modules",
                                                                "--upgrade-module-path",
                                                                "--enable-native-access",
                                                                "--source",
                                                                "-d"};

bool takes_value(std::string_view option) {
    for (std::string_view o : kOptionsWithValue)
        if (option == o) return true;
    return false;
}

std::string base_name(const std::string& path) {
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A file of /proc, read whole up to kMaxProcText (its descriptor closed on return).
std::string read_proc(const std::string& path) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd) return {};
    std::string text;
    char buf[8192];
    ssize_t n;
    while (text.size() < kMaxProcText && (n = ::read(fd.get(), buf, sizeof(buf))) > 0)
        text.append(buf, static_cast<size_t>(n));
    if (text.size() > kMaxProcText) text.resize(kMaxProcText);
    return text;
}

std::vector<std::string> split_nul(const std::string& text) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\0', start);
        if (end == std::string::npos) end = text.size();
        parts.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return parts;
}

// -Dotel.service.name (the agent's property wins over the variable), else OTEL_SERVICE_NAME,
// else service.name in OTEL_RESOURCE_ATTRIBUTES.
std::string service_name_of(const std::vector<std::string>& arguments, const std::vector<std::string>& environment) {
    static constexpr std::string_view kProperty = "-Dotel.service.name=";
    for (const std::string& a : arguments)
        if (a.starts_with(kProperty)) return a.substr(kProperty.size());
    std::string from_attributes;
    for (const std::string& e : environment) {
        if (e.starts_with("OTEL_SERVICE_NAME=") && e.size() > 18) return e.substr(18);
        if (!e.starts_with("OTEL_RESOURCE_ATTRIBUTES=")) continue;
        auto attributes = parse_resource_attributes(e.substr(25));
        if (!attributes) continue;
        for (const OtlpAttribute& a : *attributes)
            if (a.key == "service.name") from_attributes = a.text;
    }
    return from_attributes;
}

// Seconds since the process started: /proc/PID/stat's starttime (field 22, clock ticks after
// boot, proc(5)) against boot_seconds (/proc/uptime's first field). Fields are counted after the
// last ')', which ends the command name the process chose.
double uptime_of(pid_t pid, double boot_seconds) {
    std::string stat = read_proc("/proc/" + std::to_string(pid) + "/stat");
    size_t paren = stat.rfind(')');
    if (paren == std::string::npos) return 0;
    const char* p = stat.c_str() + paren + 1;
    for (int field = 3; field < 22 && *p; field++) {  // to the space before field 22
        while (*p == ' ') p++;
        while (*p && *p != ' ') p++;
    }
    unsigned long long start_ticks = std::strtoull(p, nullptr, 10);
    double started = static_cast<double>(start_ticks) / static_cast<double>(sysconf(_SC_CLK_TCK));
    return boot_seconds > started ? boot_seconds - started : 0;
}

// The JDK's release file beside libjvm (JAVA_HOME/lib/server/libjvm.so), inside the target's root.
std::string java_version_of(pid_t pid, const std::string& libjvm_path) {
    std::string home = libjvm_path;
    for (int up = 0; up < 3 && !home.empty(); up++) home = home.substr(0, home.rfind('/'));
    auto root = TargetRoot::open(pid);
    if (!root) return {};
    auto file = root->open_regular(home + "/release", kMaxReleaseBytes, Symlinks::kResolveInRoot);
    if (!file) return {};
    auto text = read_capped(file->fd.get(), kMaxReleaseBytes, "release");
    return text ? release_java_version(*text) : std::string();
}

std::string writer_of(const std::vector<Mapping>& maps, const std::vector<std::string>& arguments) {
    bool libvtscope = false;
    for (const Mapping& m : maps) {
        if (m.path.find(VTSCOPE_REGION_NAME) != std::string::npos) return "vtscope";
        libvtscope = libvtscope || m.path.ends_with("/libvtscope.so");
    }
    if (libvtscope) return "libvtscope";
    for (const std::string& a : arguments)
        if (a.starts_with("-javaagent:") && a.find("opentelemetry-javaagent") != std::string::npos) return "agent";
    return "none";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string simple_name(const std::string& main) {
    size_t dot = main.rfind('.');
    return dot == std::string::npos || main.ends_with(".jar") ? main : main.substr(dot + 1);
}

std::string candidates_text(const std::vector<const JvmProcess*>& jvms) {
    std::string text;
    for (const JvmProcess* j : jvms)
        text += (text.empty() ? "" : ", ") + std::to_string(j->pid) + " (" + terminal_safe(j->main) + ")";
    return text;
}

}  // namespace

std::string java_main(const std::vector<std::string>& arguments) {
    for (size_t i = 1; i < arguments.size(); i++) {
        const std::string& a = arguments[i];
        if (a == "-jar") return i + 1 < arguments.size() ? base_name(arguments[i + 1]) : std::string();
        std::string module;
        if ((a == "-m" || a == "--module") && i + 1 < arguments.size()) module = arguments[i + 1];
        if (a.starts_with("--module=")) module = a.substr(9);
        if (!module.empty()) {
            size_t slash = module.find('/');  // module/class
            return slash == std::string::npos ? module : module.substr(slash + 1);
        }
        if (takes_value(a)) {
            i++;
            continue;
        }
        if (!a.empty() && a[0] != '-' && a[0] != '@') return a;
    }
    return arguments.empty() ? std::string() : base_name(arguments[0]);
}

std::string release_java_version(const std::string& release_text) {
    static constexpr std::string_view kKey = "JAVA_VERSION=\"";
    size_t at = release_text.starts_with(kKey) ? 0 : release_text.find("\n" + std::string(kKey));
    if (at == std::string::npos) return {};
    size_t start = at + (at == 0 ? 0 : 1) + kKey.size();
    size_t end = release_text.find('"', start);
    return end == std::string::npos || end - start > 64 ? std::string() : release_text.substr(start, end - start);
}

std::vector<JvmProcess> find_jvms() {
    std::vector<JvmProcess> jvms;
    DIR* proc = opendir("/proc");
    if (!proc) return jvms;
    const double boot_seconds = std::strtod(read_proc("/proc/uptime").c_str(), nullptr);  // once for all
    while (dirent* entry = readdir(proc)) {
        char* end = nullptr;
        long pid = std::strtol(entry->d_name, &end, 10);
        if (*end != '\0' || pid <= 0 || pid == getpid()) continue;
        auto maps = read_maps(static_cast<pid_t>(pid));
        const Mapping* libjvm = maps ? find_libjvm(*maps) : nullptr;
        if (!libjvm) continue;
        std::string dir = "/proc/" + std::to_string(pid);
        std::vector<std::string> arguments = split_nul(read_proc(dir + "/cmdline"));
        JvmProcess jvm;
        jvm.pid = static_cast<pid_t>(pid);
        jvm.main = java_main(arguments);
        jvm.service_name = service_name_of(arguments, split_nul(read_proc(dir + "/environ")));
        jvm.java_version = java_version_of(jvm.pid, libjvm->path);
        jvm.uptime_seconds = uptime_of(jvm.pid, boot_seconds);
        jvm.writer = writer_of(*maps, arguments);
        jvms.push_back(std::move(jvm));
    }
    closedir(proc);
    std::sort(jvms.begin(), jvms.end(), [](const JvmProcess& a, const JvmProcess& b) { return a.pid < b.pid; });
    return jvms;
}

Expected<pid_t> select_jvm(const std::string& name, const std::vector<JvmProcess>& jvms) {
    std::vector<const JvmProcess*> exact, partial;
    for (const JvmProcess& j : jvms) {
        if (j.main == name || simple_name(j.main) == name || (!j.service_name.empty() && j.service_name == name))
            exact.push_back(&j);
        else if (contains(j.main, name) || contains(j.service_name, name))
            partial.push_back(&j);
    }
    const std::vector<const JvmProcess*>& matches = exact.empty() ? partial : exact;
    if (matches.size() == 1) return matches[0]->pid;
    if (matches.empty())
        return make_error("no JVM matches '" + terminal_safe(name) + "' (vtscope list shows the JVMs on this host)");
    return make_error("'" + terminal_safe(name) + "' matches " + std::to_string(matches.size()) +
                      " JVMs: " + candidates_text(matches) + "; give one with --pid PID");
}

}  // namespace vtscope
