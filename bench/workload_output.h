// SPDX-License-Identifier: Apache-2.0
// The result lines the bench's workloads print, parsed: io.vtscope.workloads.DemoService's
// "# demo requests=N nanos=T cpu_ns=C" and io.vtscope.bench.CpuCost's
// "WORKLOAD cpu_ns_per_unit X wall_ns_per_unit Y", and their per-batch and per-phase lines.
#pragma once

#include <cmath>
#include <optional>
#include <string>

namespace vtscope::bench {

// The demo service's measured load: its requests, wall time and the process's CPU time over it
// (CLOCK_PROCESS_CPUTIME_ID, every thread; NaN from a service that does not print it).
struct DemoLoad {
    double requests = 0;
    double nanos = 0;
    double cpu_ns = 0;
};
std::optional<DemoLoad> parse_demo_load(const std::string& output);

// Requests per second over the load's wall time; NaN without the line.
double demo_requests_per_s(const std::string& output);

// The process's CPU time per request in microseconds; NaN without the line or its cpu_ns.
double demo_cpu_us_per_request(const std::string& output);

// CpuCost's medians over its measured rounds: the process's CPU ns and wall ns per unit.
struct CpuCostResult {
    std::string workload;
    double cpu_ns_per_unit = 0;
    double wall_ns_per_unit = 0;
    double cpu_ns = NAN;  // the phase's total CPU (CpuCost --phases prints it); NaN when not printed
};
std::optional<CpuCostResult> parse_cpu_cost(const std::string& output);

// DemoService --batches: the result line of batch B, "# demo batch=B requests=N nanos=T cpu_ns=C ...
// failed=F" (requests without a 200 response in *failed when given); nullopt without it.
std::optional<DemoLoad> parse_demo_batch(const std::string& output, int batch, double* failed = nullptr);

// CpuCost --phases: phase P's line, "# cpucost phase=P cpu_ns_per_unit X wall_ns_per_unit Y" (the
// phase's totals); nullopt without it.
std::optional<CpuCostResult> parse_cpu_cost_phase(const std::string& output, int phase);

}  // namespace vtscope::bench
