// SPDX-License-Identifier: Apache-2.0
// Statistics of the benchmark matrix: JMH-style confidence intervals, differences of
// configurations with the quadrature error, and the "n.s." rule (paper, Section 7.3).
#pragma once

#include <cstddef>
#include <vector>

namespace vtscope::bench {

// Regularised incomplete beta function I_x(a, b), 0 <= x <= 1, a, b > 0.
double incomplete_beta(double a, double b, double x);

// CDF of Student's t distribution with df > 0 degrees of freedom.
double student_t_cdf(double t, double df);

// Quantile of Student's t: the t with student_t_cdf(t, df) == p, 0 < p < 1.
double student_t_quantile(double p, double df);

struct Summary {
    size_t n = 0;
    double mean = 0;
    double stddev = 0;  // sample standard deviation (n - 1)
    double error = 0;   // half-width of the two-sided confidence interval; NaN when n < 2
};

// Mean, standard deviation and the half-width of the two-sided `confidence` interval of the mean,
// t_{(1+confidence)/2, n-1} * s / sqrt(n): JMH's "Error" with confidence 0.999.
Summary summarize(const std::vector<double>& samples, double confidence = 0.999);

// The values that are not NaN, in their order.
std::vector<double> valid_values(const std::vector<double>& values);

// sqrt(e1^2 + e2^2): the error of a difference of two independent estimates.
double quadrature(double e1, double e2);

struct Difference {
    double value = 0;          // a - b
    double error = 0;          // quadrature of the two errors
    bool significant = false;  // the interval value +- error excludes zero
    double relative = 0;       // value / b (a fraction)
};

// a - b with its quadrature error; "n.s." when the interval contains zero.
Difference difference(double a, double error_a, double b, double error_b);

// The change of a against b measured side by side, round i of each: 100 (a[i] / b[i] - 1)
// percent, summarised over the rounds where both are measured (not NaN, b[i] != 0). Pairing the
// rounds takes the drift of a shared machine between rounds out of the comparison.
Summary paired_change(const std::vector<double>& a, const std::vector<double>& b, double confidence = 0.999);

// A cost (percent, with its interval's half-width) against its target: met when the whole
// interval lies under the target, missed when the whole interval lies over it, otherwise not
// resolved; not measured without a cost or an interval.
enum class Verdict { kMet, kMissed, kNotResolved, kNotMeasured };
Verdict judge(double cost_pct, double error_pct, double target_pct);

}  // namespace vtscope::bench
