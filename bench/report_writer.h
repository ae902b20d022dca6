// SPDX-License-Identifier: Apache-2.0
// The results of vtscope-bench: results.md (the tables, the targets of issue 5, the errors),
// results.json, figure.svg and, with rsvg-convert, figure.png.
#pragma once

#include <string>
#include <vector>

#include "output/json_io.h"

#include "bench_options.h"
#include "block_bench.h"
#include "jmh_matrix.h"
#include "native_memory.h"
#include "profile_bench.h"
#include "stats.h"
#include "write_storm.h"

namespace vtscope::bench {

// v with that many decimals ("–" for NaN); fmt_signed with a sign.
std::string fmt(double v, int decimals = 1);
std::string fmt_signed(double v, int decimals = 1);
// v as a JSON number with that many decimals, as fmt prints it; null for NaN.
OrderedJson json_fixed(double v, int decimals);
// A list of such numbers.
OrderedJson json_fixed_list(const std::vector<double>& v, int decimals);
// {"n", "mean", "error"}: mean with at least one sample, error with two.
OrderedJson json_summary(const Summary& s, int decimals);
// Decimals so that an error shows about two significant digits.
int decimals_for(double error);
// "+1.2 ± 0.4", with " (n.s.)" when the interval contains zero.
std::string diff_text(const Difference& d);

struct Results {
    const Matrix& matrix;
    const std::vector<StormRun>& storm;
    const std::vector<MemoryRun>& memory;
    const BlockBench& block;
    const ProfileBench* profile;  // null when not run
    std::string jdk;              // the java -version line
    double elapsed_s;             // wall time of all the measurements
};

// Writes the files into o.out, says so on stderr and prints results.md on stdout. Returns false
// if any cell or profile run recorded an error (listed under "Errors" in results.md).
bool write_results(const Options& o, const Results& results);

}  // namespace vtscope::bench
