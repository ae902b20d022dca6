// SPDX-License-Identifier: Apache-2.0
// The HotSpot JVMs on the host that vtscope could observe (`vtscope list`), and the one a name
// selects (`--pid NAME`). A JVM is a process that maps libjvm.so, as the OpenTelemetry eBPF
// profiler finds them. Everything here comes from /proc and from files opened inside each
// target's own root: the target wrote its command line, environment and JDK, so every string is
// bounded here and made safe where it is printed.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "core/expected.h"

namespace vtscope {

struct JvmProcess {
    pid_t pid = 0;
    std::string main;          // the main class, or the jar's file name (-jar), as the target wrote it
    std::string service_name;  // OTEL_SERVICE_NAME or -Dotel.service.name, empty when neither is set
    std::string java_version;  // JAVA_VERSION of its JDK's release file, empty when unknown
    double uptime_seconds = 0;
    // Whether a context writer is there: "vtscope" (a record region is mapped: a writer has
    // published), "agent" (an OpenTelemetry Java agent, no region yet: the extension is missing
    // or no span was made current yet), "none".
    std::string writer;
};

// The main class or jar of a java command line (its arguments, argv[0] first): -jar's file name,
// -m's class (or module), else the first argument that is not an option or an option's value.
std::string java_main(const std::vector<std::string>& arguments);

// JAVA_VERSION="..." of a JDK release file's text, empty when absent.
std::string release_java_version(const std::string& release_text);

// Every JVM on the host, by pid (processes that exit while they are read are left out).
std::vector<JvmProcess> find_jvms();

// The one JVM of jvms that `name` selects: a main class (full or simple name), a jar's file name
// or a service name equal to it, else the only one whose main or service name contains it. None,
// or more than one, is an error that lists the candidates.
Expected<pid_t> select_jvm(const std::string& name, const std::vector<JvmProcess>& jvms);

}  // namespace vtscope
