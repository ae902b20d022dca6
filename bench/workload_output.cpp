// SPDX-License-Identifier: Apache-2.0
#include "workload_output.h"

#include <cmath>
#include <regex>

namespace vtscope::bench {

std::optional<DemoLoad> parse_demo_load(const std::string& output) {
    static const std::regex line(R"(# demo requests=(\d+) nanos=(\d+)(?: cpu_ns=(\d+))?)");
    std::smatch m;
    if (!std::regex_search(output, m, line)) return std::nullopt;
    DemoLoad load;
    load.requests = std::stod(m[1]);
    load.nanos = std::stod(m[2]);
    load.cpu_ns = m[3].matched ? std::stod(m[3]) : NAN;
    if (load.requests <= 0 || load.nanos <= 0) return std::nullopt;
    return load;
}

double demo_requests_per_s(const std::string& output) {
    auto load = parse_demo_load(output);
    return load ? load->requests / (load->nanos / 1e9) : NAN;
}

double demo_cpu_us_per_request(const std::string& output) {
    auto load = parse_demo_load(output);
    return load && load->cpu_ns > 0 ? load->cpu_ns / 1e3 / load->requests : NAN;
}

std::optional<CpuCostResult> parse_cpu_cost(const std::string& output) {
    static const std::regex line(R"((^|\n)(\w+) cpu_ns_per_unit ([0-9.]+) wall_ns_per_unit ([0-9.]+))");
    std::smatch m;
    if (!std::regex_search(output, m, line)) return std::nullopt;
    CpuCostResult r{m[2], std::stod(m[3]), std::stod(m[4])};
    if (!(r.cpu_ns_per_unit > 0) || !(r.wall_ns_per_unit > 0)) return std::nullopt;
    return r;
}

std::optional<DemoLoad> parse_demo_batch(const std::string& output, int batch, double* failed) {
    const std::regex line("(^|\n)# demo batch=" + std::to_string(batch) +
                          R"( requests=(\d+) nanos=(\d+) cpu_ns=(\d+)[^\n]* failed=(\d+))");
    std::smatch m;
    if (!std::regex_search(output, m, line)) return std::nullopt;
    DemoLoad load{std::stod(m[2]), std::stod(m[3]), std::stod(m[4])};
    if (load.requests <= 0 || load.nanos <= 0 || load.cpu_ns <= 0) return std::nullopt;
    if (failed) *failed = std::stod(m[5]);
    return load;
}

std::optional<CpuCostResult> parse_cpu_cost_phase(const std::string& output, int phase) {
    const std::regex line("(^|\n)# cpucost phase=" + std::to_string(phase) +
                          R"( cpu_ns_per_unit ([0-9.]+) wall_ns_per_unit ([0-9.]+)(?: cpu_ns (\d+))?)");
    std::smatch m;
    if (!std::regex_search(output, m, line)) return std::nullopt;
    CpuCostResult r{"phase " + std::to_string(phase), std::stod(m[2]), std::stod(m[3])};
    if (m[4].matched) r.cpu_ns = std::stod(m[4]);
    if (!(r.cpu_ns_per_unit > 0) || !(r.wall_ns_per_unit > 0)) return std::nullopt;
    return r;
}

}  // namespace vtscope::bench
