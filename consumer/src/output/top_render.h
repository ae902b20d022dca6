// SPDX-License-Identifier: Apache-2.0
// What `vtscope top` shows of a frame (core/top_model.h): the screen's lines, and in batch mode
// one JSON object per refresh (docs/output-formats.md, "vtscope top -b").
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "core/top_model.h"

namespace vtscope {

// What the user chose, with the keys (or the options in batch mode).
struct TopViewState {
    pid_t pid = 0;
    TopGrouping by = TopGrouping::kTrace;
    TopSort sort = TopSort::kCpu;
    std::string filter;
    bool editing_filter = false;  // after '/', until Enter
    bool paused = false;
    int top = 20;  // rows in a batch object
};

// The screen, one string per line, each at most width columns (ASCII, apart from thread names
// made terminal_safe), at most height lines: header, totals, help line, the rows that fit, the
// carriers pane.
std::vector<std::string> render_top_screen(const TopFrame& frame, const TopViewState& view, int width, int height);

// One line of JSON (no newline).
std::string render_top_json(const TopFrame& frame, const TopViewState& view);

// The help line.
const char* top_help_line();

}  // namespace vtscope
