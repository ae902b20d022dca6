// SPDX-License-Identifier: Apache-2.0
// An interactive SVG flame graph of folded stacks, written by vtscope itself: one rectangle per
// frame (width = samples), roots at the bottom, so with vtscope profile's folding one tower per
// trace stands on the "all" frame. Click a frame to zoom into it, "Reset zoom" to go back,
// "Search" (or the URL fragment #search=REGEX) to highlight matching frames and their share.
#pragma once

#include <string>
#include <vector>

#include "output/profile_report.h"

namespace vtscope {

std::string render_flamegraph_svg(const std::vector<FoldedStack>& stacks, const std::string& title);

}  // namespace vtscope
