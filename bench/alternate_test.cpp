// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "alternate.h"

using namespace vtscope::bench;

namespace {
constexpr int O = kPhaseOff;
}

TEST(Alternate, WarmUpAlternatesThroughTheConfigurations) {
    EXPECT_EQ(alternate_warm_up(2, 5), (std::vector<int>{O, 0, O, 1, O}));
    EXPECT_EQ(alternate_warm_up(1, 4), (std::vector<int>{O, 0, O, 0}));
    EXPECT_TRUE(alternate_warm_up(3, 0).empty());
}

TEST(Alternate, SequenceIsAbbaBlocksRotatedEachCycle) {
    // Three configurations: the closing off of a block opens the next; the order rotates.
    EXPECT_EQ(alternate_sequence(3, 2), (std::vector<int>{O, 0, 0, O, 1, 1, O, 2, 2, O, 1, 1, O, 2, 2, O, 0, 0, O}));
    // One configuration: every block has off phases of its own.
    EXPECT_EQ(alternate_sequence(1, 3), (std::vector<int>{O, 0, 0, O, O, 0, 0, O, O, 0, 0, O}));
    // Two: the rotation puts 1 after 1 between the cycles, which gets an off phase of its own too.
    EXPECT_EQ(alternate_sequence(2, 2), (std::vector<int>{O, 0, 0, O, 1, 1, O, O, 1, 1, O, 0, 0, O}));
    EXPECT_TRUE(alternate_sequence(0, 2).empty());
    EXPECT_TRUE(alternate_sequence(2, 0).empty());
}

TEST(Alternate, NoOffPhaseIsPairedTwiceWithinAConfiguration) {
    for (int configs = 1; configs <= 5; configs++) {
        std::vector<int> seq = alternate_sequence(configs, 4);
        std::vector<double> index(seq.size());
        for (size_t i = 0; i < seq.size(); i++) index[i] = static_cast<double>(i);
        for (int c = 0; c < configs; c++) {
            PhasePairs p = adjacent_pairs(seq, index, c);
            EXPECT_EQ(p.on.size(), 8u) << configs << " configurations, config " << c;
            std::vector<double> offs = p.off;
            std::sort(offs.begin(), offs.end());
            EXPECT_EQ(std::adjacent_find(offs.begin(), offs.end()), offs.end()) << configs << " configurations";
            for (size_t k = 0; k < p.on.size(); k++) {
                EXPECT_EQ(std::fabs(p.on[k] - p.off[k]), 1.0);  // next to each other
                EXPECT_EQ(seq[static_cast<size_t>(p.off[k])], O);
            }
        }
    }
}

TEST(Alternate, PairsTheAdjacentOffPhase) {
    std::vector<int> seq = {O, 0, 0, O, 1, 1, O};
    std::vector<double> v = {100, 110, 121, 110, 99, 88, 80};
    PhasePairs zero = adjacent_pairs(seq, v, 0);
    EXPECT_EQ(zero.on, (std::vector<double>{110, 121}));
    EXPECT_EQ(zero.off, (std::vector<double>{100, 110}));
    PhasePairs one = adjacent_pairs(seq, v, 1);
    EXPECT_EQ(one.on, (std::vector<double>{99, 88}));
    EXPECT_EQ(one.off, (std::vector<double>{110, 80}));
    EXPECT_TRUE(adjacent_pairs(seq, v, O).on.empty());
    // An on phase with no off phase next to it has no pair.
    EXPECT_TRUE(adjacent_pairs({0, 0, 0}, {1, 2, 3}, 0).on.empty());
}

