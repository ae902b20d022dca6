#include "jvm_stacks.h"

#include <chrono>
#include <cstdio>

#include "jvm_attach.h"

namespace vtscope {
namespace {

constexpr int kMapsEveryRounds = 4;     // the target's mappings: every second
constexpr int kPerfMapEveryRounds = 8;  // the JVM's perf map: every 2 s
constexpr std::chrono::seconds kJcmdTimeout{10};

}  // namespace

bool is_entry_frame(const std::string& frame) {
    return frame.find("enterSpecial") != std::string::npos ||
           (frame.find("VirtualThread") != std::string::npos && frame.find("run") != std::string::npos) ||
           frame == "start_thread" || frame == "clone3" || frame == "__clone3" || frame == "thread_native_entry";
}

void JvmStacks::warn(const std::string& text) {
    warnings_.push_back(text);
    std::fprintf(stderr, "vtscope: warning: %s\n", text.c_str());
}

void JvmStacks::prepare() {
    symbolizer_.snapshot_maps();
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
    refresh_perf_map();
}

bool JvmStacks::refresh_perf_map() {
    auto done = jvm_diagnostic_command(target_.pid, "Compiler.perfmap", kJcmdTimeout);
    if (done) return symbolizer_.load_perf_map();
    if (!perf_map_warned_ && target_.alive()) {
        perf_map_warned_ = true;
        warn("cannot have the JVM write its perf map (" + done.error().message + "): JIT frames show as [unknown]");
    }
    return false;
}

void JvmStacks::sync_round() {
    round_++;
    if (round_ % kMapsEveryRounds == 0) symbolizer_.snapshot_maps();
    if (round_ % kPerfMapEveryRounds == 0) refresh_perf_map();
}

void JvmStacks::finish() {
    if (target_.alive()) {
        symbolizer_.snapshot_maps();
        refresh_perf_map();
    }
    if (!symbolizer_.have_perf_map()) symbolizer_.load_perf_map();
}

std::vector<std::string> JvmStacks::user_frames(std::span<const uint64_t> ips) {
    std::vector<std::string> frames;
    frames.reserve(ips.size());
    for (uint64_t ip : ips) frames.push_back(symbolizer_.user_frame(ip));
    return frames;
}

std::vector<std::string> JvmStacks::kernel_frames(std::span<const uint64_t> ips) {
    std::vector<std::string> frames;
    frames.reserve(ips.size());
    for (uint64_t ip : ips) frames.push_back(symbolizer_.kernel_frame(ip));
    return frames;
}

}  // namespace vtscope
