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

}  // namespace vtscope::bench
