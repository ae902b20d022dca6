// Strings that come from a target (thread names, symbols, replies, file contents) made safe for
// the place they are written to. The target chooses every byte of them: a terminal escape in a
// thread name would drive the user's terminal, a newline in a symbol would forge a line.
#pragma once

#include <string>
#include <string_view>

namespace vtscope {

// For a terminal or a one-line message: well-formed UTF-8 (else U+FFFD), and every control
// character (C0 including newline and tab, DEL, C1) and every bidirectional override or isolate
// (U+202A-U+202E, U+2066-U+2069, which reorder what the terminal shows) written as a visible
// escape: \n, \t, \r, \xNN or \u{NNNN}.
std::string terminal_safe(std::string_view text);

}  // namespace vtscope
