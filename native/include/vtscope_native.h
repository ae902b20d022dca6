/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The C ABI of libvtscope.so, the in-JVM library: the boundary between it and the Java side
 * (io.vtscope.VirtualThreadTime and friends call it through the FFM API; the layout of the
 * accounting block is read directly by Java). Everything else in the library is hidden.
 *
 * The library is loaded either at run time (Java: SymbolLookup.libraryLookup, or System.load,
 * then vtscope_native_init), at JVM start with -agentpath:libvtscope.so=OPTIONS (OPTIONS: a
 * comma-separated subset of vtt, probes, otep), or into a running JVM with the same OPTIONS
 * (jcmd PID JVMTI.agent_load /path/libvtscope.so OPTIONS). It exports exactly what this header
 * declares, plus the three entry points the JVM looks up by name, JNI_OnLoad, Agent_OnLoad and
 * Agent_OnAttach (declared by jni.h and jvmti.h). Initialisation is process-wide and happens once:
 * its first result is kept until the JVM exits and returned to every later caller.
 */
#ifndef VTSCOPE_NATIVE_H
#define VTSCOPE_NATIVE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Feature bits for vtscope_native_init. */
#define VTSCOPE_FEATURE_VTT 1u    /* Virtual Thread Time: mounted time and mount counts */
#define VTSCOPE_FEATURE_PROBES 2u /* USDT lifecycle probes, provider "vtscope" */
#define VTSCOPE_FEATURE_OTEP 4u   /* OTEP 4947: otel_thread_ctx_v1 follows mounts */

/* Result codes. */
#define VTSCOPE_OK 0
#define VTSCOPE_ERR_NO_JVM (-1)          /* no JavaVM in this process */
#define VTSCOPE_ERR_JVMTI (-2)           /* no JVMTI environment, or a JVMTI call failed */
#define VTSCOPE_ERR_UNSUPPORTED (-3)     /* the JVM lacks virtual-thread events (JDK < 21) */
#define VTSCOPE_ERR_NOT_VIRTUAL (-4)     /* the calling thread is not a virtual thread */
#define VTSCOPE_ERR_ALREADY (-5)         /* the thread is already registered */
#define VTSCOPE_ERR_NOT_INITIALIZED (-6) /* vtscope_native_init has not succeeded */
#define VTSCOPE_ERR_NOT_OWNER (-7)       /* the block is not the calling thread's */
#define VTSCOPE_ERR_FEATURES (-8)        /* features differ from the ones enabled first */
#define VTSCOPE_ERR_REGION (-9)          /* the record region is missing or malformed */

/*
 * Per-thread accounting of Virtual Thread Time, one cache line. Written only by the JVMTI
 * callbacks of the owning virtual thread, which run on that thread, and read by the same thread
 * from Java, so no synchronisation is needed. Times are CLOCK_MONOTONIC nanoseconds, the clock
 * of System.nanoTime() on Linux.
 */
struct vtscope_vtt_block {
    uint64_t mounted_ns;     /* mounted time of completed mount intervals since registration */
    uint64_t mount_start_ns; /* start of the current mount interval */
    uint64_t mounts;         /* mount transitions since registration */
    uint64_t unmounts;       /* unmount transitions since registration */
    int64_t thread_id;       /* Thread.threadId() of the owner */
    uint64_t reserved[3];
};

/*
 * Initialises the library in the running JVM, once per process. features: VTSCOPE_FEATURE_*.
 * region_base, region_size: the record region (common/vtscope_record.h) of this JVM for the
 * probes and OTEP features, or 0 when the caller has none (the library then creates it).
 * A later call with features not enabled by the first returns VTSCOPE_ERR_FEATURES.
 */
int32_t vtscope_native_init(uint32_t features, uint64_t region_base, uint64_t region_size);

/* The message of the first failed initialisation, or "" (static storage). */
const char* vtscope_native_error(void);

/* Features enabled by the successful initialisation (0 before). */
uint32_t vtscope_native_features(void);

/* Registers the calling virtual thread for Virtual Thread Time; *block receives its block. */
int32_t vtscope_vtt_register(struct vtscope_vtt_block** block);

/* Unregisters the calling thread; block must be the one it registered. The block is freed. */
int32_t vtscope_vtt_unregister(struct vtscope_vtt_block* block);

/* Blocks currently allocated (registered and not yet unregistered or ended): a leak check. */
int64_t vtscope_vtt_live_blocks(void);

/*
 * The application's OpenTelemetry resource for the OTEP 4719 process context (republished by its
 * updating protocol when the context is published, i.e. with VTSCOPE_FEATURE_OTEP; kept for the
 * first publication otherwise). entries: a sequence of u8 kind (0 string, 1 int64), u16 key
 * length, key bytes, then u32 length and bytes (string) or 8 bytes (int64), all little-endian;
 * each call replaces the whole resource. Returns the number of attributes published (those past
 * the payload limits are left out), or VTSCOPE_ERR_REGION if entries are malformed or the update
 * failed. Thread-safe; not for hot paths.
 */
int32_t vtscope_process_context_set_resource(const uint8_t* entries, uint64_t size);

/*
 * OTEP 4947 for platform threads: points the calling (platform) thread's otel_thread_ctx_v1 at
 * `record`, the address of its record in the record region (slot + VTSCOPE_RECORD_OFFSET), which
 * the caller then rewrites in place for every context change. Virtual threads must not call it
 * (the mount and unmount callbacks keep their carriers' thread-local). Returns VTSCOPE_OK, or
 * VTSCOPE_ERR_REGION if the OTEP feature is off or `record` is not a record of the region.
 */
int32_t vtscope_thread_context_attach(uint64_t record);

/*
 * 1 while the lifecycle probes fire for every virtual-thread start, mount, unmount and end; 0
 * otherwise. The JVMTI events behind the probes cost every transition, so the library enables
 * them only while a tracer holds a probe semaphore (polled every 50 ms) or OTEP needs them. A
 * tracer reads this variable from outside, through the ELF symbol, to know that its attach has
 * taken effect. Virtual Thread Time enables the mount, unmount and end events at the first
 * registration, JVM-wide and for good.
 */
extern volatile uint32_t vtscope_probe_events_active;

/*
 * Incremented each time the probe events go on. A tracer that reads the same epoch before it
 * attached and after it saw vtscope_probe_events_active at 1 knows the events never went off in
 * between (else the mappings it learned before may be stale). Read from outside, like
 * vtscope_probe_events_active.
 */
extern volatile uint32_t vtscope_probe_events_epoch;

/*
 * The OTEP 4947 thread-local: a pointer to the current thread's 64-byte context record
 * (common/vtscope_record.h), or null. The library points it at the mounted virtual thread's
 * record on every mount and clears it on unmount. It uses the TLSDESC dialect
 * (-mtls-dialect=gnu2), the one the OTEP recommends; readers find it through the ELF symbol.
 */
extern __thread void* otel_thread_ctx_v1;

#ifdef __cplusplus
}
static_assert(sizeof(struct vtscope_vtt_block) == 64, "one cache line, read by Java at fixed offsets");
#endif

#endif /* VTSCOPE_NATIVE_H */
