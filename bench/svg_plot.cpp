// SPDX-License-Identifier: Apache-2.0
#include "svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace vtscope::bench {
namespace {

std::string escape(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '&')
            out += "&amp;";
        else if (c == '<')
            out += "&lt;";
        else if (c == '>')
            out += "&gt;";
        else if (c == '"')
            out += "&quot;";
        else
            out.push_back(c);
    }
    return out;
}

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.1f", v);
    return buf;
}

// A "nice" tick step for a range: 1, 2 or 5 times a power of ten.
double tick_step(double range, int ticks) {
    double raw = range / ticks;
    double power = std::pow(10, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (raw <= m * power) return m * power;
    return 10 * power;
}

const char* kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                          "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

}  // namespace

std::string render_svg(const BarChart& chart) {
    std::vector<std::string> series;
    for (const auto& g : chart.groups)
        for (const auto& b : g.bars)
            if (std::find(series.begin(), series.end(), b.series) == series.end()) series.push_back(b.series);
    std::map<std::string, const char*> colour;
    for (size_t i = 0; i < series.size(); i++) colour[series[i]] = kPalette[i % std::size(kPalette)];

    double lo = std::min(0.0, chart.reference), hi = chart.reference;
    size_t max_bars = 1;
    for (const auto& g : chart.groups) {
        max_bars = std::max(max_bars, g.bars.size());
        for (const auto& b : g.bars) {
            hi = std::max(hi, b.value + b.error);
            lo = std::min(lo, b.value - b.error);
        }
    }
    hi *= 1.12;  // room for the labels
    double step = tick_step(hi - lo, 8);
    lo = std::floor(lo / step) * step;
    hi = std::ceil(hi / step) * step;

    const double bar_w = 26, gap = 34, left = 70, top = 50, plot_h = 380, legend_w = 170;
    double group_w = static_cast<double>(max_bars) * bar_w + gap;
    double plot_w = group_w * static_cast<double>(std::max<size_t>(chart.groups.size(), 1));
    double width = left + plot_w + legend_w + 20, height = top + plot_h + 70;
    auto y = [&](double v) { return top + plot_h * (hi - v) / (hi - lo); };

    std::string s;
    s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) + "\" height=\"" + num(height) +
         "\" font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"11\">\n";
    s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    s += "<text x=\"" + num(width / 2) + "\" y=\"24\" text-anchor=\"middle\" font-size=\"14\">" + escape(chart.title) +
         "</text>\n";
    // Axes, ticks and grid.
    for (double v = lo; v <= hi + step / 2; v += step) {
        s += "<line x1=\"" + num(left) + "\" x2=\"" + num(left + plot_w) + "\" y1=\"" + num(y(v)) + "\" y2=\"" +
             num(y(v)) + "\" stroke=\"#e6e6e6\"/>\n";
        char label[32];
        std::snprintf(label, sizeof(label), step < 0.1 ? "%.2f" : (step < 1 ? "%.1f" : "%.0f"), v);
        s += "<text x=\"" + num(left - 6) + "\" y=\"" + num(y(v) + 4) + "\" text-anchor=\"end\">" + label + "</text>\n";
    }
    s += "<line x1=\"" + num(left) + "\" x2=\"" + num(left) + "\" y1=\"" + num(top) + "\" y2=\"" + num(top + plot_h) +
         "\" stroke=\"black\"/>\n";
    s += "<text transform=\"translate(18," + num(top + plot_h / 2) + ") rotate(-90)\" text-anchor=\"middle\">" +
         escape(chart.y_label) + "</text>\n";
    // Reference line.
    s += "<line x1=\"" + num(left) + "\" x2=\"" + num(left + plot_w) + "\" y1=\"" + num(y(chart.reference)) +
         "\" y2=\"" + num(y(chart.reference)) + "\" stroke=\"black\" stroke-dasharray=\"5,4\"/>\n";
    if (!chart.reference_label.empty())
        s += "<text x=\"" + num(left + plot_w - 4) + "\" y=\"" + num(y(chart.reference) - 4) +
             "\" text-anchor=\"end\" font-style=\"italic\">" + escape(chart.reference_label) + "</text>\n";
    // Bars.
    for (size_t gi = 0; gi < chart.groups.size(); gi++) {
        const auto& g = chart.groups[gi];
        double x0 = left + static_cast<double>(gi) * group_w + gap / 2;
        for (size_t bi = 0; bi < g.bars.size(); bi++) {
            const Bar& b = g.bars[bi];
            double x = x0 + static_cast<double>(bi) * bar_w;
            double y_top = y(std::max(b.value, 0.0)), y_bottom = y(std::min(b.value, 0.0));
            s += "<rect x=\"" + num(x + 2) + "\" y=\"" + num(y_top) + "\" width=\"" + num(bar_w - 4) + "\" height=\"" +
                 num(std::max(y_bottom - y_top, 0.5)) + "\" fill=\"" + colour[b.series] + "\"><title>" +
                 escape(b.series + ": " + b.label) + "</title></rect>\n";
            if (b.error > 0) {
                double cx = x + bar_w / 2;
                s += "<path d=\"M" + num(cx) + "," + num(y(b.value + b.error)) + " V" + num(y(b.value - b.error)) +
                     " M" + num(cx - 4) + "," + num(y(b.value + b.error)) + " h8 M" + num(cx - 4) + "," +
                     num(y(b.value - b.error)) + " h8\" stroke=\"black\" fill=\"none\"/>\n";
            }
            double ly = y(std::max(b.value + b.error, 0.0)) - 5;
            s += "<text transform=\"translate(" + num(x + bar_w / 2 + 3) + "," + num(ly) +
                 ") rotate(-90)\" font-size=\"9\">" + escape(b.label) + "</text>\n";
        }
        s += "<text x=\"" + num(x0 + static_cast<double>(g.bars.size()) * bar_w / 2) + "\" y=\"" +
             num(top + plot_h + 20) + "\" text-anchor=\"middle\" font-size=\"12\">" + escape(g.name) + "</text>\n";
    }
    // Legend.
    double lx = left + plot_w + 20;
    for (size_t i = 0; i < series.size(); i++) {
        double ly = top + 10 + static_cast<double>(i) * 18;
        s += "<rect x=\"" + num(lx) + "\" y=\"" + num(ly - 9) + "\" width=\"12\" height=\"12\" fill=\"" +
             colour[series[i]] + "\"/>\n";
        s += "<text x=\"" + num(lx + 18) + "\" y=\"" + num(ly + 1) + "\">" + escape(series[i]) + "</text>\n";
    }
    s += "</svg>\n";
    return s;
}

}  // namespace vtscope::bench
