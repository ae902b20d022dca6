#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "bench_options.h"
#include "workload_output.h"

using namespace vtscope::bench;

TEST(WorkloadOutput, DemoLineWithItsCpuTime) {
    std::string out = "trace_id=ab path=/order/1 status=200\n# demo requests=2000 nanos=5000000000 cpu_ns=8000000000\n";
    auto load = parse_demo_load(out);
    ASSERT_TRUE(load);
    EXPECT_DOUBLE_EQ(load->requests, 2000);
    EXPECT_DOUBLE_EQ(load->nanos, 5e9);
    EXPECT_DOUBLE_EQ(load->cpu_ns, 8e9);
    EXPECT_DOUBLE_EQ(demo_requests_per_s(out), 400);
    EXPECT_DOUBLE_EQ(demo_cpu_us_per_request(out), 4000);  // 8 s of CPU over 2000 requests
}

TEST(WorkloadOutput, DemoLineOfAnOlderServiceHasNoCpuTime) {
    std::string out = "# demo requests=300 nanos=1500000000\n";
    EXPECT_DOUBLE_EQ(demo_requests_per_s(out), 200);
    EXPECT_TRUE(std::isnan(demo_cpu_us_per_request(out)));
    EXPECT_TRUE(std::isnan(demo_requests_per_s("no such line\n")));
    EXPECT_TRUE(std::isnan(demo_requests_per_s("# demo requests=300 nanos=0\n")));
    EXPECT_TRUE(std::isnan(demo_cpu_us_per_request("")));
}

TEST(WorkloadOutput, CpuCostLine) {
    auto r = parse_cpu_cost("# cpucost ready\ntransition cpu_ns_per_unit 512.25 wall_ns_per_unit 1024.50\n");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->workload, "transition");
    EXPECT_DOUBLE_EQ(r->cpu_ns_per_unit, 512.25);
    EXPECT_DOUBLE_EQ(r->wall_ns_per_unit, 1024.5);
    EXPECT_FALSE(parse_cpu_cost("# cpucost ready\n"));
    EXPECT_FALSE(parse_cpu_cost("transition cpu_ns_per_unit 0.00 wall_ns_per_unit 3.00\n"));
}

namespace {

bool parse(std::vector<std::string> args, Options* o) {
    args.insert(args.begin(), "vtscope-bench");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    return parse_options(static_cast<int>(argv.size()), argv.data(), o);
}

}  // namespace

TEST(BenchOptions, PartsConfigurationsAndTheBuildToCompareWith) {
    Options o;
    ASSERT_TRUE(parse({"--profile-parts", "cpu,demo", "--profile-configs", "profile-99,profile-999-stacks",
                       "--vtscope-before", "/old/vtscope", "--demo-warm-up", "300", "--block-parts", "demo"},
                      &o));
    EXPECT_EQ(o.profile_parts, (std::vector<std::string>{"cpu", "demo"}));
    EXPECT_TRUE(selected(o.profile_parts, "cpu"));
    EXPECT_FALSE(selected(o.profile_parts, "jmh"));
    EXPECT_TRUE(selected(o.profile_configs, "profile-999-stacks"));
    EXPECT_FALSE(selected(o.profile_configs, "profile-99-stacks"));
    EXPECT_EQ(o.vtscope_before, "/old/vtscope");
    EXPECT_EQ(o.demo_warmup, 300);
    EXPECT_FALSE(selected(o.block_parts, "switches"));
    Options d;
    ASSERT_TRUE(parse({}, &d));
    EXPECT_TRUE(selected(d.profile_parts, "compare"));  // nothing listed: every part
    EXPECT_EQ(d.demo_warmup, 2000);
}

TEST(BenchOptions, UnknownPartsAndConfigurationsAreRejected) {
    Options o;
    EXPECT_FALSE(parse({"--profile-parts", "cpu,jfr"}, &o));
    EXPECT_FALSE(parse({"--profile-configs", "profile-98"}, &o));
    EXPECT_FALSE(parse({"--block-parts", "parkunpark"}, &o));
    EXPECT_FALSE(parse({"--demo-warm-up", "0"}, &o));
}
