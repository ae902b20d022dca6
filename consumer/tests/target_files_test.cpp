// SPDX-License-Identifier: Apache-2.0
// The one way vtscope opens a target's files: inside its root, regular files only, bounded.
// A plain temporary directory stands in for the target's root; what it plants is what a hostile
// container filesystem can plant.
#include "process/target_files.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace vtscope {
namespace {

class FakeRoot : public ::testing::Test {
protected:
    void SetUp() override {
        char dir[] = "/tmp/vtscope-root-XXXXXX";
        ASSERT_NE(mkdtemp(dir), nullptr);
        path_ = dir;
        std::filesystem::create_directories(path_ + "/tmp");
        outside_ = path_ + ".outside";
        std::ofstream(outside_) << "secret host line\n";
    }
    void TearDown() override {
        std::filesystem::remove_all(path_);
        std::filesystem::remove(outside_);
    }
    TargetRoot root() const {
        return TargetRoot::from_fd(UniqueFd(open(path_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)), "the fake root");
    }
    void write(const std::string& name, const std::string& text) const { std::ofstream(path_ + name) << text; }
    std::string path_, outside_;
};

TEST_F(FakeRoot, ReadsARegularFileInsideTheRoot) {
    write("/tmp/perf-1.map", "1000 10 a.B.c\n");
    auto file = root().open_regular("/tmp/perf-1.map", 1 << 20);
    ASSERT_TRUE(file) << file.error().message;
    auto text = read_capped(file->fd.get(), 1 << 20, "the map");
    ASSERT_TRUE(text);
    EXPECT_EQ(*text, "1000 10 a.B.c\n");
}

TEST_F(FakeRoot, AnAbsoluteSymlinkResolvesInsideTheRootNotOnTheHost) {
    // The link names the host file by its absolute path; inside the root that path does not exist.
    ASSERT_EQ(symlink(outside_.c_str(), (path_ + "/tmp/lib.so").c_str()), 0);
    auto followed = root().open_regular("/tmp/lib.so", 1 << 20, Symlinks::kResolveInRoot);
    EXPECT_FALSE(followed);
    auto refused = root().open_regular("/tmp/lib.so", 1 << 20, Symlinks::kRefuse);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("symbolic link"), std::string::npos) << refused.error().message;
}

TEST_F(FakeRoot, DotDotStopsAtTheRoot) {
    std::string name = std::filesystem::path(outside_).filename();
    auto file = root().open_regular("/../../" + name, 1 << 20, Symlinks::kResolveInRoot);
    EXPECT_FALSE(file);
}

TEST_F(FakeRoot, AFifoIsRefusedWithoutBlocking) {
    ASSERT_EQ(mkfifo((path_ + "/tmp/x.so (deleted)").c_str(), 0600), 0);
    auto file = root().open_regular("/tmp/x.so (deleted)", 1 << 20);
    ASSERT_FALSE(file);
    EXPECT_NE(file.error().message.find("not a regular file"), std::string::npos) << file.error().message;
}

TEST_F(FakeRoot, ADeviceIsRefused) {
    if (geteuid() != 0) GTEST_SKIP() << "SKIPPED: mknod needs root";
    ASSERT_EQ(mknod((path_ + "/tmp/zero").c_str(), S_IFCHR | 0600, makedev(1, 5)), 0);
    auto file = root().open_regular("/tmp/zero", 1 << 20);
    ASSERT_FALSE(file);
    EXPECT_NE(file.error().message.find("not a regular file"), std::string::npos) << file.error().message;
}

TEST_F(FakeRoot, AFileOverTheCapIsRefusedBeforeItIsRead) {
    write("/tmp/big", std::string(4096, 'x'));
    auto file = root().open_regular("/tmp/big", 1024);
    ASSERT_FALSE(file);
    EXPECT_NE(file.error().message.find("larger than"), std::string::npos) << file.error().message;
}

TEST_F(FakeRoot, ADirectoryHandleRefusesASymlinkedTmp) {
    std::filesystem::remove_all(path_ + "/tmp");
    ASSERT_EQ(symlink("/", (path_ + "/tmp").c_str()), 0);
    EXPECT_FALSE(root().open_directory("/tmp"));
}

TEST(MappedFile, OpensTheInodeThisProcessMaps) {
    if (geteuid() != 0) GTEST_SKIP() << "SKIPPED: /proc/PID/map_files needs CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE";
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
        if (line.find('/') == std::string::npos) continue;
        unsigned long long start = 0, end = 0;
        ASSERT_EQ(std::sscanf(line.c_str(), "%llx-%llx", &start, &end), 2);
        auto file = open_mapped_file(getpid(), start, end, kMaxElfBytes);
        ASSERT_TRUE(file) << file.error().message;
        struct stat st;
        ASSERT_EQ(stat(line.substr(line.find('/')).c_str(), &st), 0);
        EXPECT_EQ(file->st.st_ino, st.st_ino);
        return;
    }
    FAIL() << "no file-backed mapping in /proc/self/maps";
}

}  // namespace
}  // namespace vtscope
