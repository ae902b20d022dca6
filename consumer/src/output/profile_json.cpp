// SPDX-License-Identifier: Apache-2.0
#include "output/profile_json.h"

#include "output/event_format.h"
#include "output/json_io.h"
#include "output/profile_totals.h"

namespace vtscope {
namespace {

using nlohmann::ordered_json;

struct ThreadTotals {
    uint64_t samples = 0, cpu_ns = 0, virtual_samples = 0;
    uint64_t by_status[VTSCOPE_STATUS_COUNT] = {};
};

// The rows summed as the summary JSON lists them.
struct JsonTally {
    ProfileTotals all, virtual_all, virtual_no_context, virtual_context_unknown;
    std::map<std::string, ProfileTotals> groups, traces, unattributed;
    std::map<int64_t, ProfileTotals> vthreads;
    std::map<int64_t, std::map<std::string, uint64_t>> vthread_traces;
    std::map<uint32_t, ProfileTotals> non_virtual;
    std::map<uint32_t, ThreadTotals> threads;
    StackCounts stacks;

    JsonTally(const std::vector<ProfileRow>& rows, const ProfileInfo& info) {
        for (const ProfileRow& row : rows) add(row, info);
    }

    void add(const ProfileRow& row, const ProfileInfo& info) {
        all.add(row);
        stacks.add(row);
        RowKind kind = row_kind(row);
        ThreadTotals& t = threads[row.tid];
        t.samples += row.samples;
        t.cpu_ns += row.cpu_ns;
        if (row.status < VTSCOPE_STATUS_COUNT) t.by_status[row.status] += row.samples;
        if (kind == RowKind::kVirtual) {
            t.virtual_samples += row.samples;
            add_virtual(row, info);
        } else if (kind == RowKind::kNonVirtual) {
            non_virtual[row.tid].add(row);
        }
        if (row.status != VTSCOPE_STATUS_OK && row.status != VTSCOPE_STATUS_NO_CONTEXT)
            unattributed[unattributed_name(row)].add(row);
    }

