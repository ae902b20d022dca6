// SPDX-License-Identifier: Apache-2.0
// Identity channels "lifecycle", "two-probe" and "hotspot-probes", user side: the USDT
// lifecycle probes (libvtscope.so's vtscope:vthread__*, or the paper's hotspot:vthread__*) and
// libvtscope's event state, which says whether the probe stream behind the carrier mappings was
// complete (consumer/bpf/channel_lifecycle.bpf.h).
#include <bpf/bpf.h>

#include <cstdio>
#include <span>
#include <thread>

#include "channels/identity_channel.h"
#include "core/probe_modules.h"
#include "output/diagnostics.h"

namespace vtscope {
namespace {

class LifecycleChannel final : public ChannelUnit {
public:
    LifecycleChannel(const Target& target, const ChannelInfo& info)
        : target_(target), hotspot_(info.channel == IdentityChannel::kHotspotProbes) {}

    Status attach(bpf_object* object, Links& links, MapsSnapshot& maps) override {
        for (const char* name : {"carriers", "just_started", "pending_unmount"}) {
            auto map = find_map(object, name);
            if (!map) return map.error();
            mapping_fds_.push_back(bpf_map__fd(*map));
        }
        const std::vector<Mapping>* current = maps.get();
        if (!current) return make_error("cannot read /proc/" + std::to_string(target_.pid) + "/maps");
        auto module =
            hotspot_ ? find_hotspot_probe_module(target_.pid, *current) : find_vtscope_library(target_.pid, *current);
        if (!module) return module.error();
        struct Probe {
            const char* program;
            const char* provider;
            const char* name;
        };
        static constexpr Probe kHotspot[] = {{"on_hs_start", "hotspot", "vthread__start"},
                                             {"on_hs_end", "hotspot", "vthread__end"},
                                             {"on_hs_freeze", "hotspot", "vthread__freeze"},
                                             {"on_hs_thaw", "hotspot", "vthread__thaw"}};
        static constexpr Probe kVtscope[] = {{"on_vt_start", "vtscope", "vthread__start"},
                                             {"on_vt_end", "vtscope", "vthread__end"},
                                             {"on_vt_mount", "vtscope", "vthread__mount"},
                                             {"on_vt_unmount", "vtscope", "vthread__unmount"}};
        auto binary = mapped_module_path(target_.pid, *current, *module);  // the mapped inode itself
        if (!binary) return binary.error();
        // libvtscope's event state before our probes exist: see check_probe_events.
        std::optional<ProbeEventsState> before;
        if (!hotspot_) {
            probe_events_at_ = find_probe_events_state(target_.pid, *current, *module);
            if (probe_events_at_) before = read_probe_events_state(target_.memory, *probe_events_at_);
        }
        for (const Probe& p : hotspot_ ? std::span<const Probe>(kHotspot) : std::span<const Probe>(kVtscope)) {
            auto program = find_program(object, p.program);
            if (!program) return program.error();
            bpf_link* link =
                bpf_program__attach_usdt(*program, target_.pid, binary->c_str(), p.provider, p.name, nullptr);
            if (!link) return attach_error(std::string("USDT probe ") + p.provider + ":" + p.name + " in " + *module);
            links.emplace_back(link);
        }
        if (auto status = attach_task_exit(object, links); !status) return status;
        if (!probe_events_at_) return ok_status();
        // libvtscope switches its events on when it sees our semaphores (within 50 ms); until
        // then no thread is mapped, so "ready" waits for it.
        if (!wait_for_probe_events(target_.memory, *probe_events_at_, std::chrono::seconds(2)))
            diagnostics::warning(
                "libvtscope.so did not report its lifecycle events enabled within 2 s; events "
                "before that are unmapped");
        // Events that were on when we attached stay on for us (the library switches off only
        // after two polls without a tracer). If they went off and on anyway, a thread switch in
        // between was missed: mappings learned before may be stale, so they are dropped.
        if (before) {
            expected_epoch_ = before->active ? before->epoch : before->epoch + 1;
        } else if (auto now = read_probe_events_state(target_.memory, *probe_events_at_)) {
            expected_epoch_ = now->epoch;  // nothing known from before: take what is on now
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(150));  // a switch in progress ends
        check_probe_events();
        return ok_status();
    }

    void sync(MapsSnapshot&, bool) override { check_probe_events(); }

    void summarise(const std::vector<uint64_t>& counters, Summary& summary) const override {
        summary.mappings = MappingCounts{counters[VTSCOPE_COUNTER_INSERTS], counters[VTSCOPE_COUNTER_DELETES],
                                         counters[VTSCOPE_COUNTER_UNMOUNT_UNMAPPED],
                                         counters[VTSCOPE_COUNTER_END_UNMAPPED], mapping_resets_};
    }

private:
    // The lifecycle mappings are only as good as the stream of mount and unmount probes behind
    // them. If libvtscope's events were off for a while (its epoch moved), drop every mapping: a
    // carrier is then unmapped until its next mount, never mapped to a thread that left it.
    void check_probe_events() {
        if (!probe_events_at_) return;
        auto state = read_probe_events_state(target_.memory, *probe_events_at_);
        if (!state) return;  // the target is exiting
        if (state->active == 1 && state->epoch == expected_epoch_) return;
        if (state->active == 0 && state->epoch == expected_epoch_ - 1) return;  // never came on for us
        for (int fd : mapping_fds_) {
            uint32_t key = 0;
            while (bpf_map_get_next_key(fd, nullptr, &key) == 0) bpf_map_delete_elem(fd, &key);
        }
        mapping_resets_++;
        if (state->active == 1) expected_epoch_ = state->epoch;
    }

    const Target& target_;
    const bool hotspot_;
    std::vector<int> mapping_fds_;
    std::optional<ProbeEventsLocation> probe_events_at_;  // libvtscope's event state (not hotspot-probes)
    uint32_t expected_epoch_ = 0;
    uint64_t mapping_resets_ = 0;
};

}  // namespace

std::unique_ptr<ChannelUnit> make_lifecycle_channel(const Target& target, const ChannelInfo& info) {
    return std::make_unique<LifecycleChannel>(target, info);
}

}  // namespace vtscope
