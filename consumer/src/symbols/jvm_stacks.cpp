// SPDX-License-Identifier: Apache-2.0
#include "symbols/jvm_stacks.h"

#include <dirent.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "jvm/jvm_attach.h"
#include "output/safe_text.h"
#include "output/diagnostics.h"

namespace vtscope {
namespace {

constexpr int kMapsEveryRounds = 4;  // the target's mappings: every second
constexpr std::chrono::seconds kJcmdTimeout{10};

std::string read_line(const std::string& path) {
    std::ifstream file(path);
    std::string line;
    std::getline(file, line);
    return line;
}

// The first field of /proc/PID/task/TID/schedstat: the thread's time on a CPU in ns
// (sum_exec_runtime; Documentation/scheduler/sched-stats.rst); nullopt when it is gone.
std::optional<uint64_t> thread_cpu_ns(pid_t pid, pid_t tid) {
    std::string line = read_line("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/schedstat");
    if (line.empty()) return std::nullopt;
    return std::strtoull(line.c_str(), nullptr, 10);
}

}  // namespace

std::optional<uint64_t> process_cpu_ns(pid_t pid) {
    clockid_t clock;
    timespec ts;
    if (clock_getcpuclockid(pid, &clock) != 0 || clock_gettime(clock, &ts) != 0) return std::nullopt;
    return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

uint64_t attach_listener_cpu_ns(pid_t pid, pid_t* tid) {
    if (*tid > 0)
        if (auto ns = thread_cpu_ns(pid, *tid)) return *ns;
    *tid = 0;
    std::string dir = "/proc/" + std::to_string(pid) + "/task";
    DIR* d = opendir(dir.c_str());
    if (!d) return 0;
    while (dirent* e = readdir(d)) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        // HotSpot names it "Attach Listener" (AttachListener::init); comm keeps 15 characters, all of it.
        if (read_line(dir + "/" + e->d_name + "/comm") == "Attach Listener") {
            *tid = static_cast<pid_t>(std::strtol(e->d_name, nullptr, 10));
            break;
        }
    }
    closedir(d);
    if (*tid == 0) return 0;
    return thread_cpu_ns(pid, *tid).value_or(0);
}

bool PerfMapSchedule::due(uint64_t target_cpu_ns) const {
    if (pending_ == 0) return false;
    if (refreshes_ == 0) return true;
    uint64_t since = target_cpu_ns > cpu_after_last_ns_ ? target_cpu_ns - cpu_after_last_ns_ : 0;
    return static_cast<double>(since) * budget_ >= static_cast<double>(last_cost_ns_);
}

void PerfMapSchedule::refreshed(uint64_t cost_ns, uint64_t target_cpu_ns) {
    pending_ = 0;
    refreshes_++;
    last_cost_ns_ = cost_ns;
    total_cost_ns_ += cost_ns;
    cpu_after_last_ns_ = target_cpu_ns;
}

bool is_entry_frame(const std::string& frame) {
    return frame.find("enterSpecial") != std::string::npos ||
           (frame.find("VirtualThread") != std::string::npos && frame.find("run") != std::string::npos) ||
           frame == "start_thread" || frame == "clone3" || frame == "__clone3" || frame == "thread_native_entry";
}

void JvmStacks::warn(const std::string& text) {
    warnings_.push_back(text);
    // A warning may quote the target (a path, the JVM's reply): one line, no terminal escape.
    diagnostics::warning(text);
}

void JvmStacks::prepare() {
    snapshot_maps();
    // The kernel walks user stacks by frame pointer (perf_callchain_user, arch/x86/events/core.c);
    // HotSpot's JIT code keeps one only with -XX:+PreserveFramePointer (the interpreter always does).
    auto flags = jvm_diagnostic_command(target_.pid, "VM.flags", kJcmdTimeout);
    if (!flags) {
        warn("cannot read the JVM's flags (" + flags.error().message + "): Java frames may be missing");
    } else if (flags->find("-XX:+PreserveFramePointer") == std::string::npos) {
        warn(
            "the JVM runs without -XX:+PreserveFramePointer: stacks stop at the first JIT-compiled "
            "Java frame (native frames still resolve); restart it with the flag for Java stacks");
    }
    write_perf_map();
}

bool JvmStacks::perf_map_request_refused() {
    // HotSpot opens its map by name with O_CREAT|O_TRUNC and follows a symlink there (PerfMap
    // writing in src/hotspot/share/code/codeCache.cpp, through fopen): whatever someone planted at
    // that name would be written by the JVM with its privileges. Then it is not asked.
    Status safe = symbolizer_.check_perf_map_before_write();
    if (safe) return false;
    if (!perf_map_warned_) {
        perf_map_warned_ = true;
        warn("not asking the JVM for its perf map: " + safe.error().message + "; JIT frames show as [unknown]");
    }
    schedule_.refreshed(0, process_cpu_ns(target_.pid).value_or(0));  // the stacks that wanted it: done
    return true;
}

bool JvmStacks::write_perf_map() {
    if (perf_map_request_refused()) return false;
    // Its cost to the target is the Attach Listener's CPU over the command (HotSpot writes the
    // map there, under the CodeCache_lock: CodeCache::write_perf_map in
    // src/hotspot/share/code/codeCache.cpp); the command's wall time bounds it where that thread
    // cannot be read.
    uint64_t before = attach_listener_cpu_ns(target_.pid, &attach_listener_);
    auto started = std::chrono::steady_clock::now();
    auto done = jvm_diagnostic_command(target_.pid, "Compiler.perfmap", kJcmdTimeout);
    auto wall = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - started);
    uint64_t after = attach_listener_cpu_ns(target_.pid, &attach_listener_);
    uint64_t cost = after > before ? after - before : static_cast<uint64_t>(wall.count());
    schedule_.refreshed(cost, process_cpu_ns(target_.pid).value_or(0));
    Status read = done ? symbolizer_.load_perf_map() : ok_status();
    bool loaded = done && read;
    // What this map does not name was sampled before it was written: its code was gone by then,
    // or it is no code (the return address of a frame the map does not list). Another refresh
    // cannot name it, so seeing it again asks for none.
    for (uint64_t ip : noted_)
        if (symbolizer_.classify(ip) != JitAddress::kNamed) unnamable_.insert(ip);
    noted_.clear();
    if (done && !loaded && !perf_map_warned_ && target_.alive()) {
        perf_map_warned_ = true;
        warn("the JVM wrote its perf map, but " + read.error().message + ": JIT frames show as [unknown]");
    }
    if (done) return loaded;
    if (!perf_map_warned_ && target_.alive()) {
        perf_map_warned_ = true;
        warn("cannot have the JVM write its perf map (" + done.error().message + "): JIT frames show as [unknown]");
    }
    return false;
}

