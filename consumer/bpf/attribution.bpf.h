/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The attribution core: the one place where a BPF program of vtscope resolves "which Java thread
 * runs on this task, and what is its record". An event source includes this header, filters
 * with vtscope_is_target() and calls vtscope_attribute() on the task the event belongs to;
 * user space configures and feeds the core through consumer/src/core/attribution_core.h.
 *
 * Soundness rests on the caller: vtscope_attribute() must run on the task it attributes (a
 * syscall tracepoint, a uprobe, or sched_switch on the task switching out), while that task
 * cannot execute user code, so the mounted thread and the record it owns are stable for the
 * duration of the reads.
 */
#ifndef VTSCOPE_ATTRIBUTION_BPF_H
#define VTSCOPE_ATTRIBUTION_BPF_H

#include "core.bpf.h"
#include "channel_lifecycle.bpf.h"
#include "channel_otep_tls.bpf.h"
#include "channel_vmstructs.bpf.h"

/* A task of the target exits: whatever a channel knew about it is gone. */
SEC("tracepoint/sched/sched_process_exit")
int on_task_exit(void *ctx)
{
	if (!vtscope_is_target())
		return 0;
	__u32 tid = vtscope_current_tid();
	if (bpf_map_delete_elem(&threads, &tid) == 0)
		vmstructs_threads_changed();
	bpf_map_delete_elem(&carriers, &tid);
	bpf_map_delete_elem(&just_started, &tid);
	bpf_map_delete_elem(&pending_unmount, &tid);
	return 0;
}

static __always_inline void vtscope_resolve(struct vtscope_attribution *a, __u32 tid, bool virtual_only)
{
	__builtin_memset(a, 0, sizeof(*a));
	a->status = VTSCOPE_STATUS_UNMAPPED;
	switch (attribution_config.identity_mode) {
	case VTSCOPE_IDENTITY_VMSTRUCTS:
		resolve_vmstructs(a, tid, virtual_only);
		break;
	case VTSCOPE_IDENTITY_OTEP_TLS:
		resolve_otep_tls(a);
		break;
	default:
		resolve_lifecycle(a, tid);
		break;
	}
	/* Every channel's "no context" rests on the same condition: checked once, here. */
	if (a->status == VTSCOPE_STATUS_NO_CONTEXT)
		vtscope_require_context_writer(a);
}

/* Resolves the thread running on the current task (kernel tid `tid`) by the configured channel. */
static __always_inline void vtscope_attribute(struct vtscope_attribution *a, __u32 tid)
{
	vtscope_resolve(a, tid, false);
}

/*
 * The same, for event sources that keep only events of a mounted virtual thread: where the channel
 * sees that none is mounted (the vmstructs channel: the OS thread runs as itself), it returns that
 * identity (mounted_virtual 0) without reading the record; the status is then context_unknown, and
 * the caller must drop the event.
 */
static __always_inline void vtscope_attribute_virtual(struct vtscope_attribution *a, __u32 tid)
{
	vtscope_resolve(a, tid, true);
}

#endif /* VTSCOPE_ATTRIBUTION_BPF_H */
