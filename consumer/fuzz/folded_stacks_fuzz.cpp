// SPDX-License-Identifier: Apache-2.0
// Stacks as vtscope profile writes them, with frame names the target chose (its ELF symbols, its
// perf map, its thread names): the folded text (one line per stack, `frame;frame count`) and the
// SVG flame graph. Input: stacks separated by \x01, frames by \x02; the first 8 bytes of a stack
// are its count. Each stack must stay one folded line of well-formed UTF-8 a terminal shows as it
// is (--folded - writes to standard output), and the SVG well-formed UTF-8 without the control
// characters XML 1.0 forbids.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "output/flamegraph.h"
#include "output/profile_report.h"
#include "utf8_check.h"

namespace {

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    size_t pos = 0;
    while (pos <= text.size()) {
        size_t end = text.find(separator, pos);
        if (end == std::string_view::npos) end = text.size();
        parts.push_back(text.substr(pos, end - pos));
        pos = end + 1;
    }
    return parts;
}

bool xml_characters_only(std::string_view text) {
    for (char c : text) {
        auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 && byte != '\n' && byte != '\t' && byte != '\r') return false;
    }
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::vector<vtscope::FoldedStack> stacks;
    for (std::string_view text : split(std::string_view(reinterpret_cast<const char*>(data), size), '\x01')) {
        vtscope::FoldedStack stack;
        std::string_view count = text.substr(0, 8);
        for (size_t i = 0; i < count.size(); i++)
            stack.count |= uint64_t{static_cast<unsigned char>(count[i])} << (8 * i);
        stack.count = stack.count % 1000000 + 1;
        for (std::string_view frame : split(text.substr(count.size()), '\x02')) stack.frames.emplace_back(frame);
        stacks.push_back(std::move(stack));
    }
    constexpr size_t kMaxStacks = 64;  // enough to build a tree; keeps each run short
    if (stacks.size() > kMaxStacks) stacks.resize(kMaxStacks);

    std::string svg = vtscope::render_flamegraph_svg(stacks, "vtscope profile");
    if (!vtscope::fuzz::is_strict_utf8(svg) || !xml_characters_only(svg)) std::abort();

    std::string folded = vtscope::render_folded(stacks);
    std::vector<std::string_view> lines = split(folded, '\n');
    if (lines.size() != stacks.size() + 1 || !lines.back().empty()) std::abort();
    for (std::string_view line : lines)
        if (!vtscope::fuzz::is_strict_utf8(line) || !vtscope::fuzz::terminal_printable(line)) std::abort();
    return 0;
}