bool JvmStacks::refresh_perf_map() {
    if (schedule_.pending() == 0) return false;
    // After finish() the stacks still to come are the last ones (block drains its ring after
    // it): no later refresh would name what this one does not, so the budget no longer applies.
    if (!finished_) {
        auto cpu = process_cpu_ns(target_.pid);
        if (!cpu || !schedule_.due(*cpu)) return false;
    }
    return write_perf_map();
}

void JvmStacks::note_unnamed(uint64_t ip) {
    if (!unnamable_.contains(ip) && noted_.insert(ip).second) schedule_.unnamed(1);
}

void JvmStacks::note_user_stack(std::span<const uint64_t> ips) {
    for (uint64_t ip : ips) {
        JitAddress kind = symbolizer_.classify(ip);
        if (kind == JitAddress::kUnnamed) note_unnamed(ip);
        // Code cache the JVM committed after the last snapshot of the mappings, or no code at
        // all (a frame-pointer walk through code without one reads any word as a return address):
        // the next snapshot tells.
        if (kind == JitAddress::kUnmapped) unmapped_.push_back(ip);
    }
}

void JvmStacks::snapshot_maps() {
    symbolizer_.snapshot_maps();
    std::vector<uint64_t> waiting;
    waiting.swap(unmapped_);
    for (uint64_t ip : waiting)
        if (symbolizer_.classify(ip) == JitAddress::kUnnamed) note_unnamed(ip);
    // Still in no executable mapping after a snapshot taken since it was sampled: not code.
}

void JvmStacks::sync_round() {
    round_++;
    if (round_ % kMapsEveryRounds == 0) snapshot_maps();
    refresh_perf_map();
}

void JvmStacks::finish() {
    finished_ = true;
    if (target_.alive()) {
        snapshot_maps();
        if (schedule_.pending() > 0) write_perf_map();
    }
    if (!symbolizer_.have_perf_map()) {
        // -XX:+DumpPerfMapAtExit: the map the JVM left, through its /tmp opened at the start.
        if (auto read = symbolizer_.load_perf_map(); !read && !perf_map_warned_ && !target_.alive()) {
            perf_map_warned_ = true;
            warn("no perf map of the exited JVM was read (" + read.error().message + "): JIT frames show as [unknown]");
        }
    }
}

std::vector<std::string> JvmStacks::user_frames(std::span<const uint64_t> ips) {
    note_user_stack(ips);
    std::vector<std::string> frames;
    frames.reserve(ips.size());
    for (uint64_t ip : ips) frames.push_back(symbolizer_.user_frame(ip));
    return frames;
}

std::string JvmStacks::kernel_frame(uint64_t ip) {
    std::string frame = symbolizer_.kernel_frame(ip);
    if (symbolizer_.kernel_symbols_hidden() && !kernel_symbols_warned_) {
        kernel_symbols_warned_ = true;
        warn("/proc/kallsyms shows no addresses (vtscope lacks CAP_SYSLOG): kernel frames stay hexadecimal");
    }
    return frame;
}

std::vector<std::string> JvmStacks::kernel_frames(std::span<const uint64_t> ips) {
    std::vector<std::string> frames;
    frames.reserve(ips.size());
    for (uint64_t ip : ips) frames.push_back(kernel_frame(ip));
    return frames;
}

}  // namespace vtscope
