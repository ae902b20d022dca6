/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Identity channels "lifecycle", "two-probe" and "hotspot-probes": a map carrier tid ->
 * (virtual thread, record address) driven by USDT lifecycle probes, as the paper's consumer
 * keeps it (section 5.4), read with the cached record at each event (valid flag only, no
 * ownership check: the paper's caching reader, so the ablation shows its failures). User space
 * attaches the probes and watches libvtscope's event state (consumer/src/channels/channel_lifecycle.cpp).
 */
#ifndef VTSCOPE_CHANNEL_LIFECYCLE_BPF_H
#define VTSCOPE_CHANNEL_LIFECYCLE_BPF_H

#include <bpf/usdt.bpf.h>

#include "core.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, VTSCOPE_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct vtscope_mapping);
} carriers SEC(".maps");

/*
 * two-probe emulates the paper's freeze/thaw-only consumer on top of JDK 25's JVMTI events,
 * which (unlike freeze/thaw) also cover the first mount (posted right after VirtualThreadStart)
 * and the final unmount (right before VirtualThreadEnd). Those two are what freeze/thaw miss, so
 * two-probe drops them: the first mount after a start, and an unmount that the next event on the
 * carrier shows to be the final one (it is followed by the same thread's end). Until then the
 * unmount is pending and the carrier reads as unmapped.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, VTSCOPE_MAX_THREADS);
	__type(key, __u32);
	__type(value, __s64);
} just_started SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, VTSCOPE_MAX_THREADS);
	__type(key, __u32);
	__type(value, __s64);
} pending_unmount SEC(".maps");

/* HotSpot's enums (continuationFreezeThaw.cpp / continuation.hpp), the paper's probe ABI. */
#define FREEZE_OK 0
#define THAW_TOP  0

static __always_inline bool lifecycle_two_probe(void)
{
	return attribution_config.identity_mode == VTSCOPE_IDENTITY_TWO_PROBE;
}

static __always_inline void lifecycle_insert(__s64 vid, __u64 record)
{
	__u32 tid = vtscope_current_tid();
	struct vtscope_mapping m = {.vid = vid, .record = record};
	bpf_map_update_elem(&carriers, &tid, &m, BPF_ANY);
	vtscope_count(VTSCOPE_COUNTER_INSERTS);
}

static __always_inline void lifecycle_delete(__u32 missing_counter)
{
	__u32 tid = vtscope_current_tid();
	if (bpf_map_delete_elem(&carriers, &tid) == 0)
		vtscope_count(VTSCOPE_COUNTER_DELETES);
	else
		vtscope_count(missing_counter);
}

/* two-probe: a pending unmount turned out not to be final; it was a freeze after all. */
static __always_inline void two_probe_settle(__u32 tid)
{
	if (bpf_map_delete_elem(&pending_unmount, &tid) == 0)
		lifecycle_delete(VTSCOPE_COUNTER_UNMOUNT_UNMAPPED);
}

/* libvtscope.so: vtscope:vthread__{start,end,mount,unmount} (native/src/probes.h). */
SEC("usdt")
int BPF_USDT(on_vt_start, long vid, long record)
{
	if (!vtscope_is_target())
		return 0;
	if (lifecycle_two_probe()) {
		__u32 tid = vtscope_current_tid();
		__s64 v = vid;
		two_probe_settle(tid);
		bpf_map_update_elem(&just_started, &tid, &v, BPF_ANY); /* its first mount has no thaw */
		return 0;
	}
	lifecycle_insert(vid, record);
	return 0;
}

SEC("usdt")
int BPF_USDT(on_vt_mount, long vid, long record)
{
	if (!vtscope_is_target())
		return 0;
	if (lifecycle_two_probe()) {
		__u32 tid = vtscope_current_tid();
		two_probe_settle(tid);
		__s64 *started = bpf_map_lookup_elem(&just_started, &tid);
		if (started && *started == vid) {
			bpf_map_delete_elem(&just_started, &tid);
			return 0;
		}
	}
	lifecycle_insert(vid, record);
	return 0;
}

SEC("usdt")
int BPF_USDT(on_vt_unmount, long vid)
{
	if (!vtscope_is_target())
		return 0;
	if (lifecycle_two_probe()) {
		__u32 tid = vtscope_current_tid();
		__s64 v = vid;
		bpf_map_update_elem(&pending_unmount, &tid, &v, BPF_ANY);
		return 0;
	}
	lifecycle_delete(VTSCOPE_COUNTER_UNMOUNT_UNMAPPED);
	return 0;
}

SEC("usdt")
int BPF_USDT(on_vt_end, long vid)
{
	if (!vtscope_is_target())
		return 0;
	if (lifecycle_two_probe()) {
		/* The pending unmount was the final one: no freeze, so the mapping stays (the defect). */
		__u32 tid = vtscope_current_tid();
		bpf_map_delete_elem(&pending_unmount, &tid);
		return 0;
	}
	/* The paper: delete unconditionally on end. On JDK 25 the final unmount usually deleted it. */
	lifecycle_delete(VTSCOPE_COUNTER_END_UNMAPPED);
	return 0;
}

/* The paper's patched JDK: hotspot:vthread__{start,end,freeze,thaw} (its Appendix B). */
SEC("usdt")
int BPF_USDT(on_hs_start, long vid, long record)
{
	if (vtscope_is_target())
		lifecycle_insert(vid, record);
	return 0;
}

SEC("usdt")
int BPF_USDT(on_hs_thaw, long vid, int kind, long record)
{
	/* Only kind=top is a logical remount; return-barrier thaws (also seen after end) are not. */
	if (vtscope_is_target() && kind == THAW_TOP)
		lifecycle_insert(vid, record);
	return 0;
}

SEC("usdt")
int BPF_USDT(on_hs_freeze, long vid, int result, long record)
{
	/* Pinned results leave the thread on its carrier: keep the mapping. */
	if (vtscope_is_target() && result == FREEZE_OK)
		lifecycle_delete(VTSCOPE_COUNTER_UNMOUNT_UNMAPPED);
	return 0;
}

SEC("usdt")
int BPF_USDT(on_hs_end, long vid)
{
	if (vtscope_is_target())
		lifecycle_delete(VTSCOPE_COUNTER_END_UNMAPPED);
	return 0;
}

/* The cached mapping of this carrier, read like the paper's consumer. */
static __always_inline void resolve_lifecycle(struct vtscope_attribution *a, __u32 tid)
{
	struct vtscope_mapping *m = bpf_map_lookup_elem(&carriers, &tid);
	if (lifecycle_two_probe() && bpf_map_lookup_elem(&pending_unmount, &tid))
		m = 0; /* unmounted, final or not: not mapped for now */
	if (!m) {
		vtscope_set(a, VTSCOPE_STATUS_UNMAPPED, VTSCOPE_REASON_NO_LIFECYCLE_MAPPING);
		return;
	}
	a->java_id = m->vid;
	a->mounted_virtual = 1;
	if (!m->record) {
		vtscope_set(a, VTSCOPE_STATUS_CONTEXT_UNKNOWN, VTSCOPE_REASON_NO_LIFECYCLE_RECORD);
		return;
	}
	vtscope_read_record(a, m->record, 0, m->vid);
}

#endif /* VTSCOPE_CHANNEL_LIFECYCLE_BPF_H */
