// SPDX-License-Identifier: Apache-2.0
// vtscope-otlp-check LOCAL.jsonl COLLECTOR.jsonl [--traces SERVICE_OUT]: `make demo-otlp`'s
// verdict. Compares the multiset of (trace id, span id, syscall, bytes) of vtscope's own JSON
// lines with the log records the Collector's file exporter wrote, and with --traces counts how
// many of the demo service's request trace ids (its "trace_id=..." lines) the Collector holds.
// Exit 0 when the multisets are equal (and every request trace id is there), 1 otherwise.
#include <cstdio>
#include <set>
#include <string>

#include "otlp_records.h"
#include "process_runner.h"

using namespace vtscope::testing;

int main(int argc, char** argv) {
    if (argc != 3 && !(argc == 5 && std::string(argv[3]) == "--traces")) {
        std::fprintf(stderr, "usage: vtscope-otlp-check LOCAL.jsonl COLLECTOR.jsonl [--traces SERVICE_OUT]\n");
        return 2;
    }
    size_t bad = 0;
    auto local = local_keys(read_lines(argv[1]), &bad);
    CollectorLogs logs = collector_logs(read_lines(argv[2]));
    bool equal = local == logs.keys && bad == 0 && logs.bad_lines == 0;
    std::printf("otlp-check: vtscope lines %zu, Collector log records %zu: %s\n", local.size(), logs.keys.size(),
                equal ? "the same multiset of (trace id, span id, syscall, bytes)" : "DIFFERENT");
    if (bad || logs.bad_lines)
        std::printf("otlp-check: %zu local and %zu Collector lines do not parse\n", bad, logs.bad_lines);
    bool traces_ok = true;
    if (argc == 5) {
        std::set<std::string> exported;
        for (const OtlpKey& k : logs.keys) exported.insert(std::get<0>(k));
        size_t served = 0, found = 0;
        for (const std::string& line : read_lines(argv[4])) {
            if (line.rfind("trace_id=", 0) != 0) continue;
            served++;
            std::string id =
                line.substr(9, line.find(' ') == std::string::npos ? std::string::npos : line.find(' ') - 9);
            if (exported.count(id)) found++;
        }
        traces_ok = served > 0 && found == served;
        std::printf("otlp-check: %zu of %zu request trace ids are in the Collector's log records\n", found, served);
    }
    if (!logs.example.empty())
        std::printf("otlp-check: a log record as the Collector wrote it:\n%s\n", logs.example.c_str());
    return equal && traces_ok ? 0 : 1;
}
