// SPDX-License-Identifier: Apache-2.0
// ELF files of the target (libjvm.so, libvtscope.so, any mapped module; the target's filesystem
// holds them): ElfFile::load with the names vtscope looks up, load_elf_symbols for stacks, and
// has_usdt_probe over .note.stapsdt.
#include <cstdint>
#include <string>
#include <vector>

#include "symbols/elf_symbols.h"
#include "memfd_file.h"
#include "core/probe_modules.h"
#include "symbols/stack_symbolizer.h"
#include "channels/thread_context_tls.h"
#include "jvm/vmstructs.h"

namespace {

std::vector<std::string> wanted_names() {
    std::vector<std::string> names = vtscope::vmstructs_symbol_names();
    names.insert(names.end(), {vtscope::kThreadContextSymbol, "vtscope_native_init", "vtscope_probe_events_active",
                               "vtscope_probe_events_epoch", "_ZN10JavaThread3runEv"});
    return names;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static vtscope::fuzz::MemfdFile file("vtscope-fuzz-elf");
    static const std::vector<std::string> names = wanted_names();
    file.write(data, size);

    if (auto elf = vtscope::ElfFile::load(file.fd(), names, "the fuzz input")) {
        for (const auto& name : names)
            if (const vtscope::ElfSymbol* sym = elf->find(name)) (void)elf->file_offset(sym->value);
        (void)elf->tlsdesc_slot(vtscope::kThreadContextSymbol);
        (void)elf->file_offset(elf->first_load_vaddr());
    }
    vtscope::ElfSymbols symbols = vtscope::load_elf_symbols(file.fd(), "the fuzz input");
    if (symbols.loaded)
        for (const auto& segment : symbols.segments) (void)symbols.symbols.find(segment.vaddr);
    (void)vtscope::has_usdt_probe(file.fd(), "hotspot", "vthread__thaw");
    return 0;
}
