// SPDX-License-Identifier: Apache-2.0
#include "tracer.h"

#include <bpf/bpf.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <vector>

#include "output/json_io.h"

namespace vtscope::bench {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

std::string summary_json_file(const std::string& stem) { return stem + ".tracer.summary.json"; }

std::vector<std::string> tracer_argv(const Options& o, const std::string& config, pid_t pid, const std::string& stem,
                                     const std::string& command) {
    if (auto profile = profile_config(config)) {
        std::vector<std::string> argv = {o.vtscope,        "profile",
                                         "--pid",          std::to_string(pid),
                                         "--hz",           std::to_string(profile->hz),
                                         "--output",       "/dev/null",
                                         "--ready-file",   tracer_ready_file(stem),
                                         "--summary-json", summary_json_file(stem)};
        if (profile->stacks) argv.push_back("--stacks");
        return argv;
    }
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
    return json_number(value) > 0 ? static_cast<unsigned long long>(json_number(value)) : 0;
}

// The counters of a tracer's --summary-json (fields: render_summary_json in consumer/src/core/summary.cpp).
std::string read_summary_json(const std::string& path, TracerSummary* t) {
    if (!fs::exists(path)) return "no summary " + path;
    Json root = parse_json(testing::read_file(path));
    if (!root.is_object()) return "unreadable summary " + path;
    const Json& profile = json_at(root, "profile");  // render_profile_json in consumer/src/output/profile_report.cpp
    t->events = profile.is_object() ? count(json_at(profile, "samples")) : count(json_at(root, "events"));
    t->ok = count(json_at(root, "delivered", "ok"));
    t->lost = count(json_at(root, "lost"));
    t->inserted = count(json_at(root, "mappings", "inserted"));  // mappings is null without a lifecycle channel
    t->deleted = count(json_at(root, "mappings", "deleted"));
    t->otlp_records = count(json_at(root, "otlp", "records"));  // otlp is null without --otlp
    t->otlp_delivered = count(json_at(root, "otlp", "delivered"));
    t->otlp_dropped = count(json_at(root, "otlp", "dropped"));
    t->otlp_queue_full = count(json_at(root, "otlp", "dropped_queue_full"));
    return "";
}

}  // namespace

std::optional<ProfileConfig> profile_config(const std::string& config) {
    static const std::regex name(R"(profile-(\d+)(-stacks)?)");
    std::smatch m;
    if (!std::regex_match(config, m, name)) return std::nullopt;
    return ProfileConfig{std::stoi(m[1]), m[2].matched};
}

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
    std::string error = read_summary_json(summary_json_file(stem), t);
    // How it ended says why (a signal: killed after not stopping in time, or a crash).
    if (!error.empty()) error += " (vtscope exit status " + std::to_string(t->exit_status) + ")";
    return error;
}

std::map<uint32_t, ProgramStats> bpf_program_stats() {
    std::map<uint32_t, ProgramStats> out;
    uint32_t id = 0;
    while (bpf_prog_get_next_id(id, &id) == 0) {
        int fd = bpf_prog_get_fd_by_id(id);
        if (fd < 0) continue;
        bpf_prog_info info{};
        uint32_t length = sizeof(info);
        if (bpf_obj_get_info_by_fd(fd, &info, &length) == 0) out[id] = {info.name, info.run_cnt, info.run_time_ns};
        close(fd);
    }
    return out;
}

ProgramDelta busiest_program(const std::map<uint32_t, ProgramStats>& before,
                             const std::map<uint32_t, ProgramStats>& after) {
    ProgramDelta d;
    for (const auto& [id, a] : after) {
        auto b = before.find(id);
        if (b == before.end() || a.runs <= b->second.runs) continue;
        double runs = static_cast<double>(a.runs - b->second.runs);
        double run_time = static_cast<double>(a.run_time_ns - b->second.run_time_ns);
        d.all_run_time_ns += run_time;
        if (std::isnan(d.runs) || runs > d.runs) {
            d.name = a.name;
            d.runs = runs;
            d.run_time_ns = run_time;
        }
    }
    return d;
}

std::vector<uint32_t> programs_of(pid_t pid) {
    std::vector<uint32_t> ids;
    std::error_code ec;
    std::string dir = "/proc/" + std::to_string(pid);
    for (const auto& fd : fs::directory_iterator(dir + "/fd", ec)) {
        std::string info = testing::read_file(dir + "/fdinfo/" + fd.path().filename().string());
        auto at = info.find("prog_id:");
        if (at != std::string::npos) ids.push_back(static_cast<uint32_t>(std::stoul(info.substr(at + 8))));
    }
    return ids;
}

ProgramCost::ProgramCost() : stats_fd_(bpf_enable_stats(BPF_STATS_RUN_TIME)) {}

ProgramCost::~ProgramCost() {
    if (stats_fd_ >= 0) close(stats_fd_);
}

void ProgramCost::start(pid_t tracer, double target_cpu_s) {
    target_cpu0_ = target_cpu_s;
    std::map<uint32_t, ProgramStats> all = bpf_program_stats();
    programs0_.clear();
    for (uint32_t id : programs_of(tracer))
        if (auto it = all.find(id); it != all.end()) programs0_[id] = it->second;
}

void ProgramCost::stop(double target_cpu_s, TracerSummary* t) const {
    if (stats_fd_ < 0 || std::isnan(target_cpu0_) || programs0_.empty()) return;  // not measured
    std::map<uint32_t, ProgramStats> now = bpf_program_stats(), own;
    for (const auto& [id, before] : programs0_)
        if (auto it = now.find(id); it != now.end()) own[id] = it->second;
    ProgramDelta d = busiest_program(programs0_, own);
    t->program_runs = d.runs;
    t->program_run_time_ns = d.all_run_time_ns;
    t->target_cpu_s = target_cpu_s - target_cpu0_;
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
