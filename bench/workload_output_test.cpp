// SPDX-License-Identifier: Apache-2.0
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

TEST(WorkloadOutput, DemoBatchLines) {
    std::string out =
        "# demo batch=1 requests=2000 nanos=4000000000 cpu_ns=2600000000 requests_per_s=500.0 "
        "cpu_us_per_request=1300.00 failed=0\n"
        "# demo batch=12 requests=2000 nanos=5000000000 cpu_ns=3000000000 requests_per_s=400.0 "
        "cpu_us_per_request=1500.00 failed=3\n";
    double failed = -1;
    auto first = parse_demo_batch(out, 1, &failed);
    ASSERT_TRUE(first);
    EXPECT_DOUBLE_EQ(first->requests, 2000);
    EXPECT_DOUBLE_EQ(first->nanos, 4e9);
    EXPECT_DOUBLE_EQ(first->cpu_ns, 2.6e9);
    EXPECT_DOUBLE_EQ(failed, 0);
    auto twelfth = parse_demo_batch(out, 12, &failed);
    ASSERT_TRUE(twelfth);
    EXPECT_DOUBLE_EQ(twelfth->nanos, 5e9);
    EXPECT_DOUBLE_EQ(failed, 3);
    EXPECT_FALSE(parse_demo_batch(out, 2));  // no batch 2: batch=12 is another
    EXPECT_FALSE(parse_demo_batch("# demo requests=2000 nanos=4000000000 cpu_ns=1\n", 1));
    EXPECT_FALSE(parse_demo_batch("# demo batch=1 requests=2000 nanos=0 cpu_ns=1 failed=0\n", 1));
    // The single load's line is not a batch's, nor a batch line the single load's.
    EXPECT_TRUE(std::isnan(demo_requests_per_s(out)));
}

TEST(WorkloadOutput, CpuCostPhaseLines) {
    std::string out =
        "# cpucost ready\n# cpucost phase=1 cpu_ns_per_unit 251.125 wall_ns_per_unit 260.500\n"
        "# cpucost phase=10 cpu_ns_per_unit 249.000 wall_ns_per_unit 301.000 cpu_ns 498000000\n";
    auto one = parse_cpu_cost_phase(out, 1);
    ASSERT_TRUE(one);
    EXPECT_DOUBLE_EQ(one->cpu_ns_per_unit, 251.125);
    EXPECT_DOUBLE_EQ(one->wall_ns_per_unit, 260.5);
    auto ten = parse_cpu_cost_phase(out, 10);
    ASSERT_TRUE(ten);
    EXPECT_DOUBLE_EQ(ten->wall_ns_per_unit, 301);
    EXPECT_DOUBLE_EQ(ten->cpu_ns, 498000000);
    EXPECT_TRUE(std::isnan(one->cpu_ns));  // an older line without the total
    EXPECT_FALSE(parse_cpu_cost_phase(out, 2));
    EXPECT_FALSE(parse_cpu_cost_phase(out, 0));
    EXPECT_FALSE(parse_cpu_cost(out));  // the single JVM's median line is another
    EXPECT_FALSE(parse_cpu_cost_phase("# cpucost phase=1 cpu_ns_per_unit 0 wall_ns_per_unit 3\n", 1));
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

TEST(BenchOptions, AlternatingParts) {
    Options o;
    ASSERT_TRUE(
        parse({"--profile-parts", "alternate", "--block-parts", "alternate", "--alternate-cycles", "5",
               "--alternate-warm-up", "0", "--alternate-rounds", "20", "--alternate-gap", "250", "--alternate-settle"},
              &o));
    EXPECT_TRUE(selected(o.profile_parts, "alternate"));
    EXPECT_FALSE(selected(o.profile_parts, "demo"));
    EXPECT_TRUE(selected(o.block_parts, "alternate"));
    EXPECT_EQ(o.alternate_cycles, 5);
    EXPECT_EQ(o.alternate_warm_up, 0);
    EXPECT_EQ(o.alternate_rounds, 20);
    EXPECT_EQ(o.alternate_gap_ms, 250);
    EXPECT_TRUE(o.alternate_settle);
    Options samplers;
    EXPECT_TRUE(parse(
        {"--profile-configs", "sampler-99,sampler-99-stacks,sampler-999-stacks,sampler-9999-stacks,control-bpftrace"},
        &samplers));
    Options unknown;
    EXPECT_FALSE(parse({"--profile-configs", "sampler-499"}, &unknown));
    EXPECT_FALSE(parse({"--profile-configs", "control"}, &unknown));
    Options d;
    ASSERT_TRUE(parse({}, &d));
    EXPECT_TRUE(selected(d.block_parts, "alternate"));
    EXPECT_EQ(d.alternate_cycles, 6);
    EXPECT_EQ(d.alternate_warm_up, 4);
    EXPECT_EQ(d.alternate_gap_ms, 0);
    EXPECT_FALSE(d.alternate_settle);
    Options bad;
    EXPECT_FALSE(parse({"--alternate-cycles", "0"}, &bad));
    EXPECT_FALSE(parse({"--alternate-warm-up", "-1"}, &bad));
    EXPECT_FALSE(parse({"--alternate-rounds", "0"}, &bad));
    EXPECT_FALSE(parse({"--alternate-gap", "-1"}, &bad));
    EXPECT_FALSE(parse({"--alternate-gap", "60001"}, &bad));
}

TEST(BenchOptions, UnknownPartsAndConfigurationsAreRejected) {
    Options o;
    EXPECT_FALSE(parse({"--profile-parts", "cpu,jfr"}, &o));
    EXPECT_FALSE(parse({"--profile-configs", "profile-98"}, &o));
    EXPECT_FALSE(parse({"--block-parts", "parkunpark"}, &o));
    EXPECT_FALSE(parse({"--demo-warm-up", "0"}, &o));
}

TEST(BenchOptions, BeforeConfigurationsNameTheConfigurationTheyRepeat) {
    EXPECT_EQ(before_config("profile-999-stacks"), "profile-999-stacks-before");
    EXPECT_TRUE(is_before(before_config("block")));
    EXPECT_FALSE(is_before("profile-99-stacks"));
    EXPECT_EQ(without_before(before_config("profile-99-stacks")), "profile-99-stacks");
    EXPECT_EQ(without_before("sampler-999-stacks"), "sampler-999-stacks");
}
