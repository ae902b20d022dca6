// SPDX-License-Identifier: Apache-2.0
// A java.base patched by libvtscope.so: VirtualThread with the mount hook's calls already in its
// class file (VirtualThreadTransformer.writePatch, agent option write-patch=DIR), run with
// --patch-module java.base=DIR. Then OTEP needs no JVMTI environment: any environment turns on
// HotSpot's notifying mount/unmount path for good (JDK 25 JvmtiExport::get_jvmti_interface calls
// JvmtiEnvBase::enable_virtual_threads_notify_jvmti in the live phase and sets the flag in the
// OnLoad phase), which costs every transition more than the hook's calls (bench/RESULTS.md).
//
// The patch is found in the JVM's own options (hotspot_flags.h, hotspot_jvm_args) and trusted
// only with the stamp writePatch put beside it, whose JDK must be the running one (a
// VirtualThread class from another JDK build must never be relied on), in a directory nobody
// else can change, holding the class files this library writes. Parsed without a JVM here,
// so it is unit-tested on its own.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#pragma GCC visibility push(hidden)

namespace vtscope::native {

// The file writePatch puts in the patch directory (VirtualThreadTransformer.STAMP).
inline constexpr const char* kPatchStamp = "vtscope-patch.properties";

struct JavaBasePatch {
    enum class Kind {
        kNone,      // java.base is not patched by libvtscope.so (not patched, or by something else)
        kOurs,      // patched by libvtscope.so for this JDK: dir holds the stamp
        kMismatch,  // patched by libvtscope.so for another JDK (or unreadable): error says which
    };
    Kind kind = Kind::kNone;
    std::string dir;
    std::string error;
};

// The entries of the last "--patch-module=java.base=PATH[:PATH...]" among jvm_args (HotSpot
// refuses a module patched twice, so there is at most one), in order; empty when none.
std::vector<std::string> java_base_patch_paths(const std::vector<std::string>& jvm_args);

// The value of the last "-Dkey=value" among jvm_args, if any.
std::optional<std::string> jvm_arg_property(const std::vector<std::string>& jvm_args, std::string_view key);

// The class files a patch holds beside VirtualThread, as this library writes them
// (mount_hook_classes.h).
struct PatchClassFiles {
    std::span<const unsigned char> mount_hook, patch_link;
};

// Looks for the stamp in each patch path (the first stamped path counts, as the JVM takes a class
// from the first path that has it) and trusts that path only if: every directory and file of the
// patch is opened without following a symbolic link, is owned by this process's effective user
// or root and is writable by neither group nor others (a patch anyone else could have changed is
// code of theirs in java.base); the stamp's IMPLEMENTOR and JAVA_RUNTIME_VERSION lines are
// java_home/release's; MountHook and PatchLink are byte for byte the expected class files and
// VirtualThread is linked to PatchLink. Every file read is size-capped. A stamped path that fails
// any of these is kMismatch, with one line naming why.
JavaBasePatch check_java_base_patch(const std::vector<std::string>& jvm_args, const std::string& java_home,
                                    const PatchClassFiles& expected);

// write-patch=DIR, before anything is written: DIR is created (0755) if missing, then must be a
// directory, not a symbolic link, owned by this process's effective user or root and writable by
// neither group nor others, so that nobody else can plant a link in it for the writer to follow.
// False with *error (one line) otherwise.
bool prepare_patch_directory(const std::string& dir, std::string* error);

// $JAVA_HOME of the running JVM: three directories above libjvm.so (lib/server/libjvm.so), found
// through one of its exported symbols; empty when not found.
std::string running_java_home();

}  // namespace vtscope::native

#pragma GCC visibility pop
