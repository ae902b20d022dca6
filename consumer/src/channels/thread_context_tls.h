// SPDX-License-Identifier: Apache-2.0
// Locating OTEP 4947's otel_thread_ctx_v1 in a target process, as a third-party reader does:
// find the module that exports it in .dynsym as a TLS symbol, read its TLS descriptor (the GOT
// slot of its R_X86_64_TLSDESC relocation) and turn it into an offset from the thread pointer.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "core/expected.h"
#include "process/proc_maps.h"
#include "process/process_memory.h"

namespace vtscope {

inline constexpr const char* kThreadContextSymbol = "otel_thread_ctx_v1";

struct ThreadContextTls {
    std::string module;     // path of the module that defines the variable
    int64_t tp_offset = 0;  // address of the variable = thread pointer (fs base) + tp_offset
};

// The descriptor {entry, argument} of a TLSDESC slot resolved by glibc: for a module in static
// TLS (every module loaded at start, and dlopen'ed ones that fit the static TLS surplus) the
// argument is the variable's offset from the thread pointer, negative on x86_64 (TLS variant II).
// A dynamic-TLS descriptor (argument = pointer to a tls_index) is refused: reading it would need
// the DTV walk, which vtscope does not do.
Expected<int64_t> static_tls_offset(uint64_t descriptor_argument);

// Searches the target's mapped modules; an error says why the variable cannot be read (not
// loaded yet is an error too: callers retry later). Modules found not to define it are added to
// *without_symbol, when given, and skipped on later calls, so a retry parses only new modules.
Expected<ThreadContextTls> find_thread_context_tls(pid_t pid, const std::vector<Mapping>& maps,
                                                   const MemoryReader& memory,
                                                   std::set<std::string>* without_symbol = nullptr);

}  // namespace vtscope
