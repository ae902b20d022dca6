// SPDX-License-Identifier: Apache-2.0
// OTEP 4947's thread-context variable: find_thread_context_tls over a module the target maps (an
// ELF file of its filesystem) and the TLS descriptor read from its memory, then static_tls_offset
// on the descriptor's argument. Input: the 16-byte descriptor {entry, argument}, the module's
// load address, then the module's bytes.
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz_input.h"
#include "channels/thread_context_tls.h"

namespace {

// Every read of at most 16 bytes, at any address, sees the descriptor; longer reads fail.
class DescriptorMemory final : public vtscope::MemoryReader {
public:
    explicit DescriptorMemory(const uint64_t (&descriptor)[2]) { std::memcpy(bytes_, descriptor, sizeof(bytes_)); }
    bool read(uint64_t, void* out, size_t size) const override {
        if (size > sizeof(bytes_)) return false;
        std::memcpy(out, bytes_, size);
        return true;
    }

private:
    char bytes_[16];
};

// The module as a file named like a shared library (the search only looks at "*.so*" paths),
// in a private directory made once per process.
class ModuleFile {
public:
    ModuleFile() {
        char dir[] = "/tmp/vtscope-fuzz-tls-XXXXXX";
        if (!mkdtemp(dir)) std::abort();
        dir_ = dir;
        path_ = dir_ + "/libotel-context.so";
    }
    ~ModuleFile() {
        unlink(path_.c_str());
        rmdir(dir_.c_str());
    }
    void write(std::string_view bytes) {
        FILE* f = std::fopen(path_.c_str(), "wb");
        if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() || std::fclose(f) != 0) std::abort();
    }
    const std::string& path() const { return path_; }

private:
    std::string dir_, path_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static ModuleFile module;
    vtscope::fuzz::FuzzInput input(data, size);
    uint64_t descriptor[2] = {input.take<uint64_t>(), input.take<uint64_t>()};
    auto load_address = input.take<uint64_t>();
    module.write(input.rest());

    (void)vtscope::static_tls_offset(descriptor[1]);
    std::vector<vtscope::Mapping> maps = {{load_address, load_address + 0x1000, "r--p", 0, module.path()}};
    DescriptorMemory memory(descriptor);
    std::set<std::string> without_symbol;
    (void)vtscope::find_thread_context_tls(getpid(), maps, memory, &without_symbol);
    return 0;
}
