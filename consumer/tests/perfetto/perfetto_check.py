# SPDX-License-Identifier: Apache-2.0
"""Checks a `vtscope block --perfetto` trace against PinningCases' ground truth, decoding it with
Perfetto's own perfetto_trace.proto (the perfetto_trace_pb2 module of the PyPI wheel `perfetto`,
installed by setup.sh), and draws it as an SVG.

Usage: perfetto_check.py TRACE EXPECTED PID [--svg SVG] [--descriptor DESC]

DESC: vtscope's own messages (consumer/proto/vtscope_perfetto.proto) as protoc's
--descriptor_set_out, compared field by field (number, name, type, repeated) with Perfetto's.

Checks: the file parses as perfetto.protos.Trace with no field Perfetto does not know (so every
field number and wire type of consumer/proto/vtscope_perfetto.proto is Perfetto's); a ClockSnapshot
relates CLOCK_MONOTONIC to BOOTTIME and every event is on CLOCK_MONOTONIC; slices nest; each
carrier's track is a thread of PID; every blocking case of the ground truth is one pin slice of its
virtual thread, under its trace and span, on the carrier the workload saw (gettid), whose start and
end are within 1 ms of the blocked window's (the thread's other off-CPU slices between the
window's edge and the pin taken out: what is left is time the timeline does not account for), inside a mount slice of the same virtual thread and
trace; no pin slice belongs to a case that must not block. Prints one line per check and the
worst errors; exits 1 on any failure.
"""
import argparse
import json
import sys
from collections import defaultdict

from google.protobuf import descriptor_pb2
from google.protobuf.unknown_fields import UnknownFieldSet
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

MONOTONIC, BOOTTIME = 3, 6  # protos/perfetto/common/builtin_clock.proto
TOLERANCE_NS = 1_000_000

failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message)


def unknown_fields(message, path="Trace"):
    """Paths of the fields in message (recursively) that Perfetto's proto does not define."""
    found = []
    if len(UnknownFieldSet(message)):
        found.append(path)
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        values = value if field.label == field.LABEL_REPEATED else [value]
        for i, v in enumerate(values[:5000]):
            found += unknown_fields(v, f"{path}.{field.name}[{i}]")
    return found


def check_descriptor(path):
    """Every field of vtscope's messages is Perfetto's field of that message, number, name, type
    and label alike (a field of the same wire type but another type would decode unnoticed)."""
    files = descriptor_pb2.FileDescriptorSet()
    with open(path, "rb") as f:
        files.ParseFromString(f.read())
    pool = pb.DESCRIPTOR.pool
    checked = 0

    def walk(messages, prefix):
        nonlocal checked
        for m in messages:
            theirs = pool.FindMessageTypeByName("perfetto.protos." + prefix + m.name)
            for field in m.field:
                t = theirs.fields_by_number.get(field.number)
                if t is None or t.name != field.name or t.type != field.type or (t.label == 3) != (field.label == 3):
                    fail(f"{prefix}{m.name}.{field.name} = {field.number} is not Perfetto's field")
                checked += 1
            walk(m.nested_type, prefix + m.name + ".")

    for file in files.file:
        walk(file.message_type, "")
    print(f"perfetto_check: {checked} fields of vtscope_perfetto.proto are Perfetto's")


def annotations(event):
    out = {}
    for a in event.debug_annotations:
        kind = a.WhichOneof("value")
        out[a.name] = getattr(a, kind) if kind else [v.string_value for v in a.array_values]
    return out


def read_slices(trace):
    """Track uuid -> thread descriptor, and the slices (begin..end) rebuilt per track."""
    threads, slices, stacks = {}, [], defaultdict(list)
    clocks = None
    for packet in trace.packet:
        kind = packet.WhichOneof("data")
        if kind == "clock_snapshot":
            clocks = {c.clock_id: c.timestamp for c in packet.clock_snapshot.clocks}
        elif kind == "track_descriptor" and packet.track_descriptor.HasField("thread"):
            threads[packet.track_descriptor.uuid] = packet.track_descriptor.thread
        elif kind == "track_event":
            e = packet.track_event
            if packet.timestamp_clock_id != MONOTONIC:
                fail(f"an event on clock {packet.timestamp_clock_id}, not CLOCK_MONOTONIC")
            if e.type == pb.TrackEvent.TYPE_SLICE_BEGIN:
                stacks[e.track_uuid].append((packet.timestamp, e))
            elif e.type == pb.TrackEvent.TYPE_SLICE_END:
                if not stacks[e.track_uuid]:
                    fail(f"a slice end without a begin on track {e.track_uuid}")
                    continue
                start, begin = stacks[e.track_uuid].pop()
                slices.append({"track": e.track_uuid, "start": start, "end": packet.timestamp,
                               "name": begin.name, "category": list(begin.categories),
                               "args": annotations(begin), "flows": list(begin.flow_ids),
                               "depth": len(stacks[e.track_uuid])})
    for track, open_slices in stacks.items():
        if open_slices:
            fail(f"{len(open_slices)} slices never end on track {track}")
    return clocks, threads, slices


