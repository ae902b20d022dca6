// SPDX-License-Identifier: Apache-2.0
#include "output/safe_text.h"

#include <gtest/gtest.h>

namespace vtscope {
namespace {

TEST(TerminalSafe, KeepsPlainTextAndUnicode) {
    EXPECT_EQ(terminal_safe("VirtualThread-7 Grüße 線程"), "VirtualThread-7 Grüße 線程");
}

TEST(TerminalSafe, EscapesTerminalControlSequences) {
    // ESC ] 0 ; title BEL sets the window title; ESC [ 2 J clears the screen.
    EXPECT_EQ(terminal_safe("a\x1b]0;pwned\x07"
                            "b\x1b[2J"),
              "a\\x1b]0;pwned\\x07b\\x1b[2J");
    EXPECT_EQ(terminal_safe("line\nforged: ok\r\t"), "line\\nforged: ok\\r\\t");
    EXPECT_EQ(terminal_safe("del\x7f"), "del\\x7f");
}

TEST(TerminalSafe, EscapesC1ControlsAndBidiOverrides) {
    EXPECT_EQ(terminal_safe("\xc2\x9b"
                            "31m"),
              "\\u{009b}31m");  // CSI as a C1 character
    EXPECT_EQ(terminal_safe("a\xe2\x80\xae"
                            "b"),
              "a\\u{202e}b");  // RIGHT-TO-LEFT OVERRIDE
    EXPECT_EQ(terminal_safe("\xe2\x81\xa6"
                            "x"),
              "\\u{2066}x");  // LEFT-TO-RIGHT ISOLATE
}

TEST(TerminalSafe, ReplacesMalformedUtf8) {
    EXPECT_EQ(terminal_safe("ab\xff"
                            "c"),
              "ab\xef\xbf\xbd"
              "c");
    EXPECT_EQ(terminal_safe(std::string_view("a\0b", 3)), "a\\x00b");
}

// A symbol or thread name of the target's choosing must stay one frame of one line.
TEST(FoldedFrameSafe, NewlinesAndSemicolonsCannotForgeLinesOrFrames) {
    EXPECT_EQ(folded_frame_safe("java.lang.Thread.run"), "java.lang.Thread.run");
    EXPECT_EQ(folded_frame_safe("f\nforged;stack 1000000"), "f\\nforged:stack 1000000");
    EXPECT_EQ(folded_frame_safe("a;b;c"), "a:b:c");
    EXPECT_EQ(folded_frame_safe("x\r\x1b[2J\xff"), "x\\r\\x1b[2J\xef\xbf\xbd");
}

TEST(XmlSafe, EscapesMarkupAndReplacesWhatXmlForbids) {
    EXPECT_EQ(xml_safe("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
    EXPECT_EQ(xml_safe("tab\tnl\ncr\r"), "tab nl cr ");
    EXPECT_EQ(xml_safe(std::string_view("nul\0esc\x1b", 8)),
              "nul\xef\xbf\xbd"
              "esc\xef\xbf\xbd");
    EXPECT_EQ(xml_safe("\xef\xbf\xbe|\xef\xbf\xbf"), "\xef\xbf\xbd|\xef\xbf\xbd");  // U+FFFE, U+FFFF
    EXPECT_EQ(xml_safe("\xef\xbf\xbd \xf0\x9f\x98\x80 \xe7\xb7\x9a"), "\xef\xbf\xbd \xf0\x9f\x98\x80 \xe7\xb7\x9a");
    EXPECT_EQ(xml_safe("bad\xc0"), "bad\xef\xbf\xbd");
}

}  // namespace
}  // namespace vtscope
