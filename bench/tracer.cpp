#include "tracer.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <vector>

#include "json.h"

namespace vtscope::bench {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

std::string summary_json_file(const std::string& stem) { return stem + ".tracer.summary.json"; }

std::vector<std::string> tracer_argv(const Options& o, const std::string& config, pid_t pid, const std::string& stem,
                                     const std::string& command) {
    std::vector<std::string> argv = {o.vtscope,        command,
                                     "--pid",          std::to_string(pid),
                                     "--output",       "/dev/null",
                                     "--ready-file",   tracer_ready_file(stem),
                                     "--summary-json", summary_json_file(stem)};
    if (command != "block") {  // block traces sched_switch, not syscalls
        argv.push_back("--syscalls");
        argv.push_back("write");
    }
    if (config == "probes+consumer") {
        argv.push_back("--identity");
        argv.push_back("lifecycle");
    }
    return argv;
}

unsigned long long count(const Json& value) {
    return value.is_number() && value.number > 0 ? static_cast<unsigned long long>(value.number) : 0;
}

// The counters of a tracer's --summary-json (fields: render_summary_json in consumer/src/summary.cpp).
std::string read_summary_json(const std::string& path, TracerSummary* t) {
    if (!fs::exists(path)) return "no summary " + path;
    Json root;
    std::string error;
    if (!parse_json(testing::read_file(path), &root, &error) || root.type != Json::Type::Object)
        return "unreadable summary " + path + ": " + error;
    t->events = count(root["events"]);
    t->ok = count(root["delivered"]["ok"]);
    t->lost = count(root["lost"]);
    t->inserted = count(root["mappings"]["inserted"]);  // mappings is null without a lifecycle channel
    t->deleted = count(root["mappings"]["deleted"]);
    t->otlp_records = count(root["otlp"]["records"]);  // otlp is null without --otlp
    t->otlp_delivered = count(root["otlp"]["delivered"]);
    t->otlp_dropped = count(root["otlp"]["dropped"]);
    t->otlp_queue_full = count(root["otlp"]["dropped_queue_full"]);
    return "";
}

}  // namespace

std::string tracer_ready_file(const std::string& stem) { return stem + ".ready"; }

testing::Child start_tracer(const Options& o, const std::string& config, pid_t pid, const std::string& stem,
                            const std::string& command, std::optional<int> cpu, const std::vector<std::string>& extra) {
    fs::remove(tracer_ready_file(stem));
    fs::remove(summary_json_file(stem));
    std::vector<std::string> argv = tracer_argv(o, config, pid, stem, command);
    argv.insert(argv.end(), extra.begin(), extra.end());
    return testing::Child::start(argv, stem + ".tracer.out", stem + ".tracer.err", cpu);
}

void finish_process(testing::Child& process, const std::string& stem, TracerSummary* t) {
    t->present = true;
    t->exit_status = process.stop(5s, 10s);
    t->cpu_seconds = process.cpu_seconds();
    t->summary = testing::read_file(stem + ".tracer.err");
}

std::string finish_tracer(testing::Child& tracer, const std::string& stem, TracerSummary* t) {
    finish_process(tracer, stem, t);
    return read_summary_json(summary_json_file(stem), t);
}

double process_cpu_seconds(pid_t pid) {
    std::string stat = testing::read_file("/proc/" + std::to_string(pid) + "/stat");
    size_t close = stat.rfind(')');
    if (close == std::string::npos) return NAN;
    std::vector<std::string> fields = split(stat.substr(close + 2), ' ');
    if (fields.size() < 13) return NAN;
    double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
    return (std::stod(fields[11]) + std::stod(fields[12])) / ticks;  // fields 14, 15 of the whole line
}

}  // namespace vtscope::bench