def overlap(s, start, end):
    return max(0, min(s["end"], end) - max(s["start"], start))


def check_case(case, pins, mounts, threads, errors):
    what = f"{case['case']} rep {case['rep']} (vthread {case['vthread']})"
    mine = [s for s in pins if s["args"].get("vthread") == case["vthread"]]
    t0, t1 = case["t0_ns"], case["t1_ns"]
    window = [s for s in mine if s["end"] >= t0 - TOLERANCE_NS and s["start"] <= t1 + TOLERANCE_NS]
    if not case["blocking"]:
        long_pins = [s for s in window if s["end"] - s["start"] >= 0.5 * (t1 - t0)]
        if long_pins:
            fail(f"{what}: must not block its carrier, drawn as a {len(long_pins)} pin(s)")
        return
    # The operation: the pin in the case's syscall covering most of the blocked window (further
    # short stalls of the same carrier, as block_test.cpp counts them, may sit beside it).
    b0 = max(case["blocked_t0_ns"], t0)
    b1 = min(case["blocked_t1_ns"], t1) if case["blocked_t1_ns"] else t1
    ops = [s for s in window if s["args"].get("block_reason") == "syscall:" + str(case["syscall"])
           and s["end"] - s["start"] >= 0.5 * (b1 - b0)]
    if len(ops) != 1:
        fail(f"{what}: {len(ops)} pin slices for the operation")
        return
    s = ops[0]
    tid = threads[s["track"]].tid
    if case.get("carrier_tid") and tid != case["carrier_tid"]:
        fail(f"{what}: on carrier {tid}, the workload ran on {case['carrier_tid']}")
    for key in ("trace_id", "span_id"):
        if s["args"].get(key) != case[key]:
            fail(f"{what}: {key} {s['args'].get(key)}, expected {case[key]}")
    # Between the window's edge and the pin the thread either ran (on CPU: the error) or was off
    # CPU in another interval of its own, drawn as its own slice (a run-queue wait on a loaded
    # machine, a further stall): those are taken out, so what is left is time the timeline does
    # not account for.
    others = [o for o in mine if o is not s]
    start_error = s["start"] - b0
    if start_error > 0:
        start_error -= sum(overlap(o, b0, s["start"]) for o in others)
    end_error = s["end"] - b1
    if end_error < 0:
        end_error += sum(overlap(o, s["end"], b1) for o in others)
    errors.append((abs(start_error), abs(end_error), what))
    if abs(start_error) > TOLERANCE_NS or abs(end_error) > TOLERANCE_NS:
        fail(f"{what}: slice {start_error / 1e6:+.3f} ms at the start, {end_error / 1e6:+.3f} ms at the end")
    outer = [m for m in mounts if m["track"] == s["track"] and m["start"] <= s["start"] and m["end"] >= s["end"]
             and m["args"].get("vthread") == case["vthread"] and m["args"].get("trace_id") == case["trace_id"]]
    if len(outer) != 1:
        fail(f"{what}: {len(outer)} mount slices around its pin")


def short_label(s):
    """What fits on a slice: the virtual thread of a run, the syscall or reason of a pin."""
    if "mount" in s["category"]:
        return f"#{s['args'].get('vthread', '?')}"
    return s["args"].get("block_reason", s["name"]).replace("syscall:", "")


