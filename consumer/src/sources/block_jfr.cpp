// SPDX-License-Identifier: Apache-2.0
#include "sources/block_jfr.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "jvm/jvm_attach.h"
#include "output/safe_text.h"
#include "process/proc_status.h"
#include "process/unprivileged_run.h"

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
// this process's user namespace sees them: fs/proc/array.c, task_state; process/proc_status.h).
Status read_target_ids(pid_t pid, uid_t* uid, gid_t* gid) {
    auto status = read_proc_status(pid);
    if (!status || !status->has_uid || !status->has_gid)
        return make_error("--jfr: cannot read the uid and gid of process " + std::to_string(pid));
    *uid = status->real_uid;
    *gid = status->real_gid;
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

}  // namespace

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
    // Read inside the target's /tmp, no symlink, a regular file under the cap. A JVM that exited
    // wrote the recording on its way out (dumponexit): give it a moment. The /tmp is the one held
    // since the start, not a walk from the root: a JVM in a mount namespace of its own (a
    // container's private /tmp) takes that namespace's mounts with it when it exits, and from its
    // root "/tmp" would then be the directory under the mount, while the held descriptor still
    // reaches the tmpfs the JVM wrote to.
    UniqueFd tmp_fd(fcntl(target_tmp_.get(), F_DUPFD_CLOEXEC, 0));
    if (!tmp_fd) return make_error(std::string("--jfr: cannot hold the target's /tmp: ") + std::strerror(errno));
    TargetRoot tmp = TargetRoot::from_fd(std::move(tmp_fd), "the /tmp of process " + std::to_string(pid_));
    auto recording = tmp.open_regular(file_name_, kMaxRecordingBytes, Symlinks::kRefuse);
    for (int i = 0; i < 50 && !recording; i++) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        recording = tmp.open_regular(file_name_, kMaxRecordingBytes, Symlinks::kRefuse);
    }
    if (!recording) return make_error("--jfr: the target wrote no recording: " + recording.error().message);
    auto json = print_recording(*recording);
    if (!json) return json.error();
    return parse_jfr_pinned_json(*json, realtime_minus_monotonic_ns_);
}

}  // namespace vtscope
