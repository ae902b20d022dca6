#include "bpf_util.h"

#include <bpf/bpf.h>

#include <cerrno>
#include <cstring>

namespace vtscope {

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
