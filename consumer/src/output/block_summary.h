// SPDX-License-Identifier: Apache-2.0
// The summary's block section: the blocked time in all, per trace and per virtual thread (the
// top of each), the carriers and the counts of what the session missed, as text lines and as the
// "block" object of --summary-json.
#pragma once

#include <string>

#include "core/block_model.h"

namespace vtscope {

std::string render_block_text(const BlockAggregate& aggregate, int top);
std::string render_block_json(const BlockAggregate& aggregate, int top);

}  // namespace vtscope
