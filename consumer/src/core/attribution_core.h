// SPDX-License-Identifier: Apache-2.0
// The user side of the attribution core (consumer/bpf/attribution.bpf.h): it configures the core
// in an event source's BPF object before load, attaches and feeds the identity channel, finds
// the record region and summarises what the core knows. An event source owns its BPF object and
// hands it to the core; it never resolves a thread or reads a record itself.
#pragma once

#include <bpf/libbpf.h>

#include <memory>
#include <set>
#include <thread>

#include "../../bpf/attribution.h"
#include "core/bpf_util.h"
#include "channels/identity_channel.h"
#include "channels/record_region.h"
#include "core/summary.h"
#include "process/target.h"

namespace vtscope {

class AttributionCore {
public:
    AttributionCore(const Target& target, IdentityChannel channel);
    const Target& target() const { return target_; }
    ~AttributionCore();
    AttributionCore(const AttributionCore&) = delete;
    AttributionCore& operator=(const AttributionCore&) = delete;

    const ChannelInfo& channel() const { return info_; }
    // Before load: the object's `attribution_config` (its skeleton's rodata) and the channel's
    // programs in it. The first object configured holds the core (attach); a later one, configured
    // once the first is loaded (a session of several sources, vtscope top), shares its channel's
    // maps, its region and its counters instead of having its own, so one channel serves all.
    void configure(bpf_object* object, volatile vtscope_attribution_config* config) const;
    // After load: the channel's probes. Call before the event source attaches its own.
    Status attach(bpf_object* object, Links& links);
    // Before the ready file (at_attach) and every 250 ms: the record region and the channel.
    void sync(bool at_attach);
    // After the event source's final drain: a region the BPF side found since the last sync.
    void finish();
    void summarise(Summary& summary) const;

private:
    void sync_region(MapsSnapshot& maps);
    bool adopt_discovered_region();

    void share_maps(bpf_object* object) const;

    const Target& target_;
    const ChannelInfo& info_;
    // The first object configured: the one whose maps later objects share. Set from configure,
    // which the sources call through a const reference (they configure, they do not own the core).
    mutable bpf_object* first_object_ = nullptr;
    std::unique_ptr<ChannelUnit> unit_;
    bpf_map* region_map_ = nullptr;
    bpf_map* counters_map_ = nullptr;
    bool region_found_ = false;
    RecordRegion region_{};
    std::optional<WriterStats> writer_stats_;  // last read, kept for after the target exits
    std::set<uint64_t> warned_regions_;
    std::string missing_region_;  // why there is no region, from the last look while the target lived
    std::string missing_writer_;  // why the region has no context writer, once seen without one
    // The memfd_create/mmap followers, until the region is known (retire_followers).
    void retire_followers();
    Links discovery_links_;
    std::thread retiring_;
};

}  // namespace vtscope
