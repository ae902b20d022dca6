// SPDX-License-Identifier: Apache-2.0
// The table of identity channels: how an event's running thread is resolved. The CLI (names,
// help), the attribution core (which unit to build), the harness (how to start the target) and
// the README draw from this one table; adding a channel is one row here, one unit behind
// ChannelUnit (identity_channel.h) and one resolver in consumer/bpf/channel_*.bpf.h.
#pragma once

#include <string>
#include <vector>

#include "core/identity.h"

namespace vtscope {

// What vtscope's subcommands need to attach to a process, in the words of every error and help text.
inline constexpr const char* kPrivilegeText = "root (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN)";

struct ChannelInfo {
    IdentityChannel channel;
    const char* name;          // --identity NAME
    uint32_t bpf_mode;         // enum vtscope_identity_mode (consumer/bpf/attribution.h)
    bool reads_jvm;            // reads HotSpot structures (JDK 21 or later)
    bool needs_library;        // needs libvtscope.so in the target
    const char* agent_option;  // -agentpath:libvtscope.so=OPTION the target needs ("" for none)
    const char* summary;       // one line for --help
    const char* detail;        // a second help line, "" for none
};

const std::vector<ChannelInfo>& identity_channels();
const ChannelInfo& channel_info(IdentityChannel channel);
// nullptr when no channel has that name.
const ChannelInfo* find_channel(const std::string& name);
// "vmstructs, otep-tls, ..." for error messages.
std::string channel_names();

}  // namespace vtscope
