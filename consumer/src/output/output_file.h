// SPDX-License-Identifier: Apache-2.0
// Where a subcommand writes its output: a file or standard output. The first write error is
// kept (not fatal at once: the session stops, drains and reports it).
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "core/expected.h"

namespace vtscope {

class OutputFile {
public:
    // "-" is standard output. A file is opened without following a symbolic link (refused); a
    // regular file with another hard link or another owner is refused; a new one is created
    // 0600. An error names the file and the reason.
    // `name` is how errors call the file ("cannot write NAME: why"; default "output PATH").
    static Expected<std::unique_ptr<OutputFile>> open(const std::string& path, const std::string& name = "");
    ~OutputFile();

    void write(std::string_view text);
    void flush();
    int error() const { return errno_; }  // first errno of a failed write, 0 while none failed

private:
    OutputFile(FILE* file, bool owned) : file_(file), owned_(owned) {}
    FILE* file_;
    bool owned_;
    int errno_ = 0;
};

}  // namespace vtscope
