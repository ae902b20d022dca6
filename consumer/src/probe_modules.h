// Where the USDT lifecycle probes live in a target.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "expected.h"
#include "proc_maps.h"

namespace vtscope {

// The mapped libvtscope.so (any file name: the Java loader extracts it under a hashed name),
// recognised by its exported vtscope_native_init. Its path as the target sees it.
Expected<std::string> find_vtscope_library(pid_t pid, const std::vector<Mapping>& maps);

// The module with the paper's hotspot:vthread__* probes: libjvm.so of a patched JDK, else the
// target's executable (the probe-ABI test program).
Expected<std::string> find_hotspot_probe_module(pid_t pid, const std::vector<Mapping>& maps);

// True if the ELF file has a .note.stapsdt entry for provider:name.
bool has_usdt_probe(const std::string& path, const std::string& provider, const std::string& name);

}  // namespace vtscope