def draw_svg(path, threads, slices, pid):
    """The carriers' tracks as Perfetto's UI lays them out: a row per thread, nested slices below,
    flows as arrows from one run of a virtual thread to its next."""
    if not slices:
        return
    t_min = min(s["start"] for s in slices)
    t_max = max(s["end"] for s in slices)
    tracks = sorted({s["track"] for s in slices}, key=lambda u: threads[u].tid)
    width, left, row, lane = 1400, 170, 60, 22
    scale = (width - left - 10) / max(1, t_max - t_min)
    height = 58 + row * len(tracks) + 24
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="11">',
           '<defs><marker id="arrow" markerWidth="8" markerHeight="8" refX="7" refY="4" orient="auto">'
           '<path d="M0,0 L8,4 L0,8 z" fill="#333"/></marker></defs>',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="8" y="18" font-size="13">vtscope block --perfetto, PinningCases (pid {pid}), '
           f'{(t_max - t_min) / 1e6:.0f} ms, decoded with Perfetto\'s perfetto_trace.proto</text>',
           '<rect x="8" y="28" width="14" height="10" fill="#7fa8d9"/>'
           '<text x="26" y="37">a virtual thread\'s run on the carrier (#Java id)</text>'
           '<rect x="300" y="28" width="14" height="10" fill="#e07b5f"/>'
           '<text x="318" y="37">a pin: the carrier blocked with it mounted (syscall)</text>'
           '<line x1="640" y1="33" x2="670" y2="33" stroke="#333" marker-end="url(#arrow)"/>'
           '<text x="676" y="37">flow: the same virtual thread on its next carrier run</text>']
    colors = {"mount": "#7fa8d9", "block": "#e07b5f"}
    track_y = {uuid: 50 + n * row for n, uuid in enumerate(tracks)}
    for uuid, y in track_y.items():
        t = threads[uuid]
        out.append(f'<text x="8" y="{y + 28}">{escape(t.thread_name)} {t.tid}</text>')
        out.append(f'<line x1="{left}" x2="{width - 10}" y1="{y + row - 6}" y2="{y + row - 6}" stroke="#ddd"/>')
    for s in slices:
        y = track_y[s["track"]]
        x = left + (s["start"] - t_min) * scale
        w = max(1.0, (s["end"] - s["start"]) * scale)
        sy = y + 4 + s["depth"] * (lane + 2)
        color = colors.get(s["category"][0] if s["category"] else "", "#aaa")
        out.append(f'<rect x="{x:.1f}" y="{sy}" width="{w:.1f}" height="{lane}" fill="{color}" '
                   f'stroke="#555" stroke-width="0.3"><title>{escape(s["name"])} '
                   f'{escape(json.dumps(s["args"])[:300])}</title></rect>')
        label = short_label(s)[:max(0, int(w / 5.5))]
        if label:
            out.append(f'<text x="{x + 2:.1f}" y="{sy + 15}" font-size="9">{escape(label)}</text>')
    by_flow = defaultdict(list)
    for s in slices:
        for f in s["flows"]:
            by_flow[f].append(s)
    for runs in by_flow.values():
        runs.sort(key=lambda r: r["start"])
        for a, b in zip(runs, runs[1:]):
            x1, y1 = left + (a["end"] - t_min) * scale, track_y[a["track"]] + 15
            x2, y2 = left + (b["start"] - t_min) * scale, track_y[b["track"]] + 15
            out.append(f'<path d="M{x1:.1f},{y1} C{x1 + 20:.1f},{y1} {x2 - 20:.1f},{y2} {x2:.1f},{y2}" fill="none" '
                       f'stroke="#333" stroke-width="1" marker-end="url(#arrow)"/>')
    for k in range(6):
        x = left + k * (width - left - 10) / 5
        ms = k * (t_max - t_min) / 5 / 1e6
        anchor = "end" if k == 5 else "middle"
        out.append(f'<text x="{x:.0f}" y="{height - 8}" text-anchor="{anchor}">+{ms:.0f} ms</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def main():
    sys.stdout = sys.stderr  # the test (block_test.cpp) shows the check's stderr
    parser = argparse.ArgumentParser(usage=__doc__)
    parser.add_argument("trace")
    parser.add_argument("expected")
    parser.add_argument("pid", type=int)
    parser.add_argument("--svg")
    parser.add_argument("--descriptor")
    args = parser.parse_args()
    if args.descriptor:
        check_descriptor(args.descriptor)
    trace = pb.Trace()
    with open(args.trace, "rb") as f:
        trace.ParseFromString(f.read())
    pid = args.pid
    truth = [json.loads(line) for line in open(args.expected) if line.strip()]
    unknown = unknown_fields(trace)
    if unknown:
        fail(f"fields Perfetto does not define: {unknown[:5]}")
    clocks, threads, slices = read_slices(trace)
    if not clocks or MONOTONIC not in clocks or BOOTTIME not in clocks:
        fail(f"no ClockSnapshot of CLOCK_MONOTONIC and BOOTTIME: {clocks}")
    for uuid, t in threads.items():
        if t.pid != pid:
            fail(f"track {uuid}: thread {t.tid} of pid {t.pid}, not {pid}")
    pins = [s for s in slices if s["category"] == ["block"]]
    mounts = [s for s in slices if s["category"] == ["mount"]]
    errors = []
    for case in truth:
        check_case(case, pins, mounts, threads, errors)
    blocking = sum(1 for c in truth if c["blocking"])
    print(f"perfetto_check: {len(trace.packet)} packets, {len(threads)} thread tracks, {len(pins)} pin slices, "
          f"{len(mounts)} mount slices, {sum(1 for m in mounts if m['flows'])} with a flow; "
          f"{len(truth)} cases, {blocking} blocking, {len(errors)} matched")
    if errors:
        worst_start = max(errors)
        worst_end = max(errors, key=lambda e: e[1])
        print(f"perfetto_check: worst start error {worst_start[0] / 1e6:.3f} ms ({worst_start[2]}), "
              f"worst end error {worst_end[1] / 1e6:.3f} ms ({worst_end[2]})")
    if args.svg:
        draw_svg(args.svg, threads, slices, pid)
    print(f"perfetto_check: {len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
