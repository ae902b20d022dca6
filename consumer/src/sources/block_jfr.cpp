// SPDX-License-Identifier: Apache-2.0
#include "sources/block_jfr.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "output/json_io.h"
#include "jvm/jvm_attach.h"
#include "output/safe_text.h"

namespace vtscope {
namespace {

constexpr auto kAttachTimeout = std::chrono::seconds(10);
// jfr print --json of a recording of at most kMaxRecordingBytes holding only pinned events.
constexpr size_t kMaxJfrJsonBytes = 256u << 20;
constexpr size_t kMaxToolStderrBytes = 64u << 10;
constexpr auto kJfrPrintTimeout = std::chrono::seconds(120);

int64_t clock_ns(clockid_t clock) {
    timespec ts{};
    clock_gettime(clock, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

// The last non-empty line of a tool's output, escaped, for an error message.
std::string last_line(const std::string& text) {
    std::string line, last;
    std::istringstream in(text);
    while (std::getline(in, line))
        if (!line.empty()) last = line;
    return terminal_safe(last.substr(0, 512));
}

// One path of the trusted JDK: owned by root, writable by root alone, of the expected type.
Status check_root_only(const std::string& path, bool directory) {
    struct stat st {};
    if (lstat(path.c_str(), &st) != 0)
        return make_error("--jfr-jdk: cannot stat " + terminal_safe(path) + ": " + std::strerror(errno));
    if (directory ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
        return make_error("--jfr-jdk: " + terminal_safe(path) + " is not a " +
                          (directory ? "directory" : "regular file") + " (refused)");
    if (st.st_uid != 0) return make_error("--jfr-jdk: " + terminal_safe(path) + " is not owned by root (refused)");
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        return make_error("--jfr-jdk: " + terminal_safe(path) + " is group- or other-writable (refused)");
    return ok_status();
}

// The real uid and gid of the target (the first field of Uid: and Gid: in /proc/PID/status, as
// this process's user namespace sees them: fs/proc/array.c, task_state).
Status read_target_ids(pid_t pid, uid_t* uid, gid_t* gid) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    int found = 0;
    while (std::getline(status, line)) {
        bool is_uid = line.rfind("Uid:", 0) == 0, is_gid = line.rfind("Gid:", 0) == 0;
        if (!is_uid && !is_gid) continue;
        unsigned long id = std::strtoul(line.c_str() + 4, nullptr, 10);
        if (is_uid) *uid = static_cast<uid_t>(id);
        if (is_gid) *gid = static_cast<gid_t>(id);
        found++;
    }
    if (found != 2) return make_error("--jfr: cannot read the uid and gid of process " + std::to_string(pid));
    return ok_status();
}

// 16 random hex digits (empty if the kernel has no randomness to give).
std::string random_hex() {
    unsigned char bytes[8] = {};
    if (getrandom(bytes, sizeof(bytes), 0) != static_cast<ssize_t>(sizeof(bytes))) return "";
    std::string hex;
    char digits[3];
    for (unsigned char b : bytes) {
        std::snprintf(digits, sizeof(digits), "%02x", b);
        hex += digits;
    }
    return hex;
}

// A JSON number that is a whole int64 (a recording's numbers are the target's: 1e300 or NaN
// cast to an integer is undefined behaviour).
bool json_integer(const Json& value, int64_t* out) {
    if (!value.is_number()) return false;
    double v = value.get<double>();
    if (!std::isfinite(v) || v != std::trunc(v) || v < -9.2e18 || v > 9.2e18) return false;
    *out = static_cast<int64_t>(v);
    return true;
}

std::string frame_text(const Json& frame) {
    const Json& method = json_member(frame, "method");
    std::string type = json_string(json_at(method, "type", "name"));
    for (char& c : type)
        if (c == '/') c = '.';
    std::string text = type + "." + json_string(json_member(method, "name"));
    if (int64_t line = 0; json_integer(json_member(frame, "lineNumber"), &line) && line >= 0)
        text += ":" + std::to_string(line);
    return text;
}

}  // namespace

bool parse_jfr_instant(const std::string& text, int64_t* epoch_ns) {
    int y, mo, d, h, mi, s, used = 0;
    if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &s, &used) != 6) return false;
    // Within what an int64 of nanoseconds since the epoch holds (to 2262), and a real date.
    if (y < 1970 || y > 2200 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 ||
        s > 60)
        return false;
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
        if (end == text.c_str() + pos || unit >= text.size() || !std::isfinite(v) || v < 0) return false;
        switch (text[unit]) {
            case 'H': total += v * 3600; break;
            case 'M': total += v * 60; break;
            case 'S': total += v; break;
            default: return false;
        }
        any = true;
        pos = unit + 1;
    }
    // At most a year (a pinned interval of a session); beyond it, or NaN, is not a duration.
    constexpr double kMaxSeconds = 366.0 * 24 * 3600;
    if (!any || !(total >= 0 && total <= kMaxSeconds)) return false;
    *ns = static_cast<uint64_t>(total * 1e9 + 0.5);
    return true;
}

