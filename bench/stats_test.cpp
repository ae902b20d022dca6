// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cmath>

#include "stats.h"

using namespace vtscope::bench;

// Reference quantiles: R's qt(p, df) / standard tables.
TEST(Stats, StudentTQuantileMatchesTables) {
    EXPECT_NEAR(student_t_quantile(0.9995, 1), 636.6192, 1e-3);
    EXPECT_NEAR(student_t_quantile(0.9995, 4), 8.610302, 1e-5);
    EXPECT_NEAR(student_t_quantile(0.9995, 9), 4.780913, 1e-5);
    EXPECT_NEAR(student_t_quantile(0.9995, 19), 3.883406, 1e-5);
    EXPECT_NEAR(student_t_quantile(0.9995, 29), 3.659405, 1e-5);
    EXPECT_NEAR(student_t_quantile(0.975, 10), 2.228139, 1e-5);
    EXPECT_NEAR(student_t_quantile(0.95, 2), 2.919986, 1e-5);
    EXPECT_NEAR(student_t_quantile(0.9995, 1e7), 3.290527, 1e-4);  // the normal limit
    EXPECT_NEAR(student_t_quantile(0.0005, 9), -4.780913, 1e-5);
    EXPECT_EQ(student_t_quantile(0.5, 3), 0);
    EXPECT_TRUE(std::isnan(student_t_quantile(1.0, 3)));
    EXPECT_TRUE(std::isnan(student_t_quantile(0.9, 0)));
}

TEST(Stats, StudentTCdfIsTheInverse) {
    for (double df : {1.0, 2.0, 5.0, 17.0, 100.0})
        for (double p : {0.6, 0.9, 0.99, 0.9995}) EXPECT_NEAR(student_t_cdf(student_t_quantile(p, df), df), p, 1e-9);
    EXPECT_NEAR(student_t_cdf(0, 7), 0.5, 1e-12);
}

TEST(Stats, ConfidenceIntervalIsJmhStyle) {
    // Mean 3, sample sd sqrt(2.5), n 5: error = t(0.9995, 4) * sd / sqrt(5).
    Summary s = summarize({1, 2, 3, 4, 5});
    EXPECT_EQ(s.n, 5u);
    EXPECT_DOUBLE_EQ(s.mean, 3);
    EXPECT_NEAR(s.stddev, std::sqrt(2.5), 1e-12);
    EXPECT_NEAR(s.error, 8.610302 * std::sqrt(2.5) / std::sqrt(5.0), 1e-4);
    Summary one = summarize({7});
    EXPECT_DOUBLE_EQ(one.mean, 7);
    EXPECT_TRUE(std::isnan(one.error));
    EXPECT_NEAR(summarize({1, 2, 3, 4, 5}, 0.95).error, 2.776445 * std::sqrt(2.5) / std::sqrt(5.0), 1e-5);
}

TEST(Stats, QuadratureAndNotSignificant) {
    EXPECT_DOUBLE_EQ(quadrature(3, 4), 5);
    Difference d = difference(110, 3, 100, 4);
    EXPECT_DOUBLE_EQ(d.value, 10);
    EXPECT_DOUBLE_EQ(d.error, 5);
    EXPECT_TRUE(d.significant);
    EXPECT_DOUBLE_EQ(d.relative, 0.10);
    Difference ns = difference(103, 3, 100, 4);  // 3 +- 5 contains zero
    EXPECT_FALSE(ns.significant);
    Difference neg = difference(90, 3, 100, 4);  // -10 +- 5: a significant decrease
    EXPECT_TRUE(neg.significant);
    EXPECT_DOUBLE_EQ(neg.relative, -0.10);
}

TEST(Stats, PairedChangeIsPerRound) {
    // Round 1: +10%, round 2: +20%, round 3: the baseline failed (NaN), round 4: +30%.
    Summary c = paired_change({110, 240, 500, 130}, {100, 200, NAN, 100});
    EXPECT_EQ(c.n, 3u);
    EXPECT_NEAR(c.mean, 20, 1e-9);
    EXPECT_NEAR(c.error, student_t_quantile(0.9995, 2) * 10 / std::sqrt(3.0), 1e-6);
    // A drift that moves both alike leaves the paired change alone.
    Summary drift = paired_change({102, 204, 306}, {100, 200, 300});
    EXPECT_NEAR(drift.mean, 2, 1e-9);
    EXPECT_NEAR(drift.error, 0, 1e-9);
    EXPECT_EQ(paired_change({1}, {0}).n, 0u);
}

TEST(Stats, VerdictNeedsTheWholeInterval) {
    EXPECT_EQ(judge(0.4, 0.5, 1), Verdict::kMet);
    EXPECT_EQ(judge(-3, 2, 1), Verdict::kMet);
    EXPECT_EQ(judge(2, 0.5, 1), Verdict::kMissed);
    EXPECT_EQ(judge(0.8, 0.5, 1), Verdict::kNotResolved);
    EXPECT_EQ(judge(1.4, 0.5, 1), Verdict::kNotResolved);
    EXPECT_EQ(judge(NAN, 0.5, 1), Verdict::kNotMeasured);
    EXPECT_EQ(judge(0.1, NAN, 1), Verdict::kNotMeasured);
    EXPECT_EQ(valid_values({1, NAN, 3}), (std::vector<double>{1, 3}));
}
