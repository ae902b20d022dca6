// SPDX-License-Identifier: Apache-2.0
// `vtscope top`: one session over one identity channel running stat's syscall counting, block's
// off-CPU intervals and profile's CPU samples together, each source as its own command builds it,
// handing its counts to the top model (core/top_model.h), and the view (cli/top_view.h) last.
#include <time.h>
#include <unistd.h>

#include <fstream>

#include "cli/commands.h"
#include "cli/top_view.h"
#include "core/attribution_core.h"
#include "core/session.h"
#include "output/output_file.h"
#include "process/target.h"
#include "sources/block_source.h"
#include "sources/profile_source.h"
#include "sources/syscall_source.h"

namespace vtscope {
namespace {

uint64_t monotonic_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// A thread's name (comm, at most 15 bytes, chosen by the target: the model makes it safe).
std::string thread_name(pid_t pid, uint32_t tid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/comm");
    std::string name;
    std::getline(f, name);
    return name;
}

// Each source's own options, at their defaults but for what top sets: the sources' outputs go
// to /dev/null (top shows their counts, not their reports).
struct SourceOptions {
    TraceOptions stat;
    BlockOptions block;
    ProfileOptions profile;
    explicit SourceOptions(const TopOptions& o) {
        stat.pid = block.pid = profile.pid = o.pid;
        stat.identity = block.identity = profile.identity = o.identity;
        stat.aggregate = true;
        stat.syscalls = default_syscalls();
        profile.hz = o.hz;
    }
};

TopViewState initial_view(const TopOptions& o) {
    TopViewState view;
    view.pid = o.pid;
    view.by = o.by == "span" ? TopGrouping::kSpan : o.by == "vthread" ? TopGrouping::kVthread : TopGrouping::kTrace;
    view.sort = o.sort == "blocked"    ? TopSort::kBlocked
                : o.sort == "pinned"   ? TopSort::kPinned
                : o.sort == "syscalls" ? TopSort::kSyscalls
                                       : TopSort::kCpu;
    view.top = o.top;
    return view;
}

}  // namespace

int run_top(const TopOptions& options) {
    SessionOptions session{"top", options.duration_seconds, options.ready_file, options.summary_json};
    auto out = OutputFile::open("-");
    if (!out) return fail(session, out.error().message);
    auto discard = OutputFile::open("/dev/null");
    if (!discard) return fail(session, discard.error().message);
    auto target = open_target(options.pid, options.identity, "top");
    if (!target) return fail(session, target.error().message);
    quiet_libbpf();
    AttributionCore core(*target, options.identity);
    SourceOptions o(options);
    pid_t pid = options.pid;
    TopModel model(monotonic_ns, [pid](uint32_t tid) { return thread_name(pid, tid); });
    // The syscall source first: its object holds the core's channel, the others share its maps.
    auto syscalls = open_syscall_source(o.stat, SyscallSink::kCounts, core, **discard, &model);
    if (!syscalls) return fail(session, syscalls.error().message);
    auto block = open_block_source(o.block, *target, core, **discard, &model);
    if (!block) return fail(session, block.error().message);
    auto profile = open_profile_source(o.profile, *target, core, ProfileOutputs{**discard, nullptr, nullptr}, &model);
    if (!profile) return fail(session, profile.error().message);
    bool batch = options.batch || !isatty(STDOUT_FILENO);
    TopView view(model, initial_view(options), options.interval_seconds, options.iterations, batch, **out);
    SourceGroup group({syscalls->get(), block->get(), profile->get(), &view});
    return run_session(session, *target, core, group);
}

}  // namespace vtscope