TEST(Alternate, ChangeIsThePairedChangeAndCancelsALinearDrift) {
    // The machine drifts by +1 per phase; the consumer adds 2% to every phase it is attached in.
    std::vector<int> seq = alternate_sequence(1, 6);
    std::vector<double> v(seq.size());
    for (size_t i = 0; i < seq.size(); i++) v[i] = (1000 + static_cast<double>(i)) * (seq[i] == O ? 1 : 1.02);
    Summary s = alternate_change(seq, v, 0);
    EXPECT_EQ(s.n, 12u);
    EXPECT_NEAR(s.mean, 2.0, 0.01);  // the drift's +0.1% and -0.1% cancel
    EXPECT_LT(s.error, 0.15);
    // The 95% interval by default: t(0.975, 11) * sd / sqrt(12).
    PhasePairs p = adjacent_pairs(seq, v, 0);
    Summary same = paired_change(p.on, p.off, 0.95);
    EXPECT_DOUBLE_EQ(s.mean, same.mean);
    EXPECT_DOUBLE_EQ(s.error, same.error);
    // A failed phase (NaN) drops its pair only.
    v[1] = NAN;
    EXPECT_EQ(alternate_change(seq, v, 0).n, 11u);
}

TEST(Alternate, CostPerEventIsTheAddedCpuOverTheOnPhasesEvents) {
    // Every off phase takes 1 ms of CPU per unit; an on phase 1% more (1.01 ms), 1 s of CPU in all
    // with 5,000 samples of the target: a change of 1% at 5,000 samples per CPU-second, 2 us each.
    std::vector<int> seq = alternate_sequence(1, 4);
    std::vector<double> cpu_per_unit(seq.size()), cpu_ns(seq.size()), events(seq.size());
    for (size_t i = 0; i < seq.size(); i++) {
        bool on = seq[i] != O;
        cpu_per_unit[i] = on ? 1.01e6 : 1e6;
        cpu_ns[i] = on ? 1e9 : 0.99e9;
        events[i] = on ? 5000 : 0;
    }
    Summary s = cost_per_event(seq, cpu_per_unit, cpu_ns, events, 0);
    EXPECT_EQ(s.n, 8u);
    EXPECT_NEAR(s.mean, 2000.0, 1e-6);
    EXPECT_NEAR(s.error, 0.0, 1e-6);
    // A cost per sample c means c * hz / 1e9 of the target's CPU: 2 us at 99 Hz is 0.0198%.
    EXPECT_NEAR(100 * s.mean * 99 / 1e9, 0.0198, 1e-9);
    // An on phase without events, or with a failed measure, drops its pair only.
    events[1] = 0;
    cpu_per_unit[2] = NAN;
    EXPECT_EQ(cost_per_event(seq, cpu_per_unit, cpu_ns, events, 0).n, 6u);
    // Phases that cost nothing give 0, and the off phases have no cost of their own.
    std::vector<double> flat(seq.size(), 1e6);
    EXPECT_NEAR(cost_per_event(seq, flat, cpu_ns, events, 0).mean, 0.0, 1e-9);
    EXPECT_EQ(cost_per_event(seq, cpu_per_unit, cpu_ns, events, O).n, 0u);
}

TEST(Alternate, AcrossJvmsIsTheSpreadOfTheJvmsOwnMeans) {
    // Each JVM's pairs are tight, but the JVMs disagree: the interval is that of their three means
    // (t with 2 degrees of freedom), not of the pairs; a JVM with fewer than two pairs is left out.
    std::vector<Summary> per_jvm = {
        {100, 1.8, 5.0, 0.9}, {200, 3.8, 5.0, 0.7}, {1, 50.0, 0.0, NAN}, {150, 2.4, 5.0, 0.8}};
    Summary s = across_jvms(per_jvm);
    EXPECT_EQ(s.n, 3u);
    EXPECT_NEAR(s.mean, 8.0 / 3, 1e-9);
    EXPECT_NEAR(s.stddev, 1.026320, 1e-5);
    EXPECT_NEAR(s.error, 4.302653 * 1.026320 / std::sqrt(3.0), 1e-4);
    // One JVM: a mean without an interval.
    Summary one = across_jvms({{100, 2.0, 5.0, 0.9}});
    EXPECT_EQ(one.n, 1u);
    EXPECT_TRUE(std::isnan(one.error));
}