    void add_virtual(const ProfileRow& row, const ProfileInfo& info) {
        virtual_all.add(row);
        vthreads[row.java_id].add(row);
        // "none": the record says no span is current; "unknown": nothing can say.
        vthread_traces[row.java_id][row.status == VTSCOPE_STATUS_OK                ? row.trace_id
                                    : row.status == VTSCOPE_STATUS_CONTEXT_UNKNOWN ? "unknown"
                                                                                   : "none"] += row.samples;
        if (row.status == VTSCOPE_STATUS_OK) {
            traces[row.trace_id].add(row);
            groups[profile_group(row, info.by)].add(row);
        } else {
            (row.status == VTSCOPE_STATUS_CONTEXT_UNKNOWN ? virtual_context_unknown : virtual_no_context).add(row);
            if (info.by == "vthread") groups[profile_group(row, info.by)].add(row);
        }
    }
};

// samples, cpu_ms and share (of all the samples) as members of object.
void add_totals(ordered_json& object, const ProfileTotals& t, uint64_t all_samples) {
    object["samples"] = t.samples;
    object["cpu_ms"] = json_double15(profile_ms(t.cpu_ns));
    object["share"] = json_double15(profile_share(t.samples, all_samples) / 100.0);
}

ordered_json totals_json(const ProfileTotals& t, uint64_t all_samples) {
    ordered_json object = ordered_json::object();
    add_totals(object, t, all_samples);
    return object;
}

ordered_json groups_json(const JsonTally& tally) {
    ordered_json out = ordered_json::array();
    for (const auto& [key, t] : ranked(tally.groups)) {
        ordered_json group;
        group["key"] = key;
        add_totals(group, t, tally.all.samples);
        group["vthreads"] = t.vthreads;
        group["traces"] = t.traces;
        group["context_unknown_samples"] = t.context_unknown_samples;
        out.push_back(std::move(group));
    }
    return out;
}

ordered_json traces_json(const JsonTally& tally) {
    ordered_json out = ordered_json::array();
    for (const auto& [trace, t] : ranked(tally.traces)) {
        ordered_json entry;
        entry["trace_id"] = trace;
        add_totals(entry, t, tally.all.samples);
        entry["vthreads"] = t.vthreads;
        out.push_back(std::move(entry));
    }
    return out;
}

ordered_json vthreads_json(const JsonTally& tally) {
    ordered_json out = ordered_json::array();
    for (const auto& [id, t] : ranked(tally.vthreads)) {
        ordered_json entry;
        entry["java_id"] = id;
        add_totals(entry, t, tally.all.samples);
        ordered_json traces = ordered_json::object();
        for (const auto& [trace, n] : tally.vthread_traces.at(id)) traces[trace] = n;
        entry["traces"] = std::move(traces);
        out.push_back(std::move(entry));
    }
    return out;
}

ordered_json threads_json(const JsonTally& tally, const ProfileInfo& info) {
    ordered_json out = ordered_json::array();
    for (const auto& [tid, t] : tally.threads) {
        ordered_json entry;
        entry["tid"] = tid;
        entry["name"] = profile_thread_name(info, tid);
        entry["samples"] = t.samples;
        entry["cpu_ms"] = json_double15(profile_ms(t.cpu_ns));
        entry["virtual_samples"] = t.virtual_samples;
        for (unsigned s = 0; s < VTSCOPE_STATUS_COUNT; s++) entry[status_name(s)] = t.by_status[s];
        out.push_back(std::move(entry));
    }
    return out;
}

ordered_json non_virtual_json(const JsonTally& tally, const ProfileInfo& info) {
    ordered_json out = ordered_json::array();
    for (const auto& [tid, t] : ranked(tally.non_virtual)) {
        ordered_json entry;
        entry["tid"] = tid;
        entry["name"] = profile_thread_name(info, tid);
        add_totals(entry, t, tally.all.samples);
        out.push_back(std::move(entry));
    }
    return out;
}

ordered_json unattributed_json(const JsonTally& tally) {
    ordered_json out = ordered_json::array();
    for (const auto& [name, t] : ranked(tally.unattributed)) {
        auto slash = name.find('/');
        ordered_json entry;
        entry["status"] = name.substr(0, slash);
        entry["reason"] = name.substr(slash + 1);
        add_totals(entry, t, tally.all.samples);
        out.push_back(std::move(entry));
    }
    return out;
}

// The session: what was sampled, how, and how long.
ordered_json session_json(const ProfileInfo& info) {
    ordered_json js;
    js["event"] = info.event;
    js["sampling"] = info.sampling;
    js["hz"] = info.hz;
    js["seconds"] = json_double15(info.seconds);
    js["steal_share"] = info.steal_share ? json_double15(*info.steal_share) : ordered_json(nullptr);
    js["by"] = info.by;
    return js;
}

}  // namespace

std::string render_profile_json(const std::vector<ProfileRow>& rows, const ProfileInfo& info) {
    JsonTally tally(rows, info);
    const uint64_t all = tally.all.samples;
    ordered_json js = session_json(info);
    add_totals(js, tally.all, all);
    js["virtual"] = totals_json(tally.virtual_all, all);
    js["virtual_no_context"] = totals_json(tally.virtual_no_context, all);
    js["virtual_context_unknown"] = totals_json(tally.virtual_context_unknown, all);
    js["groups"] = groups_json(tally);
    js["traces"] = traces_json(tally);
    js["vthreads"] = vthreads_json(tally);
    js["threads"] = threads_json(tally, info);
    js["non_virtual"] = non_virtual_json(tally, info);
    js["unattributed"] = unattributed_json(tally);
    js["stacks"] = info.stacks ? ordered_json{{"samples_with_stack", tally.stacks.with_stack},
                                              {"truncated_samples", tally.stacks.truncated},
                                              {"stack_errors", info.stack_errors}}
                               : ordered_json(nullptr);
    js["samples_not_kept"] = info.samples_not_kept;
    js["rows_bound"] = kMaxProfileRows;
    js["stacks_bound"] = kMaxProfileStacks;
    js["warnings"] = info.warnings;
    return json_text(js);
}

}  // namespace vtscope
