#include "alternate.h"

#include <cstddef>

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

PhasePairs adjacent_pairs(const std::vector<int>& sequence, const std::vector<double>& values, int config) {
    PhasePairs p;
    for (size_t i = 0; i < sequence.size() && i < values.size(); i++) {
        if (sequence[i] != config || config == kPhaseOff) continue;
        size_t other = i;
        if (i > 0 && sequence[i - 1] == kPhaseOff)
            other = i - 1;
        else if (i + 1 < sequence.size() && i + 1 < values.size() && sequence[i + 1] == kPhaseOff)
            other = i + 1;
        if (other == i) continue;  // no off phase next to it
        p.on.push_back(values[i]);
        p.off.push_back(values[other]);
    }
    return p;
}

Summary alternate_change(const std::vector<int>& sequence, const std::vector<double>& values, int config,
                         double confidence) {
    PhasePairs p = adjacent_pairs(sequence, values, config);
    return paired_change(p.on, p.off, confidence);
}

}  // namespace vtscope::bench
