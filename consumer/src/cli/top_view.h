// SPDX-License-Identifier: Apache-2.0
// `vtscope top`'s screen and keys, as the last source of its session (session.h, SourceGroup):
// every refresh interval it takes a frame of the model, after the other sources' drains of that
// sync round, and draws it, or writes it as one JSON object in batch mode.
//
// Plain ANSI (ECMA-48 control sequences: cursor home, erase line, erase below; xterm's alternate
// screen and cursor hiding) rather than ncurses: the screen is redrawn whole once a refresh, a
// few kilobytes, which needs no terminfo database, adds no package to build or install, and
// behaves the same on every terminal emulator in use (each implements these sequences).
#pragma once

#include <termios.h>

#include <chrono>
#include <optional>
#include <string>

#include "core/session.h"
#include "core/top_model.h"
#include "output/output_file.h"
#include "output/top_render.h"

namespace vtscope {

// What a key does to the view; whether it quits.
bool apply_top_key(TopViewState& view, unsigned char key);

class TopView final : public EventSource {
public:
    TopView(TopModel& model, TopViewState view, double interval_s, long iterations, bool batch, OutputFile& out)
        : model_(model),
          view_(std::move(view)),
          interval_(interval_s),
          iterations_(iterations),
          batch_(batch),
          out_(out) {}
    ~TopView() override { restore_terminal(); }

    bpf_object* object() override { return nullptr; }  // never the group's first
    Status attach(Links& links) override;
    Status poll(std::chrono::milliseconds timeout) override;
    void sync() override;
    void finish() override;
    int output_error() const override { return out_.error(); }
    void summarise(Summary& summary) const override;
    const char* stopped() const override;

private:
    void refresh();
    void draw();
    void restore_terminal();

    TopModel& model_;
    TopViewState view_;
    double interval_;
    long iterations_;
    bool batch_;
    OutputFile& out_;
    std::optional<TopFrame> frame_;  // the last one taken
    uint64_t frames_ = 0;
    bool quit_ = false;
    std::chrono::steady_clock::time_point next_refresh_{};
    std::optional<termios> saved_termios_;  // the terminal's mode before, restored at the end
    bool screen_ = false;                   // the alternate screen is on
};

}  // namespace vtscope
