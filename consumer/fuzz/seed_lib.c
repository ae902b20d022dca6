// SPDX-License-Identifier: Apache-2.0
/*
 * The shared library of the elf and thread_context_tls seeds (corpus/elf/tls-usdt*.elf-seed,
 * fuzz inputs kept as data, and the module of corpus/thread_context_tls/*): the symbols vtscope
 * looks up in a target's modules, an OTEP 4947 thread-local in the TLSDESC dialect and a stapsdt
 * note, in a few KB. Made with
 *   gcc -shared -fPIC -O2 -mtls-dialect=gnu2 -Wl,-z,noseparate-code -Wl,-z,max-page-size=4096 \
 *       -o tls-usdt.so seed_lib.c && strip --strip-debug tls-usdt.so
 * (tls-usdt-stripped: strip --strip-all, .dynsym only), then renamed *.elf-seed. Not part of
 * the build.
 */
#include <sys/sdt.h>

__attribute__((visibility("default"))) __thread void *otel_thread_ctx_v1;
__attribute__((visibility("default"))) void *gHotSpotVMStructs;
__attribute__((visibility("default"))) unsigned long gHotSpotVMStructEntryArrayStride = 48;
__attribute__((visibility("default"))) unsigned int vtscope_probe_events_active, vtscope_probe_events_epoch;

__attribute__((visibility("default"))) int vtscope_native_init(void)
{
	DTRACE_PROBE1(hotspot, vthread__thaw, 1);
	return 0;
}

__attribute__((visibility("default"))) void *current_context(void)
{
	return otel_thread_ctx_v1;
}
