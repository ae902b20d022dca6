#include "output_file.h"

#include <cerrno>
#include <cstring>

namespace vtscope {

Expected<std::unique_ptr<OutputFile>> OutputFile::open(const std::string& path) {
    if (path == "-") return std::unique_ptr<OutputFile>(new OutputFile(stdout, false));
    FILE* file = std::fopen(path.c_str(), "w");
    if (!file) return make_error("cannot write output " + path + ": " + std::strerror(errno));
    return std::unique_ptr<OutputFile>(new OutputFile(file, true));
}

OutputFile::~OutputFile() {
    if (owned_) std::fclose(file_);
}

void OutputFile::write(std::string_view text) {
    if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() && !errno_) errno_ = errno ? errno : EIO;
}

void OutputFile::flush() {
    if (std::fflush(file_) != 0 && !errno_) errno_ = errno ? errno : EIO;
}

}  // namespace vtscope
