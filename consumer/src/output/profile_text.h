// SPDX-License-Identifier: Apache-2.0
// The text report of `vtscope profile`: the session, CPU per trace (span, virtual thread), the
// non-virtual threads, the unattributed samples and the stacks.
#pragma once

#include <string>
#include <vector>

#include "core/profile_model.h"

namespace vtscope {

std::string render_profile_text(const std::vector<ProfileRow>& rows, const ProfileInfo& info);

}  // namespace vtscope
