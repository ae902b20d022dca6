// SPDX-License-Identifier: Apache-2.0
// The JVM's perf map (/tmp/perf-PID.map in the target's root, written by the target): parsed into
// a symbol table, looked up, and merged with an older map as StackSymbolizer::load_perf_map does.
#include <cstdint>
#include <string_view>

#include "fuzz_input.h"
#include "symbols/stack_symbolizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    vtscope::fuzz::FuzzInput input(data, size);
    // The first bytes say where the older map ends and the newer begins, and where to look up.
    auto split = input.take<uint16_t>();
    auto probe = input.take<uint64_t>();
    std::string_view text = input.rest();
    std::string_view older_text = text.substr(0, std::min<size_t>(split, text.size()));
    std::string_view newer_text = text.substr(older_text.size());

    vtscope::SymbolTable older, newer;
    vtscope::parse_perf_map(older_text, older);
    vtscope::parse_perf_map(newer_text, newer);
    (void)newer.find(probe);
    newer.keep_older(older);
    (void)newer.find(probe);
    (void)newer.find(probe + 1);
    (void)newer.find(0);
    (void)newer.find(UINT64_MAX);
    return 0;
}
