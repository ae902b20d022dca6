// SPDX-License-Identifier: Apache-2.0
// Small libbpf helpers shared by the attribution core, the channels and the event sources:
// ownership of links, lookups by name that fail as values, and one wording for libbpf errors.
#pragma once

#include <bpf/libbpf.h>

#include <memory>
#include <string>
#include <vector>

#include "core/expected.h"

namespace vtscope {

struct LinkDeleter {
    void operator()(bpf_link* link) const { bpf_link__destroy(link); }
};
using LinkPtr = std::unique_ptr<bpf_link, LinkDeleter>;

// An attached program: a libbpf link, or the descriptor of a link made without libbpf (a
// uprobe_multi link, which libbpf 1.1 cannot make). Closing either detaches the program.
class Link {
public:
    explicit Link(bpf_link* link) : link_(link) {}
    explicit Link(int link_fd) : fd_(link_fd) {}
    Link(Link&& other) noexcept;
    Link& operator=(Link&& other) noexcept;
    Link(const Link&) = delete;
    Link& operator=(const Link&) = delete;
    ~Link();

private:
    LinkPtr link_;
    int fd_ = -1;
};
using Links = std::vector<Link>;

// Before load: makes a uprobe program of the object attach through a uprobe_multi link when the
// kernel has them (6.6+). Since Linux 6.16 ("perf: Revert to requiring CAP_SYS_ADMIN for uprobes",
// kernel/events/core.c perf_uprobe_event_init, also in stable kernels) a uprobe made through
// perf_event_open needs CAP_SYS_ADMIN, because one placed inside an instruction corrupts the
// traced process; a uprobe_multi link needs only what loading the program needs (CAP_BPF and
// CAP_PERFMON). vtscope's offsets are function entries from libjvm.so's symbol table.
void prefer_uprobe_multi(bpf_program* program);
// Attaches a uprobe program at a file offset of binary, in process pid only: through a
// uprobe_multi link if prefer_uprobe_multi chose one, else through libbpf (perf_event_open).
Expected<Link> attach_uprobe(bpf_program* program, pid_t pid, const std::string& binary, uint64_t offset,
                             const std::string& what);

// "cannot attach WHAT: <errno text>" from a libbpf call that returned null and set errno.
Error attach_error(const std::string& what);
// The loading error of an event source's BPF object, privilege refusals named as such.
Error load_error(int err, const std::string& command);

Expected<bpf_program*> find_program(bpf_object* object, const char* name);
Expected<bpf_map*> find_map(bpf_object* object, const char* name);

// Sums a per-CPU array of u64 counters (every key from 0 to count - 1).
std::vector<uint64_t> read_percpu_counters(bpf_map* map, uint32_t count);

}  // namespace vtscope
