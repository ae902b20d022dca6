// SPDX-License-Identifier: Apache-2.0
// Agent options (-agentpath:libvtscope.so=OPTIONS) and feature bits, parsed without a JVM so
// they are unit-tested on their own.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace vtscope::native {

struct AgentOptions {
    uint32_t features = 0;  // VTSCOPE_FEATURE_* bits
    uint32_t capacity = 0;  // record-region slots, 0 = default
    // Release a thread's slot at its end without clearing its record, as the paper's JVM frees
    // its buffers. Only for the two-probe ablation: a stale cached address then shows the dead
    // thread's last context (the paper's silent content misattribution under leaky-final).
    bool paper_release = false;
    // OTEP through the JVMTI mount/unmount events even where the mount hook could be installed
    // (mount_hook.h): the previous path, for comparison and as the tested fallback.
    bool otep_jvmti = false;
    // write-patch=DIR: write a patched java.base for OTEP into DIR (java_base_patch.h) at VMInit,
    // and nothing else; no feature goes with it.
    std::string write_patch_dir;
};

// OPTIONS: comma-separated "vtt", "probes", "otep", "capacity=N", "paper-release", "otep-jvmti"
// (which implies "otep"), or "write-patch=DIR" alone. Empty means "vtt".
// Returns false and sets *error for an unknown or malformed option.
bool parse_agent_options(std::string_view text, AgentOptions* options, std::string* error);

// Human-readable list of feature bits ("vtt,probes").
std::string feature_names(uint32_t features);

}  // namespace vtscope::native
