// SPDX-License-Identifier: Apache-2.0
// Which identity channel resolves an event's running thread: a core type, named here so the
// channels, the target and the attribution core need not include the command line's header.
#pragma once

namespace vtscope {

enum class IdentityChannel { kVmStructs, kOtepTls, kLifecycle, kTwoProbe, kHotspotProbes };

// The channel's --identity name (identity_channels.cpp).
const char* identity_name(IdentityChannel channel);

}  // namespace vtscope
