// SPDX-License-Identifier: Apache-2.0
#include "stats.h"

#include <cmath>
#include <limits>

namespace vtscope::bench {
namespace {

// Continued fraction of the incomplete beta function (modified Lentz; Numerical Recipes 6.4).
double beta_continued_fraction(double a, double b, double x) {
    constexpr int kMaxIterations = 500;
    constexpr double kEpsilon = 1e-15;
    constexpr double kTiny = 1e-300;
    double qab = a + b, qap = a + 1, qam = a - 1;
    double c = 1, d = 1 - qab * x / qap;
    if (std::fabs(d) < kTiny) d = kTiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= kMaxIterations; m++) {
        int m2 = 2 * m;
        double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1 + aa * d;
        if (std::fabs(d) < kTiny) d = kTiny;
        c = 1 + aa / c;
        if (std::fabs(c) < kTiny) c = kTiny;
        d = 1 / d;
        h *= d * c;
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1 + aa * d;
        if (std::fabs(d) < kTiny) d = kTiny;
        c = 1 + aa / c;
        if (std::fabs(c) < kTiny) c = kTiny;
        d = 1 / d;
        double delta = d * c;
        h *= delta;
        if (std::fabs(delta - 1) < kEpsilon) break;
    }
    return h;
}

}  // namespace

double incomplete_beta(double a, double b, double x) {
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
    double front = std::exp(log_front);
    if (x < (a + 1) / (a + b + 2)) return front * beta_continued_fraction(a, b, x) / a;
    return 1 - front * beta_continued_fraction(b, a, 1 - x) / b;
}

double student_t_cdf(double t, double df) {
    double x = df / (df + t * t);
    double tail = 0.5 * incomplete_beta(df / 2, 0.5, x);  // P(T > |t|)
    return t >= 0 ? 1 - tail : tail;
}

double student_t_quantile(double p, double df) {
    if (!(p > 0 && p < 1) || !(df > 0)) return std::numeric_limits<double>::quiet_NaN();
    if (p == 0.5) return 0;
    if (p < 0.5) return -student_t_quantile(1 - p, df);
    // Bracket, then bisect: the CDF is monotone, and 200 halvings reach double precision.
    double lo = 0, hi = 1;
    while (student_t_cdf(hi, df) < p) {
        lo = hi;
        hi *= 2;
        if (hi > 1e12) return std::numeric_limits<double>::infinity();
    }
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        (student_t_cdf(mid, df) < p ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

Summary summarize(const std::vector<double>& samples, double confidence) {
    Summary s;
    s.n = samples.size();
    if (s.n == 0) {
        s.mean = s.stddev = s.error = std::numeric_limits<double>::quiet_NaN();
        return s;
    }
    double sum = 0;
    for (double v : samples) sum += v;
    s.mean = sum / static_cast<double>(s.n);
    if (s.n < 2) {
        s.stddev = s.error = std::numeric_limits<double>::quiet_NaN();
        return s;
    }
    double squares = 0;
    for (double v : samples) squares += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(squares / static_cast<double>(s.n - 1));
    double t = student_t_quantile(0.5 + confidence / 2, static_cast<double>(s.n - 1));
    s.error = t * s.stddev / std::sqrt(static_cast<double>(s.n));
    return s;
}

std::vector<double> valid_values(const std::vector<double>& values) {
    std::vector<double> v;
    for (double x : values)
        if (!std::isnan(x)) v.push_back(x);
    return v;
}

double quadrature(double e1, double e2) { return std::sqrt(e1 * e1 + e2 * e2); }

Difference difference(double a, double error_a, double b, double error_b) {
    Difference d;
    d.value = a - b;
    d.error = quadrature(error_a, error_b);
    d.significant = std::fabs(d.value) > d.error;
    d.relative = b != 0 ? d.value / b : std::numeric_limits<double>::quiet_NaN();
    return d;
}

Summary paired_change(const std::vector<double>& a, const std::vector<double>& b, double confidence) {
    std::vector<double> r;
    for (size_t i = 0; i < a.size() && i < b.size(); i++)
        if (!std::isnan(a[i]) && !std::isnan(b[i]) && b[i] != 0) r.push_back(100 * (a[i] / b[i] - 1));
    return summarize(r, confidence);
}

Verdict judge(double cost_pct, double error_pct, double target_pct) {
    if (std::isnan(cost_pct) || std::isnan(error_pct)) return Verdict::kNotMeasured;
    if (cost_pct + error_pct < target_pct) return Verdict::kMet;
    if (cost_pct - error_pct > target_pct) return Verdict::kMissed;
    return Verdict::kNotResolved;
}

}  // namespace vtscope::bench
