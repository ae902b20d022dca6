// SPDX-License-Identifier: Apache-2.0
// Every note, warning and error vtscope prints on stderr, written one way ("vtscope: KIND: TEXT",
// one line, TEXT terminal_safe: it often names the target's own strings) and counted by kind, so
// that the summary JSON carries them ("diagnostics") and tests assert on counts, not on stderr.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vtscope::diagnostics {

enum class Kind { kNote, kWarning, kError };

// The messages kept for the summary JSON; beyond them only the counts grow.
constexpr size_t kMaxMessages = 32;

struct Counts {
    uint64_t notes = 0;
    uint64_t warnings = 0;
    uint64_t errors = 0;
    struct Message {
        Kind kind;
        std::string text;  // as printed, after the prefix
    };
    std::vector<Message> messages;  // the first kMaxMessages, in order
    uint64_t messages_dropped = 0;  // those past kMaxMessages
};

const char* kind_name(Kind kind);  // "note", "warning", "error"

// The line "vtscope: KIND: TEXT\n" with TEXT terminal_safe; neither printed nor counted.
std::string line(Kind kind, std::string_view text);
// Prints line(kind, text) on stderr and counts it.
void print(Kind kind, std::string_view text);
inline void note(std::string_view text) { print(Kind::kNote, text); }
inline void warning(std::string_view text) { print(Kind::kWarning, text); }
inline void error(std::string_view text) { print(Kind::kError, text); }
// Counts a message printed as part of a larger text (the summary's lines), without printing it.
void count(Kind kind, std::string_view text);
// Counts each line of a text printed as a whole (a command's summary section) that is a note,
// warning or error as line() writes them; other lines are not diagnostics.
void count_lines(std::string_view text);
// Prints a line another module formatted as "vtscope: note: ..." or "vtscope: warning: ...",
// counted by that prefix (a line without one is printed and counted as a note).
void print_formatted(std::string_view line);

// What was printed or counted so far in this process.
Counts counts();
// Forgets every count (tests).
void reset();

}  // namespace vtscope::diagnostics
