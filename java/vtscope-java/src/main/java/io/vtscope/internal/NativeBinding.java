// SPDX-License-Identifier: Apache-2.0
package io.vtscope.internal;

/**
 * The C ABI of libvtscope.so ({@code native/include/vtscope_native.h}) as bound in this JVM. Only
 * the binding is version-specific (see {@link NativeBindings}): JDK 22+ binds it with FFM
 * downcalls ({@link FfmBinding}); JDK 21 has FFM only as a preview and no binding.
 * Everything else about the library (finding, extracting, checking it) is {@link NativeLibrary}'s.
 */
interface NativeBinding {
    /** vtscope_native_init. */
    int init(int featureBits, long regionBase, long regionSize);

    /** vtscope_native_error: the message of the first failed initialisation, or "". */
    String error();

    /** vtscope_native_features. */
    int features();

    /** vtscope_vtt_register into {@code result[0]} (the block's address); returns the result code. */
    int register(long[] result);

    /** vtscope_vtt_unregister of the block at {@code block}. */
    int unregister(long block);

    /** vtscope_vtt_live_blocks. */
    long liveBlocks();

    /** vtscope_process_context_set_resource. */
    int setProcessResource(byte[] entries);

    /** vtscope_thread_context_attach. */
    int attachThreadContext(long recordAddress);

    /** The native-order 8 bytes at {@code address}, inside a block the library returned. */
    long readLong(long address);

    /** Unloads the library (dlclose) if it was bound to be unloadable; for tests. */
    void unload();
}
