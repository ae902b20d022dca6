// SPDX-License-Identifier: Apache-2.0
#include "cli/top_view.h"

#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <thread>

namespace vtscope {
namespace {

// ECMA-48: CUP (cursor home), EL (erase to the end of the line), ED (erase below); xterm's
// private modes 1049 (alternate screen) and 25 (cursor shown).
constexpr const char* kHome = "\x1b[H";
constexpr const char* kEraseLine = "\x1b[K";
constexpr const char* kEraseBelow = "\x1b[J";
constexpr const char* kEnterScreen = "\x1b[?1049h\x1b[?25l";
constexpr const char* kLeaveScreen = "\x1b[?25h\x1b[?1049l";

constexpr size_t kMaxFilter = 64;

}  // namespace

bool apply_top_key(TopViewState& view, unsigned char key) {
    if (view.editing_filter) {
        if (key == '\r' || key == '\n') {
            view.editing_filter = false;
        } else if (key == 0x1b) {  // Esc: no filter
            view.editing_filter = false;
            view.filter.clear();
        } else if (key == 0x7f || key == 0x08) {
            if (!view.filter.empty()) view.filter.pop_back();
        } else if (key >= 0x20 && key < 0x7f && view.filter.size() < kMaxFilter) {
            view.filter.push_back(static_cast<char>(key));
        }
        return false;
    }
    switch (key) {
        case 'q': return true;
        case 't': view.by = TopGrouping::kTrace; break;
        case 's': view.by = TopGrouping::kSpan; break;
        case 'v': view.by = TopGrouping::kVthread; break;
        case 'c': view.sort = TopSort::kCpu; break;
        case 'b': view.sort = TopSort::kBlocked; break;
        case 'p': view.sort = TopSort::kPinned; break;
        case 'y': view.sort = TopSort::kSyscalls; break;
        case ' ': view.paused = !view.paused; break;
        case '/':
            view.editing_filter = true;
            view.filter.clear();
            break;
        default: break;
    }
    return false;
}

// Keys are read byte by byte without echo (ICANON and ECHO off); ISIG stays, so Ctrl-C still
// ends the session through its SIGINT handler, which restores the terminal in finish.
Status TopView::attach(Links&) {
    model_.start();
    next_refresh_ = std::chrono::steady_clock::now() +
                    std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(interval_));
    if (batch_) return ok_status();
    termios mode{};
    if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &mode) == 0) {
        saved_termios_ = mode;
        mode.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
        mode.c_cc[VMIN] = 0;
        mode.c_cc[VTIME] = 0;
        tcsetattr(STDIN_FILENO, TCSANOW, &mode);
    }
    out_.write(kEnterScreen);
    screen_ = true;
    draw();
    return ok_status();
}

Status TopView::poll(std::chrono::milliseconds timeout) {
    if (!saved_termios_) {
        std::this_thread::sleep_for(timeout);
        return ok_status();
    }
    pollfd in{STDIN_FILENO, POLLIN, 0};
    if (::poll(&in, 1, static_cast<int>(timeout.count())) <= 0 || !(in.revents & POLLIN)) return ok_status();
    unsigned char keys[64];
    ssize_t n = read(STDIN_FILENO, keys, sizeof(keys));
    for (ssize_t i = 0; i < n; i++)
        if (apply_top_key(view_, keys[i])) quit_ = true;
    if (n > 0 && !quit_) draw();
    return ok_status();
}

// After the other sources' sync of this round (the group syncs in order): their counts of the
// interval are in the model. A refresh due within half a round is made now rather than a round
// late.
void TopView::sync() {
    auto now = std::chrono::steady_clock::now();
    if (now + std::chrono::milliseconds(125) < next_refresh_) return;
    next_refresh_ += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(interval_));
    if (next_refresh_ < now) next_refresh_ = now;
    refresh();
}

void TopView::refresh() {
    frame_ = model_.take();
    frames_++;
    if (batch_) {
        out_.write(render_top_json(*frame_, view_) + "\n");
        out_.flush();
    } else if (!view_.paused) {
        draw();
    }
}

void TopView::draw() {
    winsize size{};
    int width = 80, height = 24;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0 && size.ws_row > 0) {
        width = size.ws_col;
        height = size.ws_row;
    }
    std::string screen = kHome;
    std::vector<std::string> lines;
    if (frame_) {
        lines = render_top_screen(*frame_, view_, width, height);
    } else {
        lines = {"vtscope top - pid " + std::to_string(view_.pid) + " - attached, first refresh in " +
                     std::to_string(interval_).substr(0, 4) + " s",
                 top_help_line()};
    }
    for (size_t i = 0; i < lines.size(); i++) screen += lines[i] + kEraseLine + (i + 1 < lines.size() ? "\r\n" : "");
    screen += kEraseBelow;
    out_.write(screen);
    out_.flush();
}

// The last frame in batch mode covers what the sources drained at their finish, unless the
// iterations asked for are all written.
void TopView::finish() {
    bool all_written = iterations_ > 0 && frames_ >= static_cast<uint64_t>(iterations_);
    if (batch_ && !all_written) refresh();
    restore_terminal();
    out_.flush();
}

void TopView::restore_terminal() {
    if (screen_) {
        out_.write(kLeaveScreen);
        out_.flush();
        screen_ = false;
    }
    if (saved_termios_) {
        tcsetattr(STDIN_FILENO, TCSANOW, &*saved_termios_);
        saved_termios_.reset();
    }
}

void TopView::summarise(Summary& summary) const {
    summary.section_name = "top";
    summary.section_text = "top: " + std::to_string(frames_) + " refreshes\n";
    summary.section_json = "{\"refreshes\":" + std::to_string(frames_) + "}";
    summary.lost_cause = "a source's table or ring buffer was full (see stat, block and profile)";
}

const char* TopView::stopped() const {
    if (quit_) return "quit";
    if (iterations_ > 0 && frames_ >= static_cast<uint64_t>(iterations_)) return "iterations reached";
    return nullptr;
}

}  // namespace vtscope
