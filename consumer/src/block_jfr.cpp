#include "block_jfr.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "json.h"

extern char** environ;

namespace vtscope {
namespace {

int64_t clock_ns(clockid_t clock) {
    timespec ts{};
    clock_gettime(clock, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

// Runs argv with stdout to out_path and stderr to err_path; returns the exit code.
Expected<int> run_tool(const std::vector<std::string>& argv, const std::string& out_path, const std::string& err_path) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t child = 0;
    int err = posix_spawn(&child, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (err != 0) return make_error("cannot run " + argv[0] + ": " + std::strerror(err));
    int status = 0;
    while (waitpid(child, &status, 0) < 0) {
        if (errno != EINTR) return make_error("waiting for " + argv[0] + " failed: " + std::strerror(errno));
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string slurp(const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// The last non-empty line of a tool's output, for an error message.
std::string last_line(const std::string& text) {
    std::string line, last;
    std::istringstream in(text);
    while (std::getline(in, line))
        if (!line.empty()) last = line;
    return last;
}

std::string frame_text(const Json& frame) {
    const Json& method = frame["method"];
    std::string type = method["type"]["name"].string;
    for (char& c : type)
        if (c == '/') c = '.';
    std::string text = type + "." + method["name"].string;
    if (frame["lineNumber"].is_number() && frame["lineNumber"].number >= 0)
        text += ":" + std::to_string(static_cast<long>(frame["lineNumber"].number));
    return text;
}

}  // namespace

bool parse_jfr_instant(const std::string& text, int64_t* epoch_ns) {
    int y, mo, d, h, mi, s, used = 0;
    if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &s, &used) != 6) return false;
    int64_t frac = 0;
    size_t pos = static_cast<size_t>(used);
    if (pos < text.size() && text[pos] == '.') {
        int digits = 0;
        for (pos++; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; pos++)
            if (digits < 9) {
                frac = frac * 10 + (text[pos] - '0');
                digits++;
            }
        for (; digits < 9; digits++) frac *= 10;
    }
    if (pos >= text.size() || text[pos] != 'Z') return false;  // jfr print writes UTC
    tm t{};
    t.tm_year = y - 1900;
    t.tm_mon = mo - 1;
    t.tm_mday = d;
    t.tm_hour = h;
    t.tm_min = mi;
    t.tm_sec = s;
    *epoch_ns = static_cast<int64_t>(timegm(&t)) * 1000000000LL + frac;
    return true;
}

bool parse_jfr_duration(const std::string& text, uint64_t* ns) {
    if (text.rfind("PT", 0) != 0) return false;
    double total = 0;
    size_t pos = 2;
    bool any = false;
    while (pos < text.size()) {
        char* end = nullptr;
        double v = std::strtod(text.c_str() + pos, &end);
        size_t unit = static_cast<size_t>(end - text.c_str());
        if (end == text.c_str() + pos || unit >= text.size()) return false;
        switch (text[unit]) {
            case 'H': total += v * 3600; break;
            case 'M': total += v * 60; break;
            case 'S': total += v; break;
            default: return false;
        }
        any = true;
        pos = unit + 1;
    }
    if (!any || total < 0) return false;
    *ns = static_cast<uint64_t>(total * 1e9 + 0.5);
    return true;
}

Expected<std::vector<JfrPinnedEvent>> parse_jfr_pinned_json(const std::string& json, int64_t offset_ns) {
    Json root;
    std::string error;
    if (!parse_json(json, &root, &error)) return make_error("cannot parse the output of jfr print --json: " + error);
    std::vector<JfrPinnedEvent> events;
    for (const Json& e : root["recording"]["events"].array) {
        if (e["type"].string != "jdk.VirtualThreadPinned") continue;
        const Json& v = e["values"];
        JfrPinnedEvent p;
        int64_t epoch = 0;
        if (!parse_jfr_instant(v["startTime"].string, &epoch) ||
            !parse_jfr_duration(v["duration"].string, &p.duration_ns))
            return make_error("unexpected time in a JFR event: '" + v["startTime"].string + "', '" +
                              v["duration"].string + "'");
        p.start_ns = static_cast<uint64_t>(epoch - offset_ns);
        p.vthread = static_cast<int64_t>(v["eventThread"]["javaThreadId"].number);
        p.pinned_reason = v["pinnedReason"].string;
        p.blocking_operation = v["blockingOperation"].string;
        for (const Json& frame : v["stackTrace"]["frames"].array) p.stack.push_back(frame_text(frame));
        events.push_back(std::move(p));
    }
    return events;
}

namespace {

// A virtual thread is off-CPU in one interval at a time, so a window meets a handful of untaken
// ones; a target whose thread ids make more overlap at once gets the latest kMaxJoinCandidates
// only, so the join stays O(n log n) whatever it writes.
constexpr size_t kMaxJoinCandidates = 64;

// The intervals of one virtual thread in start order, with the latest end up to each of them:
// a backward scan from the last interval that starts before an event's window stops at the first
// whose prefix reaches no further than the window's start (none before it can overlap). Taken
// intervals are skipped in one step: untaken_[p] leads (with path halving) to the nearest untaken
// position below p (positions counted from 1; 0: none).
class ThreadIntervals {
public:
    void add(size_t index, uint64_t end_ns) {
        reach_.push_back(std::max(reach_.empty() ? 0 : reach_.back(), end_ns));
        index_.push_back(index);
        untaken_.push_back(untaken_.size());
    }

    // The interval overlapping [lo, hi) most (the earlier of equals), taken; -1 if none.
    long take_best(const std::vector<JfrJoinInterval>& intervals, uint64_t lo, uint64_t hi) {
        auto first_after =
            std::partition_point(index_.begin(), index_.end(), [&](size_t i) { return intervals[i].start_ns < hi; });
        size_t best = 0;  // a position, 0: none
        uint64_t best_overlap = 0;
        size_t scanned = 0;
        for (size_t p = untaken(static_cast<size_t>(first_after - index_.begin()));
             p > 0 && reach_[p - 1] > lo && scanned < kMaxJoinCandidates; p = untaken(p - 1), scanned++) {
            const JfrJoinInterval& interval = intervals[index_[p - 1]];
            uint64_t from = std::max(interval.start_ns, lo), to = std::min(interval.end_ns, hi);
            // >=: scanning backwards, the earlier of two equal overlaps wins, as in start order.
            if (to > from && to - from >= best_overlap) {
                best_overlap = to - from;
                best = p;
            }
        }
        if (best == 0) return -1;
        untaken_[best] = best - 1;
        return static_cast<long>(index_[best - 1]);
    }

private:
    size_t untaken(size_t p) {
        while (untaken_[p] != p) p = untaken_[p] = untaken_[untaken_[p]];
        return p;
    }
    std::vector<size_t> index_;
    std::vector<uint64_t> reach_;
    std::vector<size_t> untaken_ = {0};
};

}  // namespace

std::vector<long> join_pinned_events(const std::vector<JfrJoinInterval>& intervals,
                                     const std::vector<JfrPinnedEvent>& events, uint64_t slack_ns) {
    std::unordered_map<int64_t, ThreadIntervals> threads;
    for (size_t i = 0; i < intervals.size(); i++)
        if (intervals[i].eligible) threads[intervals[i].vthread].add(i, intervals[i].end_ns);
    std::vector<long> joined(events.size(), -1);
    for (size_t e = 0; e < events.size(); e++) {
        auto thread = threads.find(events[e].vthread);
        if (thread == threads.end()) continue;
        uint64_t lo = events[e].start_ns > slack_ns ? events[e].start_ns - slack_ns : 0;
        uint64_t hi = events[e].start_ns + events[e].duration_ns + slack_ns;
        joined[e] = thread->second.take_best(intervals, lo, hi);
    }
    return joined;
}

Expected<JfrRecording> JfrRecording::start(pid_t pid, uint64_t threshold_ns) {
    JfrRecording r;
    r.pid_ = pid;
    std::error_code ec;
    std::filesystem::path exe = std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec);
    if (ec) return make_error("--jfr: cannot find the target's java: " + ec.message());
    r.bin_dir_ = exe.parent_path().string();
    for (const char* tool : {"jcmd", "jfr"})
        if (access((r.bin_dir_ + "/" + tool).c_str(), X_OK) != 0)
            return make_error(std::string("--jfr: the target's JDK has no ") + tool + " in " + r.bin_dir_);
    char dir[] = "/tmp/vtscope-jfr-XXXXXX";
    if (!mkdtemp(dir)) return make_error(std::string("--jfr: cannot create a directory: ") + std::strerror(errno));
    r.dir_ = dir;
    chmod(dir, 0777);  // the target JVM, perhaps another user, writes the recording here
    r.name_ = "vtscope-block-" + std::to_string(getpid());
    std::string threshold = std::to_string(threshold_ns) + "ns";
    auto rc = run_tool(
        {r.bin_dir_ + "/jcmd", std::to_string(pid), "JFR.start", "name=" + r.name_, "settings=none",
         "+jdk.VirtualThreadPinned#enabled=true", "jdk.VirtualThreadPinned#threshold=" + threshold,
         "jdk.VirtualThreadPinned#stackTrace=true", "filename=" + r.dir_ + "/recording.jfr", "dumponexit=true"},
        r.dir_ + "/jcmd.out", r.dir_ + "/jcmd.err");
    if (!rc) return rc.error();
    std::string out = slurp(r.dir_ + "/jcmd.out");
    if (*rc != 0 || out.find("Started recording") == std::string::npos)
        return make_error("--jfr: jcmd JFR.start failed: " + last_line(out + slurp(r.dir_ + "/jcmd.err")));
    r.realtime_minus_monotonic_ns_ = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC);
    return r;
}

JfrRecording::JfrRecording(JfrRecording&& o) noexcept
    : pid_(o.pid_),
      bin_dir_(std::move(o.bin_dir_)),
      dir_(std::move(o.dir_)),
      name_(std::move(o.name_)),
      realtime_minus_monotonic_ns_(o.realtime_minus_monotonic_ns_) {
    o.dir_.clear();
}

JfrRecording::~JfrRecording() {
    if (dir_.empty()) return;
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
}

Expected<std::vector<JfrPinnedEvent>> JfrRecording::finish(bool target_alive) {
    std::string file = dir_ + "/recording.jfr";
    if (target_alive) {
        auto rc = run_tool({bin_dir_ + "/jcmd", std::to_string(pid_), "JFR.stop", "name=" + name_}, dir_ + "/stop.out",
                           dir_ + "/stop.err");
        if (!rc) return rc.error();
        if (*rc != 0) return make_error("--jfr: jcmd JFR.stop failed: " + last_line(slurp(dir_ + "/stop.out")));
    }
    // A JVM that exited wrote the recording on its way out (dumponexit); give it a moment.
    for (int i = 0; i < 50 && access(file.c_str(), R_OK) != 0; i++)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (access(file.c_str(), R_OK) != 0) return make_error("--jfr: the target wrote no recording");
    auto rc = run_tool(
        {bin_dir_ + "/jfr", "print", "--json", "--stack-depth", "16", "--events", "jdk.VirtualThreadPinned", file},
        dir_ + "/print.json", dir_ + "/print.err");
    if (!rc) return rc.error();
    if (*rc != 0) return make_error("--jfr: jfr print failed: " + last_line(slurp(dir_ + "/print.err")));
    return parse_jfr_pinned_json(slurp(dir_ + "/print.json"), realtime_minus_monotonic_ns_);
}

}  // namespace vtscope
