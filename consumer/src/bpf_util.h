// Small libbpf helpers shared by the attribution core, the channels and the event sources:
// ownership of links, lookups by name that fail as values, and one wording for libbpf errors.
#pragma once

#include <bpf/libbpf.h>

#include <memory>
#include <string>
#include <vector>

#include "expected.h"

namespace vtscope {

struct LinkDeleter {
    void operator()(bpf_link* link) const { bpf_link__destroy(link); }
};
using LinkPtr = std::unique_ptr<bpf_link, LinkDeleter>;
using Links = std::vector<LinkPtr>;

// "cannot attach WHAT: <errno text>" from a libbpf call that returned null and set errno.
Error attach_error(const std::string& what);
// The loading error of an event source's BPF object, privilege refusals named as such.
Error load_error(int err, const std::string& command);

Expected<bpf_program*> find_program(bpf_object* object, const char* name);
Expected<bpf_map*> find_map(bpf_object* object, const char* name);

// Sums a per-CPU array of u64 counters (every key from 0 to count - 1).
std::vector<uint64_t> read_percpu_counters(bpf_map* map, uint32_t count);

}  // namespace vtscope
