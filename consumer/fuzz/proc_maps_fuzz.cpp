// SPDX-License-Identifier: Apache-2.0
// /proc/PID/maps text: the kernel writes it, but the target names its mappings (file paths,
// memfd names, prctl PR_SET_VMA_ANON_NAME), so a line may hold any byte but a newline. parse_maps
// and every search vtscope makes over its result.
#include <cstdint>
#include <string_view>

#include "channels/process_context.h"
#include "process/proc_maps.h"
#include "channels/record_region.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto maps = vtscope::parse_maps(text);
    (void)vtscope::find_libjvm(maps);
    (void)vtscope::find_region_mappings(maps);
    (void)vtscope::find_process_context(maps);
    return 0;
}
