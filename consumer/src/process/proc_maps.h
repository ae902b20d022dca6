// SPDX-License-Identifier: Apache-2.0
// /proc/PID/maps parsing: where libjvm.so and the record region are mapped in the target.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"

namespace vtscope {

struct Mapping {
    uint64_t start = 0;
    uint64_t end = 0;
    std::string perms;
    uint64_t offset = 0;
    std::string path;  // empty for anonymous mappings
};

// Parses the text of a maps file; malformed lines are skipped.
std::vector<Mapping> parse_maps(std::string_view text);
Expected<std::vector<Mapping>> read_maps(pid_t pid);

// The mapping with file offset 0 of the first file whose name ends in "/libjvm.so".
const Mapping* find_libjvm(const std::vector<Mapping>& maps);

}  // namespace vtscope
