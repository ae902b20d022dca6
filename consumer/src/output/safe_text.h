// SPDX-License-Identifier: Apache-2.0
// Strings that come from a target (thread names, symbols, replies, file contents) made safe for
// the place they are written to. The target chooses every byte of them: a terminal escape in a
// thread name would drive the user's terminal, a newline in a symbol would forge a line.
#pragma once

#include <string>
#include <string_view>

namespace vtscope {

// text with each byte that starts no well-formed UTF-8 character (RFC 3629: thread names cut at
// 15 bytes by the kernel, say) replaced by U+FFFD, so JSON and XML readers take it.
std::string valid_utf8(std::string_view text);

// For a terminal or a one-line message: well-formed UTF-8 (else U+FFFD), and every control
// character (C0 including newline and tab, DEL, C1) and every bidirectional override or isolate
// (U+202A-U+202E, U+2066-U+2069, which reorder what the terminal shows) written as a visible
// escape: \n, \t, \r, \xNN or \u{NNNN}.
std::string terminal_safe(std::string_view text);

// One frame of a folded stack ("root;frame;...;leaf count", one stack a line, as flamegraph.pl
// and speedscope read it): terminal_safe (so no newline forges a line and no control reaches a
// tool that prints it), and ';', which would split the frame in two, written as ':'.
std::string folded_frame_safe(std::string_view text);

// Character data or an attribute value of an XML 1.0 document (an SVG): well-formed UTF-8, the
// five markup characters as entities, and every character XML 1.0 does not allow (section 2.2,
// Char: C0 controls, U+FFFE, U+FFFF), which makes a parser refuse the whole document, replaced:
// tab, newline and carriage return by a space (a label is one line), the others by U+FFFD.
std::string xml_safe(std::string_view text);

}  // namespace vtscope
