// SPDX-License-Identifier: Apache-2.0
// The folded stacks of `vtscope profile` (--folded, and the flame graph's input).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/profile_model.h"

namespace vtscope {

// Folded stacks ("root;frame;...;leaf count"): one root frame per group (trace, span or virtual
// thread, as info.by says) for the info.groups groups with the most samples and one ("[N other
// traces]") for the rest, or with info.merged one root ("[virtual threads]") for every virtual
// thread's sample; "[non-virtual] NAME" for non-virtual threads and "[unattributed
// STATUS/REASON]" for the rest; a truncated stack gets a "[truncated]" frame below its root.
struct FoldedStack {
    std::vector<std::string> frames;  // root first
    uint64_t count = 0;
};
std::vector<FoldedStack> fold_stacks(const std::vector<ProfileRow>& rows, const ProfileInfo& info);
std::string render_folded(const std::vector<FoldedStack>& stacks);

}  // namespace vtscope
