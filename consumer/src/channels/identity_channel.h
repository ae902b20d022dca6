// SPDX-License-Identifier: Apache-2.0
// One identity channel's user side, behind one interface (the OpenTelemetry eBPF profiler's
// per-interpreter Loader/Instance split is the model): what it attaches besides the event
// source, what it feeds its BPF maps while the session runs, and what it adds to the summary.
// Its BPF side is consumer/bpf/channel_<name>.bpf.h; its row is in identity_channels.cpp.
#pragma once

#include <bpf/libbpf.h>

#include <memory>
#include <optional>
#include <vector>

#include "core/bpf_util.h"
#include "core/expected.h"
#include "channels/identity_channels.h"
#include "process/proc_maps.h"
#include "core/summary.h"
#include "process/target.h"

namespace vtscope {

// The target's maps, read at most once per sync round and only if someone asks.
class MapsSnapshot {
public:
    explicit MapsSnapshot(const Target& target) : target_(target) {}
    // nullptr when the maps cannot be read (the target is exiting).
    const std::vector<Mapping>* get();

private:
    const Target& target_;
    std::optional<Expected<std::vector<Mapping>>> maps_;
};

class ChannelUnit {
public:
    virtual ~ChannelUnit() = default;
    // Before the object is loaded: how its programs are to be attached.
    virtual void prepare(bpf_object*) {}
    // After the object is loaded and before the event source attaches: the channel's own probes.
    virtual Status attach(bpf_object* object, Links& links, MapsSnapshot& maps) = 0;
    // Before the ready file (at_attach) and every sync round while the session runs.
    virtual void sync(MapsSnapshot& maps, bool at_attach) = 0;
    // counters: the core's per-CPU counters summed (enum vtscope_counter).
    virtual void summarise(const std::vector<uint64_t>& counters, Summary& summary) const = 0;
};

std::unique_ptr<ChannelUnit> make_vmstructs_channel(const Target& target);
std::unique_ptr<ChannelUnit> make_otep_tls_channel(const Target& target);
std::unique_ptr<ChannelUnit> make_lifecycle_channel(const Target& target, const ChannelInfo& info);

// The core's sched_process_exit program, which forgets a channel's per-task state.
Status attach_task_exit(bpf_object* object, Links& links);

}  // namespace vtscope
