// SPDX-License-Identifier: Apache-2.0
#include "channels/identity_channels.h"

#include "../../bpf/attribution.h"

namespace vtscope {

const std::vector<ChannelInfo>& identity_channels() {
    static const std::vector<ChannelInfo> table = {
        {IdentityChannel::kVmStructs, "vmstructs", VTSCOPE_IDENTITY_VMSTRUCTS, true, false, "",
         "HotSpot's JavaThread::_monitor_owner_id (default)", "no agent needed"},
        {IdentityChannel::kOtepTls, "otep-tls", VTSCOPE_IDENTITY_OTEP_TLS, true, true, "otep",
         "the OTEP 4947 otel_thread_ctx_v1 thread-local that", "libvtscope.so keeps on carriers (-agentpath:...=otep)"},
        {IdentityChannel::kLifecycle, "lifecycle", VTSCOPE_IDENTITY_LIFECYCLE, true, true, "probes",
         "the four lifecycle probes of libvtscope.so", "(-agentpath:...=probes); attach before threads start"},
        {IdentityChannel::kTwoProbe, "two-probe", VTSCOPE_IDENTITY_TWO_PROBE, true, true, "probes",
         "mount/unmount probes only (an unsound ablation)", ""},
        {IdentityChannel::kHotspotProbes, "hotspot-probes", VTSCOPE_IDENTITY_HOTSPOT, false, false, "",
         "the paper's patched-JDK hotspot:vthread__* probes", ""},
    };
    return table;
}

const ChannelInfo& channel_info(IdentityChannel channel) {
    for (const ChannelInfo& info : identity_channels())
        if (info.channel == channel) return info;
    return identity_channels().front();
}

const ChannelInfo* find_channel(const std::string& name) {
    for (const ChannelInfo& info : identity_channels())
        if (name == info.name) return &info;
    return nullptr;
}

std::string channel_names() {
    std::string names;
    for (const ChannelInfo& info : identity_channels()) names += (names.empty() ? "" : ", ") + std::string(info.name);
    return names;
}

const char* identity_name(IdentityChannel channel) { return channel_info(channel).name; }

}  // namespace vtscope