Expected<std::vector<JfrPinnedEvent>> parse_jfr_pinned_json(const std::string& json, int64_t offset_ns) {
    Json root = parse_json(json);
    if (root.is_discarded())
        return make_error("cannot parse the output of jfr print --json: no JSON, or nested deeper than 64");
    std::vector<JfrPinnedEvent> events;
    for (const Json& e : json_array(json_at(root, "recording", "events"))) {
        if (json_string(json_member(e, "type")) != "jdk.VirtualThreadPinned") continue;
        const Json& v = json_member(e, "values");
        std::string start = json_string(json_member(v, "startTime"));
        std::string duration = json_string(json_member(v, "duration"));
        JfrPinnedEvent p;
        int64_t epoch = 0;
        if (!parse_jfr_instant(start, &epoch) || !parse_jfr_duration(duration, &p.duration_ns))
            // The recording is the target's: its text is escaped and shortened in the message.
            return make_error("unexpected time in a JFR event: '" + terminal_safe(start.substr(0, 64)) + "', '" +
                              terminal_safe(duration.substr(0, 64)) + "'");
        int64_t since_boot = 0;  // before this machine booted, it is not an event of this session
        if (__builtin_sub_overflow(epoch, offset_ns, &since_boot) || since_boot < 0)
            return make_error("unexpected time in a JFR event: '" + terminal_safe(start.substr(0, 64)) +
                              "' is before boot");
        p.start_ns = static_cast<uint64_t>(since_boot);
        if (!json_integer(json_at(v, "eventThread", "javaThreadId"), &p.vthread))
            return make_error("unexpected thread id in a JFR event");
        p.pinned_reason = json_string(json_member(v, "pinnedReason"));
        p.blocking_operation = json_string(json_member(v, "blockingOperation"));
        for (const Json& frame : json_array(json_at(v, "stackTrace", "frames"))) p.stack.push_back(frame_text(frame));
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

Expected<std::string> trusted_jfr_tool(const std::string& jdk_dir) {
    char resolved[PATH_MAX];
    if (!realpath(jdk_dir.c_str(), resolved))
        return make_error("--jfr-jdk: cannot resolve " + terminal_safe(jdk_dir) + ": " + std::strerror(errno));
    std::string dir = resolved;
    // Every directory from / down: whoever may write one of them could swap what lies below it.
    for (size_t slash = 0; slash != std::string::npos && slash < dir.size(); slash = dir.find('/', slash + 1))
        if (auto checked = check_root_only(slash == 0 ? "/" : dir.substr(0, slash), true); !checked)
            return checked.error();
    for (const std::string& path : {dir, dir + "/bin"})
        if (auto checked = check_root_only(path, true); !checked) return checked.error();
    if (auto checked = check_root_only(dir + "/bin/jfr", false); !checked) return checked.error();
    return dir + "/bin/jfr";
}

namespace {

// In the child between fork and exec: async-signal-safe calls only (vtscope has threads).
[[noreturn]] void exec_unprivileged(const UnprivilegedRun& run, char* const* argv, char* const* envp, int devnull,
                                    int out, int err) {
    if (dup2(devnull, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(126);
    if (run.cwd_fd >= 0 && fchdir(run.cwd_fd) != 0) _exit(126);
    syscall(SYS_close_range, 3u, ~0u, 0u);  // nothing of vtscope's reaches the program
    if (setgroups(0, nullptr) != 0 || setgid(run.gid) != 0 || setuid(run.uid) != 0) _exit(126);
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // after setuid, which clears it (prctl(2))
    execve(argv[0], argv, envp);
    _exit(127);
}

// The child until it is reaped: killed and reaped on every early way out.
struct Child {
    pid_t pid = -1;
    ~Child() {
        if (pid <= 0) return;
        kill(pid, SIGKILL);
        while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
        }
    }
};

// Reads the child's stdout and stderr until both end, within the caps and the timeout.
Status collect_output(const UnprivilegedRun& run, int out, int err, RunResult* result) {
    auto deadline = std::chrono::steady_clock::now() + run.timeout;
    pollfd fds[2] = {{out, POLLIN, 0}, {err, POLLIN, 0}};
    std::string* sinks[2] = {&result->out, &result->err};
    size_t caps[2] = {run.max_stdout, run.max_stderr};
    const std::string& program = run.argv[0];
    char buffer[65536];
    for (int open = 2; open > 0;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            return make_error(program + " did not finish in " + std::to_string(run.timeout.count()) + " ms (killed)");
        int ready = poll(fds, 2, static_cast<int>(std::min<long>(left.count(), 1000)));
        if (ready < 0 && errno != EINTR) return make_error(std::string("poll: ") + std::strerror(errno));
        for (int i = 0; i < 2 && ready > 0; i++) {
            if (fds[i].fd < 0 || fds[i].revents == 0) continue;
            ssize_t n = read(fds[i].fd, buffer, sizeof(buffer));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                fds[i].fd = -1;  // poll skips it
                open--;
                continue;
            }
            if (sinks[i]->size() + static_cast<size_t>(n) > caps[i])
                return make_error(program + " wrote more than " + std::to_string(caps[i] >> 10) + " KiB (killed)");
            sinks[i]->append(buffer, static_cast<size_t>(n));
        }
    }
    return ok_status();
}

}  // namespace

Expected<RunResult> run_unprivileged(const UnprivilegedRun& run) {
    std::vector<char*> argv;
    for (const std::string& a : run.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    // Nothing of root's environment: no JAVA_TOOL_OPTIONS, no LD_*, no HOME.
    char path_var[] = "PATH=/usr/bin:/bin", lang_var[] = "LANG=C.UTF-8";
    char* envp[] = {path_var, lang_var, nullptr};
    UniqueFd devnull(open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (!devnull) return make_error(std::string("cannot open /dev/null: ") + std::strerror(errno));
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) != 0) return make_error(std::string("pipe: ") + std::strerror(errno));
    UniqueFd out_read(out[0]), out_write(out[1]);
    if (pipe2(err, O_CLOEXEC) != 0) return make_error(std::string("pipe: ") + std::strerror(errno));
    UniqueFd err_read(err[0]), err_write(err[1]);
    Child child;
    child.pid = fork();
    if (child.pid < 0) return make_error("cannot run " + run.argv[0] + ": " + std::strerror(errno));
    if (child.pid == 0) exec_unprivileged(run, argv.data(), envp, devnull.get(), out[1], err[1]);
    out_write = UniqueFd();
    err_write = UniqueFd();
    RunResult result;
    if (auto collected = collect_output(run, out_read.get(), err_read.get(), &result); !collected)
        return collected.error();
    // Its output has ended; the program gets the timeout once more to exit (a process of the
    // target's uid may ptrace it and keep it alive).
    auto deadline = std::chrono::steady_clock::now() + run.timeout;
    int status = 0;
    while (true) {
        pid_t waited = waitpid(child.pid, &status, WNOHANG);
        if (waited == child.pid) break;
        if (waited < 0 && errno != EINTR)
            return make_error("waiting for " + run.argv[0] + " failed: " + std::strerror(errno));
        if (std::chrono::steady_clock::now() >= deadline)
            return make_error(run.argv[0] + " did not exit after its output ended (killed)");
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    child.pid = -1;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return result;
}

Expected<JfrRecording> JfrRecording::start(pid_t pid, uint64_t threshold_ns, const std::string& jfr_jdk) {
    JfrRecording r;
    r.pid_ = pid;
    auto tool = trusted_jfr_tool(jfr_jdk);
    if (!tool) return tool.error();
    r.jfr_tool_ = *tool;
    if (auto ids = read_target_ids(pid, &r.uid_, &r.gid_); !ids) return ids.error();
    // The root, held now, keeps the target's /tmp reachable after it exits (dumponexit).
    auto root = TargetRoot::open(pid);
    if (!root) return make_error("--jfr: " + root.error().message);
    r.root_.emplace(std::move(*root));
    auto tmp = r.root_->open_directory("/tmp");
    if (!tmp) return make_error("--jfr: " + tmp.error().message);
    r.target_tmp_ = std::move(*tmp);
    // The JVM writes its recording as itself into its own /tmp (its mount namespace's): vtscope
    // creates nothing there and gives no directory of its own to the target.
    std::string random = random_hex();
    if (random.empty()) return make_error(std::string("--jfr: getrandom: ") + std::strerror(errno));
    r.file_name_ = "vtscope-jfr-" + random + ".jfr";
    r.name_ = "vtscope-block-" + std::to_string(getpid());
    std::string command = "JFR.start name=" + r.name_ +
                          " settings=none +jdk.VirtualThreadPinned#enabled=true jdk.VirtualThreadPinned#threshold=" +
                          std::to_string(threshold_ns) + "ns jdk.VirtualThreadPinned#stackTrace=true filename=/tmp/" +
                          r.file_name_ + " dumponexit=true";
    auto started = jvm_diagnostic_command(pid, command, kAttachTimeout);
    if (!started) return make_error("--jfr: " + started.error().message);
    if (started->find("Started recording") == std::string::npos)
        return make_error("--jfr: JFR.start failed: " + last_line(*started));
    r.realtime_minus_monotonic_ns_ = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC);
    return r;
}

JfrRecording::~JfrRecording() {
    if (target_tmp_ && !file_name_.empty()) unlinkat(target_tmp_.get(), file_name_.c_str(), 0);
}

namespace {

// Copies at most max_bytes of from into to (a recording that grows past the cap is refused).
Status copy_capped(int from, int to, uint64_t max_bytes) {
    char buffer[65536];
    uint64_t total = 0;
    for (;;) {
        ssize_t n = read(from, buffer, sizeof(buffer));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return make_error(std::string("--jfr: cannot read the recording: ") + std::strerror(errno));
        if (n == 0) return ok_status();
        total += static_cast<uint64_t>(n);
        if (total > max_bytes)
            return make_error("--jfr: the recording grew past " + std::to_string(max_bytes >> 20) + " MiB (refused)");
        for (ssize_t written = 0; written < n;) {
            ssize_t w = write(to, buffer + written, static_cast<size_t>(n - written));
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) return make_error(std::string("--jfr: cannot copy the recording: ") + std::strerror(errno));
            written += w;
        }
    }
}

// vtscope's work directory for jfr print: root's, 0700, from mkdtemp, holding `print`, a 0700
// directory of the target's uid with the copy of the recording. Removed with what vtscope made.
struct PrintDirectory {
    std::string path;
    UniqueFd outer, inner;
    ~PrintDirectory() {
        if (inner) unlinkat(inner.get(), "recording.jfr", 0);
        if (outer) unlinkat(outer.get(), "print", AT_REMOVEDIR);
        if (!path.empty()) rmdir(path.c_str());
    }
};

Status make_print_directory(PrintDirectory& dir, uid_t uid, gid_t gid) {
    char path[] = "/tmp/vtscope-jfr-XXXXXX";
    if (!mkdtemp(path)) return make_error(std::string("--jfr: cannot create a directory: ") + std::strerror(errno));
    dir.path = path;
    dir.outer = UniqueFd(open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!dir.outer || mkdirat(dir.outer.get(), "print", 0700) != 0)
        return make_error("--jfr: cannot create " + dir.path + "/print: " + std::strerror(errno));
    dir.inner = UniqueFd(openat(dir.outer.get(), "print", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!dir.inner || fchown(dir.inner.get(), uid, gid) != 0)
        return make_error("--jfr: cannot hand " + dir.path + "/print to uid " + std::to_string(uid) + ": " +
                          std::strerror(errno));
    return ok_status();
}

}  // namespace

// jfr print wants a path that ends in .jfr and opens it by name (getJFRInputFile and
// ensureFileExtension, jdk.jfr/jdk/jfr/internal/tool/Command.java), so the copy is a file: jfr
// starts inside `print` before it drops to the target's uid and names the copy
// /proc/self/cwd/recording.jfr, a magic link that skips root's 0700 directory above (other users
// cannot walk to it; a relative name would be made absolute through it and fail).
Expected<std::string> JfrRecording::print_recording(const TargetFile& recording) {
    PrintDirectory dir;
    if (auto made = make_print_directory(dir, uid_, gid_); !made) return made.error();
    UniqueFd copy(openat(dir.inner.get(), "recording.jfr", O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC, 0600));
    if (!copy || fchown(copy.get(), uid_, gid_) != 0)
        return make_error("--jfr: cannot create the copy of the recording: " + std::string(std::strerror(errno)));
    if (auto copied = copy_capped(recording.fd.get(), copy.get(), kMaxRecordingBytes); !copied) return copied.error();
    UnprivilegedRun run;
    run.argv = {jfr_tool_,  "-J-XX:-UsePerfData",      "print",
                "--json",   "--stack-depth",           "16",
                "--events", "jdk.VirtualThreadPinned", "/proc/self/cwd/recording.jfr"};
    run.uid = uid_;
    run.gid = gid_;
    run.cwd_fd = dir.inner.get();
    run.max_stdout = kMaxJfrJsonBytes;
    run.max_stderr = kMaxToolStderrBytes;
    run.timeout = kJfrPrintTimeout;
    auto printed = run_unprivileged(run);
    if (!printed) return make_error("--jfr: jfr print: " + printed.error().message);
    if (printed->exit_code != 0)
        return make_error("--jfr: jfr print failed (exit " + std::to_string(printed->exit_code) +
                          "): " + last_line(printed->err + printed->out));
    return std::move(printed->out);
}

Expected<std::vector<JfrPinnedEvent>> JfrRecording::finish(bool target_alive) {
    if (target_alive) {
        auto stopped = jvm_diagnostic_command(pid_, "JFR.stop name=" + name_, kAttachTimeout);
        if (!stopped) return make_error("--jfr: " + stopped.error().message);
    }
    // Read inside the target's root, no symlink, a regular file under the cap. A JVM that exited
    // wrote the recording on its way out (dumponexit): give it a moment.
    std::string path = "/tmp/" + file_name_;
    auto recording = root_->open_regular(path, kMaxRecordingBytes, Symlinks::kRefuse);
    for (int i = 0; i < 50 && !recording; i++) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        recording = root_->open_regular(path, kMaxRecordingBytes, Symlinks::kRefuse);
    }
    if (!recording) return make_error("--jfr: the target wrote no recording: " + recording.error().message);
    auto json = print_recording(*recording);
    if (!json) return json.error();
    return parse_jfr_pinned_json(*json, realtime_minus_monotonic_ns_);
}

}  // namespace vtscope
