// SPDX-License-Identifier: Apache-2.0
#include "core/bpf_util.h"

#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

namespace vtscope {
namespace {

// BPF_TRACE_UPROBE_MULTI and the link_create attributes of a uprobe_multi link, as the kernel's
// include/uapi/linux/bpf.h has them since 6.6 (Debian 12's headers and libbpf 1.1 predate them).
constexpr int kTraceUprobeMulti = 48;
struct UprobeMultiLinkAttr {
    uint32_t prog_fd;
    uint32_t target_fd;
    uint32_t attach_type;
    uint32_t flags;
    uint64_t path;
    uint64_t offsets;
    uint64_t ref_ctr_offsets;
    uint64_t cookies;
    uint32_t cnt;
    uint32_t multi_flags;
    uint32_t pid;
    uint32_t pad;
};
static_assert(offsetof(UprobeMultiLinkAttr, path) == 16);
static_assert(offsetof(UprobeMultiLinkAttr, cnt) == 48);
static_assert(offsetof(UprobeMultiLinkAttr, pid) == 56);

int create_uprobe_multi_link(int prog_fd, const char* path, uint64_t offset, pid_t pid) {
    UprobeMultiLinkAttr attr{};
    attr.prog_fd = static_cast<uint32_t>(prog_fd);
    attr.attach_type = kTraceUprobeMulti;
    attr.path = reinterpret_cast<uintptr_t>(path);
    attr.offsets = reinterpret_cast<uintptr_t>(&offset);
    attr.cnt = 1;
    attr.pid = static_cast<uint32_t>(pid);
    return static_cast<int>(syscall(SYS_bpf, BPF_LINK_CREATE, &attr, sizeof(attr)));
}

// Whether the kernel makes uprobe_multi links, asked once the way libbpf 1.3 asks
// (probe_uprobe_multi_link, tools/lib/bpf/features.c): a program of that attach type loads, and
// a link on "/" fails with EBADF (not a regular file) rather than EINVAL.
bool kernel_has_uprobe_multi() {
    static const bool has = [] {
        const bpf_insn code[] = {{BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0}, {BPF_JMP | BPF_EXIT, 0, 0, 0, 0}};
        LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = static_cast<bpf_attach_type>(kTraceUprobeMulti));
        int prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, nullptr, "GPL", code, 2, &opts);
        if (prog < 0) return false;
        int link = create_uprobe_multi_link(prog, "/", 0, 0);
        bool supported = link < 0 && errno == EBADF;
        if (link >= 0) close(link);
        close(prog);
        return supported;
    }();
    return has;
}

}  // namespace

Link::Link(Link&& other) noexcept : link_(std::move(other.link_)), fd_(other.fd_) { other.fd_ = -1; }

Link& Link::operator=(Link&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) close(fd_);
        link_ = std::move(other.link_);
        fd_ = other.fd_;
        other.fd_ = -1;
    }
    return *this;
}

Link::~Link() {
    if (fd_ >= 0) close(fd_);
}

void prefer_uprobe_multi(bpf_program* program) {
    if (kernel_has_uprobe_multi())
        bpf_program__set_expected_attach_type(program, static_cast<bpf_attach_type>(kTraceUprobeMulti));
}

Expected<Link> attach_uprobe(bpf_program* program, pid_t pid, const std::string& binary, uint64_t offset,
                             const std::string& what) {
    if (bpf_program__expected_attach_type(program) == static_cast<bpf_attach_type>(kTraceUprobeMulti)) {
        int fd = create_uprobe_multi_link(bpf_program__fd(program), binary.c_str(), offset, pid);
        if (fd < 0) return attach_error(what);
        return Link(fd);
    }
    LIBBPF_OPTS(bpf_uprobe_opts, opts);
    bpf_link* link = bpf_program__attach_uprobe_opts(program, pid, binary.c_str(), offset, &opts);
    if (!link) return attach_error(what);
    return Link(link);
}

Error attach_error(const std::string& what) {
    return make_error("cannot attach " + what + ": " + std::strerror(errno));
}

Error load_error(int err, const std::string& command) {
    if (err == -EPERM || err == -EACCES)
        return make_error("no BPF privilege: the kernel refused to load the BPF programs of vtscope " + command +
                          " (run as root)");
    return make_error("cannot load the BPF programs of vtscope " + command + ": " + std::strerror(-err));
}

Expected<bpf_program*> find_program(bpf_object* object, const char* name) {
    bpf_program* program = bpf_object__find_program_by_name(object, name);
    if (!program) return make_error(std::string("BPF program ") + name + " missing from the object");
    return program;
}

Expected<bpf_map*> find_map(bpf_object* object, const char* name) {
    bpf_map* map = bpf_object__find_map_by_name(object, name);
    if (!map) return make_error(std::string("BPF map ") + name + " missing from the object");
    return map;
}

std::vector<uint64_t> read_percpu_counters(bpf_map* map, uint32_t count) {
    std::vector<uint64_t> totals(count, 0);
    int ncpu = libbpf_num_possible_cpus();
    std::vector<uint64_t> per_cpu(ncpu > 0 ? ncpu : 1);
    for (uint32_t key = 0; key < count; key++) {
        if (bpf_map_lookup_elem(bpf_map__fd(map), &key, per_cpu.data()) != 0) continue;
        for (uint64_t v : per_cpu) totals[key] += v;
    }
    return totals;
}

}  // namespace vtscope
