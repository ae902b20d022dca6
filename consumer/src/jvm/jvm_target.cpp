// SPDX-License-Identifier: Apache-2.0
#include "jvm/jvm_target.h"

#include <signal.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "symbols/elf_symbols.h"
#include "core/probe_modules.h"
#include "process/proc_maps.h"

namespace vtscope {

namespace {
// Mangled names, as in libjvm.so's .symtab.
constexpr const char* kJavaThreadRun = "_ZN10JavaThread3runEv";
constexpr const char* kThreadsRemove = "_ZN7Threads6removeEP10JavaThreadb";
}  // namespace

bool process_alive(pid_t pid) {
    // A zombie has exited even though /proc/PID stays until its parent reaps it: the state
    // letter follows the parenthesised command name in /proc/PID/stat (proc(5)). Before that, a
    // killed process is already exiting: its leader has PF_EXITING in the flags (field 9, set by
    // exit_signals() in do_exit(), kernel/exit.c, before exit_mm() drops its memory), and reads of
    // its memory fail while the state letter still says running.
    std::ifstream stat_file("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!std::getline(stat_file, text)) return false;
    size_t paren = text.rfind(')');
    if (paren == std::string::npos || paren + 2 >= text.size()) return false;
    std::istringstream fields(text.substr(paren + 2));
    char state = 0;
    long long ppid = 0, pgrp = 0, session = 0, tty = 0, tpgid = 0;
    unsigned long long flags = 0;
    constexpr unsigned long long kPfExiting = 0x4;  // include/linux/sched.h
    if (!(fields >> state >> ppid >> pgrp >> session >> tty >> tpgid >> flags)) return state != 'Z' && state != 'X';
    return state != 'Z' && state != 'X' && !(flags & kPfExiting);
}

Expected<JvmTarget> inspect_jvm(pid_t pid, const MemoryReader& memory) {
    if (pid <= 0) return make_error("invalid pid " + std::to_string(pid));
    if (kill(pid, 0) != 0 && errno == ESRCH) return make_error("no process with pid " + std::to_string(pid));
    auto maps = read_maps(pid);
    if (!maps) return maps.error();
    const Mapping* jvm = find_libjvm(*maps);
    if (!jvm) return make_error("process " + std::to_string(pid) + " is not a JVM (no libjvm.so mapped)");

    JvmTarget target;
    target.pid = pid;
    target.libjvm_path = jvm->path;
    std::vector<std::string> names = vmstructs_symbol_names();
    names.push_back(kJavaThreadRun);
    names.push_back(kThreadsRemove);
    for (const std::string& name : oop_identity_symbol_names()) names.push_back(name);
    auto file = open_module(pid, *jvm);
    if (!file) return file.error();
    auto elf = ElfFile::load(file->fd.get(), names, jvm->path);
    if (!elf) return elf.error();
    target.libjvm_file = std::make_shared<const UniqueFd>(std::move(file->fd));
    target.libjvm_attach_path = "/proc/self/fd/" + std::to_string(target.libjvm_file->get());
    target.load_bias = jvm->start - elf->first_load_vaddr();

    auto symbols = vmstructs_symbols(*elf, target.load_bias);
    if (!symbols) return symbols.error();
    auto structs = VMStructs::read(memory, *symbols);
    if (!structs) return structs.error();
    auto layout = resolve_layout(*structs, memory);
    if (!layout) return layout.error();
    target.layout = std::move(*layout);
    if (!target.layout.has_monitor_owner_id) {
        auto oop = resolve_oop_identity(*structs, memory, *elf, target.load_bias);
        if (!oop) return make_error("unsupported JVM: " + oop.error().message);
        target.oop_identity = std::move(*oop);
    }

    const ElfSymbol* run = elf->find(kJavaThreadRun);
    const ElfSymbol* remove = elf->find(kThreadsRemove);
    if (!run || !remove)
        return make_error("libjvm.so has no symbols for JavaThread::run / Threads::remove (stripped .symtab?)");
    target.java_thread_run_offset = elf->file_offset(run->value);
    target.threads_remove_offset = elf->file_offset(remove->value);
    if (!target.java_thread_run_offset || !target.threads_remove_offset)
        return make_error("libjvm.so: thread start/exit functions lie outside its loadable segments");
    return target;
}

}  // namespace vtscope
