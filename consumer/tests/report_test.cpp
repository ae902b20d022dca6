// SPDX-License-Identifier: Apache-2.0
#include "output/report.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>

#include "output/diagnostics.h"
#include "output/json_io.h"
#include "output/output_file.h"
#include "core/session.h"
#include "core/summary.h"

TEST(Report, AggregatesPerTrace) {
    std::istringstream in(
        R"({"ts_ns":1,"pid":1,"tid":2,"vthread":30,"java_thread":30,"trace_id":"aa","span_id":"01","trace_flags":1,"status":"ok","syscall":"write","fd":4,"count":100}
{"ts_ns":2,"pid":1,"tid":2,"vthread":30,"java_thread":30,"trace_id":"aa","span_id":"02","trace_flags":1,"status":"ok","syscall":"read","fd":4,"count":50}
{"ts_ns":3,"pid":1,"tid":3,"vthread":31,"java_thread":31,"trace_id":"bb","span_id":"03","trace_flags":1,"status":"ok","syscall":"write","fd":4,"count":500}
{"ts_ns":4,"pid":1,"tid":3,"vthread":null,"java_thread":5,"trace_id":null,"span_id":null,"trace_flags":null,"status":"no_context","syscall":"write","fd":1,"count":9}
not json
)");
    vtscope::ReportData data = vtscope::collect_report(in);
    EXPECT_EQ(data.lines, 5u);
    EXPECT_EQ(data.malformed, 1u);
    EXPECT_EQ(data.by_status["ok"], 3u);
    EXPECT_EQ(data.by_status["no_context"], 1u);
    ASSERT_EQ(data.traces.size(), 2u);
    EXPECT_EQ(data.traces["aa"].syscalls, 2u);
    EXPECT_EQ(data.traces["aa"].bytes, 150u);
    EXPECT_EQ(data.traces["bb"].bytes, 500u);
    std::string text = vtscope::render_report(data, 1);
    EXPECT_NE(text.find("top 1 traces by bytes requested"), std::string::npos) << text;
    EXPECT_NE(text.find("bb"), std::string::npos);
    EXPECT_EQ(text.find("  aa "), std::string::npos) << "only the top trace is listed:\n" << text;
    EXPECT_NE(text.find("ok 3 (75.0%)"), std::string::npos) << text;
}

// A trace per request would grow the table for as long as the session runs: past twice its keep
// the traces with the fewest bytes leave it, the report says so, and the status counts stay exact.
TEST(Report, TracesPastTwiceTheKeepAreFolded) {
    std::ostringstream lines;
    for (int i = 1; i <= 5; i++)
        lines << R"({"ts_ns":1,"pid":1,"tid":2,"vthread":30,"java_thread":30,"trace_id":"t)" << i
              << R"(","span_id":"01","trace_flags":1,"status":"ok","syscall":"write","fd":4,"count":)" << 100 * i
              << "}\n";
    std::istringstream in(lines.str());
    vtscope::ReportData data = vtscope::collect_report(in, 2);
    EXPECT_EQ(data.by_status["ok"], 5u);
    ASSERT_EQ(data.traces.size(), 2u);
    EXPECT_EQ(data.traces.count("t4") + data.traces.count("t5"), 2u);
    EXPECT_EQ(data.folded_traces.keys, 3u);
    EXPECT_EQ(data.folded_traces.weight, 3u);
    std::string text = vtscope::render_report(data, 10);
    EXPECT_NE(text.find("traces: 3 more (3 syscalls) with the fewest bytes left this list, which keeps 2 in memory"),
              std::string::npos)
        << text;
}

TEST(Report, JsonFields) {
    std::string_view line = R"({"a": 12, "b":"x y","c":null,"d":-3})";
    EXPECT_EQ(vtscope::json_int_field(line, "a"), 12);
    EXPECT_EQ(vtscope::json_string_field(line, "b"), "x y");
    EXPECT_FALSE(vtscope::json_int_field(line, "c").has_value());
    EXPECT_EQ(vtscope::json_int_field(line, "d"), -3);
    EXPECT_FALSE(vtscope::json_string_field(line, "e").has_value());
}

