// SPDX-License-Identifier: Apache-2.0
// A grouped bar chart with error bars as SVG, in the manner of the paper's Figure 2: one group
// per workload, one bar per configuration, a reference line (the baseline), a label per bar.
#pragma once

#include <string>
#include <vector>

namespace vtscope::bench {

struct Bar {
    std::string series;  // the configuration; one colour per series, listed in the legend
    double value = 0;
    double error = 0;   // half-width of the error bar (0: none)
    std::string label;  // written above the bar
};

struct BarGroup {
    std::string name;
    std::vector<Bar> bars;
};

struct BarChart {
    std::string title;
    std::string y_label;
    double reference = 1;  // dashed horizontal line (e.g. 1x = baseline)
    std::string reference_label;
    std::vector<BarGroup> groups;
};

std::string render_svg(const BarChart& chart);

}  // namespace vtscope::bench
