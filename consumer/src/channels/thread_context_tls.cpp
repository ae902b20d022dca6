// SPDX-License-Identifier: Apache-2.0
#include "channels/thread_context_tls.h"

#include <set>

#include "symbols/elf_symbols.h"

namespace vtscope {

Expected<int64_t> static_tls_offset(uint64_t descriptor_argument) {
    auto offset = static_cast<int64_t>(descriptor_argument);
    // Static TLS blocks sit just below the thread pointer; a dynamic descriptor's argument is a
    // heap pointer, far outside this range.
    constexpr int64_t kStaticTlsLimit = int64_t{1} << 20;
    if (offset < 0 && offset > -kStaticTlsLimit && offset % 8 == 0) return offset;
    return make_error("otel_thread_ctx_v1 is in dynamic TLS (descriptor argument " + std::to_string(offset) +
                      "); vtscope reads static TLS only");
}

Expected<ThreadContextTls> find_thread_context_tls(pid_t pid, const std::vector<Mapping>& maps,
                                                   const MemoryReader& memory, std::set<std::string>* without_symbol) {
    std::set<std::string> tried;
    for (const Mapping& m : maps) {
        if (m.offset != 0 || m.path.empty() || m.path[0] != '/' || m.path.find(".so") == std::string::npos ||
            m.path.find(" (deleted)") != std::string::npos || !tried.insert(m.path).second ||
            (without_symbol && without_symbol->count(m.path)))
            continue;
        auto file = open_module(pid, m);
        if (!file) continue;
        auto elf = ElfFile::load(file->fd.get(), {kThreadContextSymbol}, m.path);
        if (!elf) continue;
        const ElfSymbol* sym = elf->find(kThreadContextSymbol);
        if (!sym || !sym->is_tls) {
            if (without_symbol) without_symbol->insert(m.path);
            continue;
        }
        uint64_t slot = elf->tlsdesc_slot(kThreadContextSymbol);
        if (!slot)
            return make_error(m.path +
                              " defines otel_thread_ctx_v1 without a TLS descriptor (not the TLSDESC dialect)");
        uint64_t descriptor[2] = {};
        uint64_t bias = m.start - elf->first_load_vaddr();
        if (!memory.read(bias + slot, descriptor, sizeof(descriptor)))
            return make_error("cannot read the TLS descriptor of otel_thread_ctx_v1 in " + m.path);
        auto offset = static_tls_offset(descriptor[1]);
        if (!offset) return offset.error();
        return ThreadContextTls{m.path, *offset};
    }
    return make_error("no loaded module defines otel_thread_ctx_v1");
}

}  // namespace vtscope