// vtscope report reads a file of any origin: its trace ids and syscall names are shown as text.
TEST(Report, TerminalEscapesInTheInputAreShownNotRun) {
    // Escaped as JSON requires (a raw control character in a string is no JSON: such a line is
    // counted malformed); the reader turns them back into the escape characters.
    std::istringstream in(R"({"pid":1,"tid":2,"trace_id":"\u001b]0;pwned\u0007","status":"ok",)"
                          R"("syscall":"wr\u001b[2Jite","count":5})"
                          "\n");
    vtscope::ReportData data = vtscope::collect_report(in);
    ASSERT_EQ(data.traces.size(), 1u);
    std::string text = vtscope::render_report(data, 10);
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
    EXPECT_NE(text.find("\\x1b]0;pwned\\x07"), std::string::npos) << text;
    EXPECT_NE(text.find("wr\\x1b[2Jite 1"), std::string::npos) << text;
}

// The end-of-session summary names the target's service (its process context) and replies of
// the network: a terminal escape in them is shown, not run, and each stays on its line.
TEST(Summary, TargetStringsInTheTextSummaryAreTerminalSafe) {
    vtscope::Summary s;
    s.otlp_service_name = "svc\x1b]0;pwned\x07\nvtscope: forged line";
    s.otlp_service_name_source = "process_context";
    s.region_found = false;
    s.missing_region = "no record region in /memfd:\x1b[2J";
    s.thread_context_tls_error = std::string("bad symbol \x1b[31m");
    std::string text = vtscope::render_summary_text(s);
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
    EXPECT_NE(text.find("service.name svc\\x1b]0;pwned\\x07\\nvtscope: forged line (from process_context)\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("no record region in /memfd:\\x1b[2J\n"), std::string::npos) << text;
    EXPECT_NE(text.find("never found: bad symbol \\x1b[31m\n"), std::string::npos) << text;
}

namespace {
// A fresh directory, removed with what is in it at the end.
struct ScratchDir {
    std::string path;
    ScratchDir() {
        char name[] = "/tmp/vtscope-output-test-XXXXXX";
        path = mkdtemp(name) ? name : "";
    }
    ~ScratchDir() { std::filesystem::remove_all(path); }
};
std::string contents(const std::string& path) {
    std::ifstream f(path);
    return std::string(std::istreambuf_iterator<char>(f), {});
}
}  // namespace

// The target's user can plant a name where root's output will go (a shared /tmp): a symbolic
// link there once made vtscope truncate and write the file it points at.
TEST(OutputFile, ASymlinkAtThePathIsRefusedAndItsTargetUnchanged) {
    ScratchDir dir;
    ASSERT_FALSE(dir.path.empty());
    std::string victim = dir.path + "/victim", link = dir.path + "/report.txt";
    { std::ofstream(victim) << "root's file\n"; }
    ASSERT_EQ(symlink(victim.c_str(), link.c_str()), 0);
    auto opened = vtscope::OutputFile::open(link);
    ASSERT_FALSE(opened.ok()) << "a symbolic link was followed";
    EXPECT_NE(opened.error().message.find("symbolic link"), std::string::npos) << opened.error().message;
    EXPECT_EQ(opened.error().message.find('\n'), std::string::npos);
    EXPECT_EQ(contents(victim), "root's file\n");

    std::string hard = dir.path + "/hard.txt";
    ASSERT_EQ(::link(victim.c_str(), hard.c_str()), 0);
    EXPECT_FALSE(vtscope::OutputFile::open(hard).ok()) << "a second hard link of another file was truncated";
    EXPECT_EQ(contents(victim), "root's file\n");
}

TEST(OutputFile, ANewFileIsCreated0600AndAnOldOneTruncated) {
    ScratchDir dir;
    std::string path = dir.path + "/out.txt";
    mode_t old_mask = umask(0);  // the mode is vtscope's, not the caller's umask
    auto opened = vtscope::OutputFile::open(path);
    umask(old_mask);
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    (*opened)->write("first, longer\n");
    opened->reset();
    struct stat st {};
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    auto again = vtscope::OutputFile::open(path);
    ASSERT_TRUE(again.ok()) << again.error().message;
    (*again)->write("second\n");
    again->reset();
    EXPECT_EQ(contents(path), "second\n");
}

TEST(OutputFile, AFifoWithoutAReaderFailsInsteadOfHanging) {
    ScratchDir dir;
    std::string fifo = dir.path + "/fifo";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    auto opened = vtscope::OutputFile::open(fifo);
    EXPECT_FALSE(opened.ok());
}

// /dev/stdout is a symbolic link that users name for standard output: it is taken as "-", not
// refused as a link.
TEST(OutputFile, DevStdoutIsStandardOutput) {
    auto opened = vtscope::OutputFile::open("/dev/stdout");
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    ::testing::internal::CaptureStdout();
    (*opened)->write("to the stream\n");
    (*opened)->flush();
    EXPECT_EQ(::testing::internal::GetCapturedStdout(), "to the stream\n");
}

// A session's error names what failed, often a string of the target's: one line on the
// terminal, its escapes shown, and the summary JSON written through OutputFile (0600).
TEST(Session, AnErrorIsOneTerminalSafeLineAndItsSummaryFileIs0600) {
    ScratchDir dir;
    vtscope::SessionOptions options{"profile", std::nullopt, "", dir.path + "/summary.json"};
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(vtscope::fail(options, "attach reply \x1b]0;pwned\x07\nvtscope: forged"), 1);
    std::string printed = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(printed, "vtscope: error: attach reply \\x1b]0;pwned\\x07\\nvtscope: forged\n");
    struct stat st {};
    ASSERT_EQ(stat(options.summary_json.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    EXPECT_NE(contents(options.summary_json).find("\"error\":\"attach reply \\u001b]0;pwned"), std::string::npos)
        << contents(options.summary_json);
}

// Every note and warning goes through one module: one prefix, terminal_safe text, counted, and
// carried by the summary JSON (bounded) so that tests need not search stderr.
TEST(Diagnostics, CountedPrefixedAndCarriedByTheSummaryJson) {
    namespace diag = vtscope::diagnostics;
    diag::reset();
    EXPECT_EQ(diag::line(diag::Kind::kWarning, "thread \x1b[2J\nforged"),
              "vtscope: warning: thread \\x1b[2J\\nforged\n");
    diag::note("tracefs was not mounted");
    diag::print_formatted("vtscope: warning: otlp: exporting under service.name=unknown_service");
    for (size_t i = 0; i < diag::kMaxMessages + 3; i++) diag::count(diag::Kind::kWarning, "w" + std::to_string(i));
    diag::Counts counts = diag::counts();
    EXPECT_EQ(counts.notes, 1u);
    EXPECT_EQ(counts.warnings, diag::kMaxMessages + 4);
    EXPECT_EQ(counts.errors, 0u);
    ASSERT_EQ(counts.messages.size(), diag::kMaxMessages);
    EXPECT_EQ(counts.messages[1].text, "otlp: exporting under service.name=unknown_service");
    EXPECT_EQ(counts.messages_dropped, 5u);

    vtscope::Summary s;
    s.lost = 2;
    s.lost_cause = "the ring buffer was full";
    ASSERT_EQ(vtscope::summary_warnings(s).size(), 1u);
    EXPECT_NE(vtscope::render_summary_text(s).find("vtscope: warning: 2 events were not counted: the ring buffer"),
              std::string::npos);
    s.diagnostics = counts;
    vtscope::Json json = vtscope::parse_json(vtscope::render_summary_json(s));
    const vtscope::Json& d = vtscope::json_at(json, "diagnostics");
    EXPECT_EQ(vtscope::json_number(vtscope::json_at(d, "notes")), 1);
    EXPECT_EQ(vtscope::json_number(vtscope::json_at(d, "warnings")), diag::kMaxMessages + 4);
    EXPECT_EQ(vtscope::json_array(vtscope::json_at(d, "messages")).size(), diag::kMaxMessages);
    EXPECT_EQ(vtscope::json_string(vtscope::json_at(vtscope::json_array(vtscope::json_at(d, "messages"))[0], "kind")),
              "note");
    EXPECT_EQ(vtscope::json_number(vtscope::json_at(d, "messages_dropped")), 5);
    diag::reset();
    EXPECT_EQ(diag::counts().warnings, 0u);
}

// A command's summary section is printed whole; its note and warning lines are counted, its other
// lines (totals, lists) are not.
TEST(Diagnostics, NotesAndWarningsOfASectionAreCounted) {
    namespace diag = vtscope::diagnostics;
    diag::reset();
    diag::count_lines("vtscope: block: 3 intervals\n" + diag::line(diag::Kind::kNote, "block: 2 switch-ins") +
                      "vtscope: block: trace abc: 1 intervals\n" +
                      diag::line(diag::Kind::kWarning, "block: 1 intervals dropped") + "vtscope: note: last");
    diag::Counts counts = diag::counts();
    EXPECT_EQ(counts.notes, 2u);
    EXPECT_EQ(counts.warnings, 1u);
    ASSERT_EQ(counts.messages.size(), 3u);
    EXPECT_EQ(counts.messages[1].text, "block: 1 intervals dropped");
    diag::reset();
}

// The summary JSON through nlohmann: field order, integers as integers, null where absent, and
// the event source's section embedded as the object it wrote.
TEST(Diagnostics, SummaryJsonKeepsItsShape) {
    vtscope::Summary s;
    s.command = "block";
    s.section_name = "block";
    s.section_json = R"({"intervals":3,"share":0.123456789012345})";
    std::string text = vtscope::render_summary_json(s);
    EXPECT_EQ(text.rfind(R"({"command":"block","identity":"","stop_reason":"stopped","exit_code":0,"error":null,)", 0),
              0u)
        << text;
    EXPECT_NE(text.find(R"("writer":null,"block":{"intervals":3,"share":0.123456789012345},"otlp_resource":null,)"),
              std::string::npos)
        << text;
}

namespace {

// What parse_event_line returned when it read the whole document (before the SAX reader): the
// reference its result must equal.
std::optional<vtscope::ParsedEvent> event_from_document(std::string_view line) {
    vtscope::Json j = vtscope::parse_json(line);
    auto status = vtscope::json_string_member(j, "status");
    auto syscall = vtscope::json_string_member(j, "syscall");
    auto pid = vtscope::json_int_member(j, "pid");
    auto tid = vtscope::json_int_member(j, "tid");
    if (!status || !syscall || !pid || !tid) return std::nullopt;
    vtscope::ParsedEvent e;
    e.pid = static_cast<uint32_t>(*pid);
    e.tid = static_cast<uint32_t>(*tid);
    e.status = *status;
    e.syscall = *syscall;
    e.reason = vtscope::json_string_member(j, "reason").value_or("");
    e.trace_id = vtscope::json_string_member(j, "trace_id").value_or("");
    e.span_id = vtscope::json_string_member(j, "span_id").value_or("");
    e.vthread = vtscope::json_int_member(j, "vthread");
    e.java_thread = vtscope::json_int_member(j, "java_thread");
    if (auto flags = vtscope::json_int_member(j, "trace_flags")) e.trace_flags = static_cast<int>(*flags);
    e.fd = vtscope::json_int_member(j, "fd");
    if (auto count = vtscope::json_int_member(j, "count"); count && *count >= 0)
        e.count = static_cast<uint64_t>(*count);
    return e;
}

std::string describe(const std::optional<vtscope::ParsedEvent>& e) {
    if (!e) return "none";
    auto opt = [](const auto& v) { return v ? std::to_string(*v) : std::string("-"); };
    return std::to_string(e->pid) + "/" + std::to_string(e->tid) + " " + e->status + " " + e->reason + " " +
           e->trace_id + " " + e->span_id + " " + e->syscall + " " + opt(e->vthread) + " " + opt(e->java_thread) + " " +
           opt(e->trace_flags) + " " + opt(e->fd) + " " + opt(e->count);
}

std::string nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

}  // namespace

// parse_event_line reads through nlohmann's SAX interface; what it gives must be what the whole
// document gives: crafted cases (duplicate keys, other types, nesting at the bound, trailing
// text), then 20,000 random edits of real lines.
TEST(EventLine, SaxReadingEqualsTheDocumentsMembers) {
    const std::string ok =
        R"({"ts_ns":1,"pid":7,"tid":8,"vthread":21,"java_thread":3,"trace_id":"0af7651916cd43dd8448eb211c80319c",)"
        R"("span_id":"b7ad6b7169203331","trace_flags":1,"status":"ok","syscall":"write","fd":1,"count":1003})";
    const std::string unknown =
        R"({"ts_ns":2,"pid":7,"tid":9,"vthread":null,"java_thread":null,"trace_id":null,"span_id":null,)"
        R"("trace_flags":null,"status":"context_unknown","reason":"torn_record","syscall":"read","fd":-1,"count":0})";
    std::vector<std::string> lines = {
        ok,
        unknown,
        "",
        "{}",
        "[]",
        "1",
        "\"x\"",
        "null",
        ok + " ",
        ok + "x",
        ok + "{}",
        R"({"pid":1,"tid":2,"status":"ok","syscall":"w","pid":"x"})",
        R"({"pid":1,"tid":2,"status":"ok","syscall":"w","tid":3})",
        R"({"pid":1.5,"tid":2,"status":"ok","syscall":"w"})",
        R"({"pid":1,"tid":2,"status":"ok","syscall":"w","count":-5,"fd":18446744073709551615})",
        R"({"pid":1,"tid":2,"status":"ok","syscall":"w","count":9223372036854775807,"vthread":{"a":1}})",
        R"({"pid":1,"tid":2,"status":"ok","syscall":"w","trace_id":["x"],"span_id":true})",
        R"({"pid":1,"tid":2,"status":"o\u006b\n","syscall":"w\"\\"})",
        "{\"pid\":1,\"tid\":2,\"status\":\"\xff\",\"syscall\":\"w\"}",
    };
    for (int depth : {62, 63, 64, 65, 66, 67}) {
        lines.push_back(R"({"pid":1,"tid":2,"status":"ok","syscall":"w","x":)" + nested(depth) + "}");
        lines.push_back(R"({"pid":1,"tid":2,"status":"ok","syscall":"w","x":)" + std::string(depth, '[') + "1" +
                        std::string(depth, ']') + "}");
    }
    std::mt19937 random(20261207);
    const std::string alphabet = "{}[]\":,0123456789-.eE ntrufalsx\\";
    for (int i = 0; i < 20000; i++) {
        std::string line = i % 2 ? ok : unknown;
        for (int edits = 1 + int(random() % 3); edits > 0; edits--) {
            size_t at = random() % line.size();
            char c = alphabet[random() % alphabet.size()];
            if (random() % 2)
                line[at] = c;
            else
                line.insert(line.begin() + at, c);
        }
        lines.push_back(line);
    }
    int parsed = 0;
    for (const std::string& line : lines) {
        auto got = vtscope::parse_event_line(line), want = event_from_document(line);
        ASSERT_EQ(describe(got), describe(want)) << line;
        parsed += got.has_value();
    }
    EXPECT_GT(parsed, 1000);  // the edits leave many lines valid: the comparison is not all "none"
}
