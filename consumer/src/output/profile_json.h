// SPDX-License-Identifier: Apache-2.0
// The "profile" object of --summary-json: the report's numbers, every group, trace, virtual
// thread and thread, with the bounds and warnings of the session.
#pragma once

#include <string>
#include <vector>

#include "core/profile_model.h"

namespace vtscope {

std::string render_profile_json(const std::vector<ProfileRow>& rows, const ProfileInfo& info);

}  // namespace vtscope
