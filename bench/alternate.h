// SPDX-License-Identifier: Apache-2.0
// The phases of vtscope-bench's alternating parts: one JVM of the workload runs many phases, a
// consumer attached in some and detached in the others, so the comparison carries no spread from
// one JVM to the next (JIT decisions, heap layout, code placement). Which phase is which, and the
// change of a configuration's phases against the phases without a consumer next to them.
#pragma once

#include <vector>

#include "stats.h"

namespace vtscope::bench {

constexpr int kPhaseOff = -1;  // a phase without the consumer; other values index the configurations

// The warm-up phases, discarded: without and with a consumer in turn, the configurations one after
// the other (off, 0, off, 1, ...), so the first attach of each leaves its one-time costs here.
std::vector<int> alternate_warm_up(int configs, int phases);

// The measured phases: `cycles` times every configuration in turn, the order rotated by one each
// cycle, each as a block off, on, on, off (ABBA) whose closing off opens the next block. The two on
// phases of a block lie either side of its middle, so a linear drift of the machine cancels in the
// mean of their changes. Where a block would follow one of the same configuration (one or two
// configurations), it gets an off phase of its own: no off phase is then paired with two on phases
// of one configuration, which would make its pairs correlated and its interval too narrow.
std::vector<int> alternate_sequence(int configs, int cycles);

// The phases of `config` in `sequence` with the off phase next to each: the one before it, or for
// the second of a block the one after it; values[i] is phase i's measure (NaN: failed).
struct PhasePairs {
    std::vector<double> on, off;
};
PhasePairs adjacent_pairs(const std::vector<int>& sequence, const std::vector<double>& values, int config);

// The change of config's phases against their adjacent off phases in percent, mean and the
// half-width of its two-sided `confidence` interval over the pairs (paired_change).
Summary alternate_change(const std::vector<int>& sequence, const std::vector<double>& values, int config,
                         double confidence = 0.95);

// What the consumer cost the target per event of its own (profile: per sample of the target), in ns of
// the target's CPU, mean and `confidence` half-width over the pairs: for each on phase, the change of
// the CPU per unit against its off phase (on / off - 1, as alternate_change), times the on phase's
// total target CPU (ns), over its events: the change per event the phase's sampling rate gave. A
// sampler whose cost is c ns per sample changes the target's CPU by c * hz / 1e9 at hz samples per
// CPU-second, whatever the rate, so high rates resolve c where the change at a low rate drowns in
// the phases' spread. Pairs with a NaN or an on phase without events are left out.
Summary cost_per_event(const std::vector<int>& sequence, const std::vector<double>& cpu_per_unit,
                       const std::vector<double>& target_cpu_ns, const std::vector<double>& events, int config,
                       double confidence = 0.95);

// The change over several JVMs, each of which ran the whole alternation (--alternate-jvms): mean and
// `confidence` half-width over the JVMs of their own mean changes (those of at least two pairs), n the
// number of JVMs. A JVM carries effects of its own that its pairs share (JIT decisions, code and heap
// placement), so the spread of its pairs understates the spread between runs; only this interval
// includes it.
Summary across_jvms(const std::vector<Summary>& per_jvm, double confidence = 0.95);

}  // namespace vtscope::bench
