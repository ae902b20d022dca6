// SPDX-License-Identifier: Apache-2.0
#include "alternate.h"

#include <algorithm>
#include <cstddef>
#include <utility>

namespace vtscope::bench {

std::vector<int> alternate_warm_up(int configs, int phases) {
    std::vector<int> seq;
    for (int i = 0; i < phases; i++) seq.push_back(i % 2 == 0 || configs < 1 ? kPhaseOff : (i / 2) % configs);
    return seq;
}

std::vector<int> alternate_sequence(int configs, int cycles) {
    std::vector<int> seq;
    if (configs < 1 || cycles < 1) return seq;
    seq.push_back(kPhaseOff);
    int previous = kPhaseOff;
    for (int r = 0; r < cycles; r++)
        for (int j = 0; j < configs; j++) {
            int c = (j + r) % configs;
            if (c == previous) seq.push_back(kPhaseOff);
            seq.insert(seq.end(), {c, c, kPhaseOff});
            previous = c;
        }
    return seq;
}

namespace {

// The (on, off) phase indexes of config's pairs among the first `count` phases of sequence.
std::vector<std::pair<size_t, size_t>> pair_indexes(const std::vector<int>& sequence, size_t count, int config) {
    std::vector<std::pair<size_t, size_t>> pairs;
    size_t n = std::min(sequence.size(), count);
    for (size_t i = 0; i < n; i++) {
        if (sequence[i] != config || config == kPhaseOff) continue;
        if (i > 0 && sequence[i - 1] == kPhaseOff)
            pairs.emplace_back(i, i - 1);
        else if (i + 1 < n && sequence[i + 1] == kPhaseOff)
            pairs.emplace_back(i, i + 1);
        // else: no off phase next to it
    }
    return pairs;
}

}  // namespace

PhasePairs adjacent_pairs(const std::vector<int>& sequence, const std::vector<double>& values, int config) {
    PhasePairs p;
    for (auto [on, off] : pair_indexes(sequence, values.size(), config)) {
        p.on.push_back(values[on]);
        p.off.push_back(values[off]);
    }
    return p;
}

Summary alternate_change(const std::vector<int>& sequence, const std::vector<double>& values, int config,
                         double confidence) {
    PhasePairs p = adjacent_pairs(sequence, values, config);
    return paired_change(p.on, p.off, confidence);
}

Summary cost_per_event(const std::vector<int>& sequence, const std::vector<double>& cpu_per_unit,
                       const std::vector<double>& target_cpu_ns, const std::vector<double>& events, int config,
                       double confidence) {
    size_t count = std::min({cpu_per_unit.size(), target_cpu_ns.size(), events.size()});
    std::vector<double> costs;
    for (auto [on, off] : pair_indexes(sequence, count, config)) {
        double c_on = cpu_per_unit[on], c_off = cpu_per_unit[off];
        if (!(c_on > 0) || !(c_off > 0) || !(target_cpu_ns[on] > 0) || !(events[on] > 0)) continue;
        costs.push_back((c_on / c_off - 1) * target_cpu_ns[on] / events[on]);
    }
    return summarize(costs, confidence);
}

Summary across_jvms(const std::vector<Summary>& per_jvm, double confidence) {
    std::vector<double> means;
    for (const Summary& s : per_jvm)
        if (s.n >= 2) means.push_back(s.mean);
    return summarize(means, confidence);
}

}  // namespace vtscope::bench
