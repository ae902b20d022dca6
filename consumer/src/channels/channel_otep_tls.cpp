// SPDX-License-Identifier: Apache-2.0
// Identity channel "otep-tls", user side: finds otel_thread_ctx_v1 in the target as a
// third-party OTEP 4947 reader does and gives its offset from the thread pointer to the BPF side
// (consumer/bpf/channel_otep_tls.bpf.h). No thread map, no uprobe: it reads only what such a
// reader reads.
#include <bpf/bpf.h>

#include <set>

#include "channels/identity_channel.h"
#include "core/probe_modules.h"
#include "channels/thread_context_tls.h"

namespace vtscope {
namespace {

class OtepTlsChannel final : public ChannelUnit {
public:
    explicit OtepTlsChannel(const Target& target) : target_(target) {}

    // Refused, as the lifecycle channels are, when libvtscope.so (which keeps otel_thread_ctx_v1
    // on carriers) is not in the target: every event would be unmapped.
    Status attach(bpf_object* object, Links&, MapsSnapshot& maps) override {
        auto map = find_map(object, "thread_context_tls");
        if (!map) return map.error();
        tls_fd_ = bpf_map__fd(*map);
        const std::vector<Mapping>* current = maps.get();
        if (!current) return make_error("cannot read /proc/" + std::to_string(target_.pid) + "/maps");
        if (!find_vtscope_library(target_.pid, *current))
            return make_error("libvtscope.so is not loaded in process " + std::to_string(target_.pid) +
                              " (--identity otep-tls needs the JVM started with -agentpath:libvtscope.so=otep)");
        return ok_status();
    }

    void sync(MapsSnapshot& maps, bool) override {
        if (found_) return;
        const std::vector<Mapping>* current = maps.get();
        if (!current) return;
        auto tls = find_thread_context_tls(target_.pid, *current, target_.memory, &modules_without_tls_);
        if (!tls) {
            error_ = tls.error().message;
            return;
        }
        vtscope_tls_info info{tls->tp_offset, 1};
        uint32_t zero = 0;
        if (bpf_map_update_elem(tls_fd_, &zero, &info, BPF_ANY) == 0) found_ = true;
    }

    void summarise(const std::vector<uint64_t>&, Summary& summary) const override {
        if (!found_) summary.thread_context_tls_error = error_;
    }

private:
    const Target& target_;
    int tls_fd_ = -1;
    bool found_ = false;
    std::string error_;
    std::set<std::string> modules_without_tls_;  // parsed once: they do not define otel_thread_ctx_v1
};

}  // namespace

std::unique_ptr<ChannelUnit> make_otep_tls_channel(const Target& target) {
    return std::make_unique<OtepTlsChannel>(target);
}

}  // namespace vtscope
