// SPDX-License-Identifier: Apache-2.0
#include "core/attribution_core.h"

#include <bpf/bpf.h>

#include <cstdio>

#include "output/diagnostics.h"
#include "core/tracefs.h"
#include "channels/writer_diagnosis.h"

namespace vtscope {

const std::vector<Mapping>* MapsSnapshot::get() {
    if (!maps_) maps_.emplace(target_.maps());
    return *maps_ ? &maps_->value() : nullptr;
}

Status attach_task_exit(bpf_object* object, Links& links) {
    auto program = find_program(object, "on_task_exit");
    if (!program) return program.error();
    bpf_link* link = bpf_program__attach(*program);
    if (!link) return attach_error("sched_process_exit");
    links.emplace_back(link);
    return ok_status();
}

namespace {

std::unique_ptr<ChannelUnit> make_unit(const Target& target, const ChannelInfo& info) {
    switch (info.channel) {
        case IdentityChannel::kVmStructs: return make_vmstructs_channel(target);
        case IdentityChannel::kOtepTls: return make_otep_tls_channel(target);
        case IdentityChannel::kLifecycle:
        case IdentityChannel::kTwoProbe:
        case IdentityChannel::kHotspotProbes: return make_lifecycle_channel(target, info);
    }
    return make_vmstructs_channel(target);
}

}  // namespace

AttributionCore::AttributionCore(const Target& target, IdentityChannel channel)
    : target_(target), info_(channel_info(channel)), unit_(make_unit(target, info_)) {}

AttributionCore::~AttributionCore() {
    if (retiring_.joinable()) retiring_.join();
}

// Once the region is known the followers only cost, and not only the target: any syscall
// tracepoint puts every thread of the machine on the syscall tracing slow path for every syscall
// (SYSCALL_WORK_SYSCALL_TRACEPOINT, set on all threads by syscall_regfunc, kernel/tracepoint.c).
// They are detached on a thread of their own: detaching waits for RCU grace periods
// (tracepoint_synchronize_unregister, include/linux/tracepoint.h), and doing it in the session
// loop stalled the drain long enough for the ring buffer to overflow (about 2.5% of a write
// storm's events lost, bench/RESULTS.md).
void AttributionCore::retire_followers() {
    if (discovery_links_.empty() || retiring_.joinable()) return;
    retiring_ = std::thread([links = std::move(discovery_links_)]() mutable { links.clear(); });
}

// The maps the channel's maintenance programs and the region followers write, which only the first
// object's programs do once attached, and the counters, so that the summary's lost count covers
// every source. Each object keeps its per-CPU scratch (chain_scratch) and its per-CPU thread cache,
// which checks the shared threads_generation before it trusts an entry (channel_vmstructs.bpf.h).
// bpf_map__reuse_fd before load: libbpf then checks the two maps are alike (map_is_reuse_compat,
// tools/lib/bpf/libbpf.c) and creates none.
void AttributionCore::share_maps(bpf_object* object) const {
    static const char* const kShared[] = {"region",   "region_pending",     "counters",
                                          "threads",  "threads_generation", "thread_context_tls",
                                          "carriers", "just_started",       "pending_unmount"};
    for (const char* name : kShared) {
        bpf_map* from = bpf_object__find_map_by_name(first_object_, name);
        bpf_map* to = bpf_object__find_map_by_name(object, name);
        if (from && to && bpf_map__fd(from) >= 0) bpf_map__reuse_fd(to, bpf_map__fd(from));
    }
}

void AttributionCore::configure(bpf_object* object, volatile vtscope_attribution_config* config) const {
    if (!first_object_) {
        first_object_ = object;
    } else if (first_object_ != object) {
        share_maps(object);
    }
    unit_->prepare(object);
    config->target_tgid = static_cast<__u32>(target_.pid);
    // The BPF side sees host pids, but the writer stores its own getpid() in the region's header.
    config->target_ns_tgid = static_cast<__u32>(target_.ns_pid);
    config->identity_mode = info_.bpf_mode;
    config->off_monitor_owner_id = target_.jvm.layout.java_thread_monitor_owner_id;
    if (target_.jvm.oop_identity) configure_oop_identity(*target_.jvm.oop_identity, config);
}

Status AttributionCore::attach(bpf_object* object, Links& links) {
    // Every source attaches tracepoints (the followers below, sched_process_exit), which libbpf
    // finds by their id under tracefs (events/CATEGORY/NAME/id): a machine that booted without
    // tracefs mounted has none until it is.
    if (auto tracefs = find_tracefs(); !tracefs) return tracefs.error();
    auto region = find_map(object, "region");
    if (!region) return region.error();
    auto counters = find_map(object, "counters");
    if (!counters) return counters.error();
    region_map_ = *region;
    counters_map_ = *counters;
    // The region's creation is followed before anything else, so a region made at any moment
    // after this is known to the BPF side when its mmap returns (core.bpf.h).
    const struct {
        const char* program;
        const char* tracepoint;
    } followers[] = {
        {"on_region_memfd_enter", "sys_enter_memfd_create"}, {"on_region_memfd_exit", "sys_exit_memfd_create"},
        {"on_region_openat_enter", "sys_enter_openat"},      {"on_region_memfd_exit", "sys_exit_openat"},
        {"on_region_mmap_enter", "sys_enter_mmap"},          {"on_region_mmap_exit", "sys_exit_mmap"}};
    for (const auto& f : followers) {
        auto program = find_program(object, f.program);
        if (!program) return program.error();
        bpf_link* link = bpf_program__attach_tracepoint(*program, "syscalls", f.tracepoint);
        if (!link) return attach_error(std::string("tracepoint syscalls:") + f.tracepoint);
        discovery_links_.emplace_back(link);
    }
    MapsSnapshot maps(target_);
    return unit_->attach(object, links, maps);
}

void AttributionCore::sync(bool at_attach) {
    MapsSnapshot maps(target_);
    unit_->sync(maps, at_attach);
    sync_region(maps);
    if (!region_found_ && target_.alive()) {
        std::string reason = explain_missing_region(read_process_facts(target_.pid));
        // Said once at attach; the summary says it again if it still holds at the end.
        if (at_attach) diagnostics::note(reason);
        missing_region_ = std::move(reason);
    }
    if (region_found_)
        if (auto stats = read_writer_stats(target_.memory, region_)) {
            writer_stats_ = stats;
            // The facts (command line) do not change, so they are read once.
            if (!stats->context_writers && missing_writer_.empty() && target_.alive()) {
                missing_writer_ = explain_missing_writer(read_process_facts(target_.pid));
                if (at_attach) diagnostics::note(missing_writer_);
            }
        }
}

// A region the BPF side learnt of by following memfd_create and mmap, and validated.
bool AttributionCore::adopt_discovered_region() {
    vtscope_region_info info{};
    uint32_t zero = 0;
    if (bpf_map_lookup_elem(bpf_map__fd(region_map_), &zero, &info) != 0 || !info.base || !info.capacity_mask)
        return false;
    region_ = RecordRegion{info.base, static_cast<uint32_t>(info.capacity_mask + 1)};
    return true;
}

void AttributionCore::sync_region(MapsSnapshot& maps) {
    if (region_found_) return;
    if (adopt_discovered_region()) {
        region_found_ = true;
        retire_followers();
        return;
    }
    const std::vector<Mapping>* current = maps.get();
    if (!current) return;
    auto candidates = find_region_mappings(*current);
    for (const Mapping* m : candidates) {
        auto region = validate_region(target_.memory, *m, target_.ns_pid);
        if (!region) {
            if (warned_regions_.insert(m->start).second && region.error().message.find("magic") == std::string::npos) {
                char at[32];
                std::snprintf(at, sizeof(at), "%#llx", static_cast<unsigned long long>(m->start));
                diagnostics::warning(std::string("ignoring record region at ") + at + ": " + region.error().message);
            }
            continue;
        }
        if (candidates.size() > 1 && warned_regions_.insert(0).second)
            diagnostics::warning(std::to_string(candidates.size()) +
                                 " record regions in the target (vtscope-java loaded by several class loaders?); "
                                 "using the first valid one");
        vtscope_region_info info{region->base, uint64_t{region->capacity} - 1, 0};
        uint32_t zero = 0;
        if (bpf_map_update_elem(bpf_map__fd(region_map_), &zero, &info, BPF_ANY) == 0) {
            region_ = *region;
            region_found_ = true;
            retire_followers();
        }
        return;
    }
}

// A target that creates its region and exits within one sync round (250 ms) leaves the region
// known only to the BPF side, which attributed its events through it: the summary says so too.
void AttributionCore::finish() {
    if (!region_found_ && adopt_discovered_region()) region_found_ = true;
}

void AttributionCore::summarise(Summary& summary) const {
    summary.identity = info_.name;
    if (counters_map_) {
        auto counters = read_percpu_counters(counters_map_, VTSCOPE_COUNTER_COUNT);
        summary.lost = counters[VTSCOPE_COUNTER_LOST];
        unit_->summarise(counters, summary);
    }
    summary.region_found = region_found_;
    summary.missing_region = missing_region_;
    if (region_found_) {
        auto stats = read_writer_stats(target_.memory, region_);
        summary.writer = stats ? stats : writer_stats_;
        summary.writer_final = stats.has_value();
        summary.missing_writer = missing_writer_;
    }
}

}  // namespace vtscope
