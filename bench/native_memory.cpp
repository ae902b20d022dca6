// SPDX-License-Identifier: Apache-2.0
#include "native_memory.h"

#include <cstdio>
#include <filesystem>
#include <regex>

#include "process_runner.h"

namespace vtscope::bench {

namespace fs = std::filesystem;

namespace {

MemoryRun run_memory(const Options& o, const std::string& config, int runs) {
    MemoryRun m;
    m.config = config;
    for (int i = 0; i < runs; i++) {
        std::vector<std::string> argv = {o.java_home + "/bin/java", "-XX:NativeMemoryTracking=summary", "-Xms512m",
                                         "-Xmx512m"};
        if (config == "probes") argv.push_back("-agentpath:" + o.native_lib + "=probes");
        argv.insert(argv.end(), {"--enable-native-access=ALL-UNNAMED", "-Dvtscope.library.path=" + o.native_lib, "-cp",
                                 o.workloads_classpath, "io.vtscope.workloads.NativeMemoryCost", "--threads", "10000"});
        if (config == "vtt") argv.push_back("--initialize");           // dormant: nothing registered
        if (config == "vtt-registered") argv.push_back("--register");  // every thread tracked
        std::string stem = (fs::path(o.out) / "logs" / ("memory-" + config + "-" + std::to_string(i))).string();
        int status = testing::Child::start(argv, stem + ".out", stem + ".err").wait();
        std::smatch match;
        std::string text = testing::read_file(stem + ".out");
        static const std::regex bytes(R"("bytes_per_live_thread":(-?[0-9.]+))");
        if (status == 0 && std::regex_search(text, match, bytes)) m.bytes_per_thread.push_back(std::stod(match[1]));
    }
    return m;
}

}  // namespace

std::vector<MemoryRun> run_native_memory(const Options& o) {
    std::vector<MemoryRun> memory;
    std::fprintf(stderr, "vtscope-bench: native memory per live virtual thread (NMT)\n");
    for (const char* c : {"baseline", "vtt", "vtt-registered", "probes"})
        memory.push_back(run_memory(o, c, o.quick ? 1 : 3));
    return memory;
}

}  // namespace vtscope::bench
