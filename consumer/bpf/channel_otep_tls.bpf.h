/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Identity channel "otep-tls": reads what a third-party OTEP 4947 reader reads, the carrier's
 * otel_thread_ctx_v1 thread-local, which libvtscope.so points at the mounted virtual thread's
 * record; the slot header in front of that record names the owner. User space finds the
 * thread-local's offset from the thread pointer (consumer/src/channels/channel_otep_tls.cpp).
 */
#ifndef VTSCOPE_CHANNEL_OTEP_TLS_BPF_H
#define VTSCOPE_CHANNEL_OTEP_TLS_BPF_H

#include "core.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vtscope_tls_info);
} thread_context_tls SEC(".maps");

/* Resolve-at-read through the carrier's otel_thread_ctx_v1 (x86_64: the fs base). */
static __always_inline void resolve_otep_tls(struct vtscope_attribution *a)
{
	__u32 zero = 0;
	struct vtscope_tls_info *tls = bpf_map_lookup_elem(&thread_context_tls, &zero);
	struct vtscope_region_info *rg = vtscope_region();
	if (!tls || !tls->present || !rg) {
		vtscope_set(a, VTSCOPE_STATUS_UNMAPPED, VTSCOPE_REASON_NO_THREAD_CONTEXT);
		return;
	}
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 fsbase = BPF_CORE_READ(task, thread.fsbase);
	__u64 record = 0;
	if (!fsbase || bpf_probe_read_user(&record, sizeof(record), (const void *)(fsbase + tls->tp_offset)) != 0) {
		vtscope_set(a, VTSCOPE_STATUS_UNMAPPED, VTSCOPE_REASON_READ_FAULT);
		return;
	}
	if (!record) {
		vtscope_set(a, VTSCOPE_STATUS_UNMAPPED, VTSCOPE_REASON_NO_THREAD_CONTEXT);
		return;
	}
	/* Only a record of the region is read: the pointer must land on a slot's record line. */
	__u64 first = rg->base + VTSCOPE_REGION_HEADER_SIZE;
	__u64 span = (rg->capacity_mask + 1) * VTSCOPE_SLOT_SIZE;
	if (record < first || record - first >= span || (record - first) % VTSCOPE_SLOT_SIZE != VTSCOPE_RECORD_OFFSET) {
		vtscope_set(a, VTSCOPE_STATUS_INVALID, VTSCOPE_REASON_OUTSIDE_REGION);
		return;
	}
	__u64 slot = record - VTSCOPE_RECORD_OFFSET;
	struct vtscope_slot_owner head = {};
	if (bpf_probe_read_user(&head, VTSCOPE_OWNER_ID_KIND_BYTES, (const void *)slot) != 0) {
		vtscope_set(a, VTSCOPE_STATUS_INVALID, VTSCOPE_REASON_READ_FAULT);
		return;
	}
	if (head.owner <= 0) {
		vtscope_set(a, VTSCOPE_STATUS_INVALID, VTSCOPE_REASON_OWNER_CHANGED);
		return;
	}
	a->java_id = head.owner;
	a->mounted_virtual = head.kind == VTSCOPE_KIND_VIRTUAL;
	vtscope_read_record(a, record, slot, head.owner);
}

#endif /* VTSCOPE_CHANNEL_OTEP_TLS_BPF_H */
