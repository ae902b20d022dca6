// SPDX-License-Identifier: Apache-2.0
#include "otlp/profile_encoder.h"

#include <map>
#include <tuple>

#include "../../bpf/attribution.h"
#include "otlp/otlp_message.h"
#include "output/event_format.h"

namespace vtscope {
namespace {

namespace profiles_pb = opentelemetry::proto::profiles::v1development;

// A table of the profiles dictionary: values interned to their index, entry 0 reserved.
template <typename Key>
class Table {
public:
    explicit Table(Key zero) { index(zero); }
    int32_t index(const Key& key) {
        auto [it, fresh] = indices_.try_emplace(key, static_cast<int32_t>(keys_.size()));
        if (fresh) keys_.push_back(key);
        return it->second;
    }
    const std::vector<Key>& keys() const { return keys_; }

private:
    std::map<Key, int32_t> indices_;
    std::vector<Key> keys_;
};

// Entry 0 is the reserved empty value (an empty message); the others as write fills them.
template <typename Key, typename Entry, typename Write>
void fill_table(const Table<Key>& table, google::protobuf::RepeatedPtrField<Entry>* out, Write write) {
    out->Reserve(static_cast<int>(table.keys().size()));
    out->Add();
    for (size_t i = 1; i < table.keys().size(); i++) write(table.keys()[i], out->Add());
}

// Hex (as ProfileRow keeps trace contexts) back to the bytes the proto's bytes fields hold.
std::string hex_bytes(const std::string& hex) {
    auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return 0;
    };
    std::string out;
    for (size_t i = 0; i + 1 < hex.size(); i += 2)
        out.push_back(static_cast<char>(nibble(hex[i]) * 16 + nibble(hex[i + 1])));
    return out;
}

// The request's dictionary, filled as the samples are interned.
struct Dictionary {
    Table<std::string> strings{""};
    Table<int32_t> functions{0};             // by name's string index
    Table<int32_t> locations{0};             // by function index (one line each)
    Table<std::vector<int32_t>> stacks{{}};  // location indices, leaf first
    Table<std::pair<std::string, std::string>> links{{"", ""}};
    // (key string index, attribute: key left empty, the kind and value its own).
    Table<std::tuple<int32_t, int, std::string>> attributes{{0, 0, ""}};

    void intern(const ProfileRow& row, profiles_pb::Sample* sample);
    void fill(profiles_pb::ProfilesDictionary* out) const;
};

void Dictionary::intern(const ProfileRow& row, profiles_pb::Sample* sample) {
    std::vector<int32_t> stack;
    for (auto frame = row.frames.rbegin(); frame != row.frames.rend(); ++frame)
        stack.push_back(locations.index(functions.index(strings.index(*frame))));
    sample->set_stack_index(stacks.index(stack));
    sample->add_values(static_cast<int64_t>(row.cpu_ns));
    if (row.status == VTSCOPE_STATUS_OK) sample->set_link_index(links.index({row.trace_id, row.span_id}));
    // kind 0 string, 1 int (its decimal text), 2 bool ("true"/"false").
    auto attribute = [&](const char* key, int kind, std::string value) {
        sample->add_attribute_indices(attributes.index({strings.index(key), kind, std::move(value)}));
    };
    bool identity = row.status == VTSCOPE_STATUS_OK || row.status == VTSCOPE_STATUS_NO_CONTEXT ||
                    row.status == VTSCOPE_STATUS_CONTEXT_UNKNOWN;
    if (identity && row.java_id > 0) {
        attribute("thread.id", 1, std::to_string(row.java_id));
        attribute("vtscope.thread.virtual", 2, row.mounted_virtual ? "true" : "false");
    }
    attribute("vtscope.os_thread.id", 1, std::to_string(row.tid));
    attribute("vtscope.status", 0, status_name(row.status));
}

void Dictionary::fill(profiles_pb::ProfilesDictionary* d) const {
    for (const std::string& s : strings.keys()) d->add_string_table(s);
    fill_table(functions, d->mutable_function_table(),
               [](int32_t name, profiles_pb::Function* f) { f->set_name_strindex(name); });
    fill_table(locations, d->mutable_location_table(),
               [](int32_t function, profiles_pb::Location* l) { l->add_lines()->set_function_index(function); });
    fill_table(stacks, d->mutable_stack_table(), [](const std::vector<int32_t>& stack, profiles_pb::Stack* s) {
        for (int32_t location : stack) s->add_location_indices(location);
    });
    fill_table(links, d->mutable_link_table(),
               [](const std::pair<std::string, std::string>& link, profiles_pb::Link* l) {
                   l->set_trace_id(hex_bytes(link.first));
                   l->set_span_id(hex_bytes(link.second));
               });
    fill_table(attributes, d->mutable_attribute_table(),
               [](const std::tuple<int32_t, int, std::string>& a, profiles_pb::KeyValueAndUnit* kv) {
                   const auto& [key, kind, value] = a;
                   kv->set_key_strindex(key);
                   if (kind == 0) kv->mutable_value()->set_string_value(value);
                   if (kind == 1) kv->mutable_value()->set_int_value(std::stoll(value));
                   if (kind == 2) kv->mutable_value()->set_bool_value(value == "true");
               });
}

}  // namespace

opentelemetry::proto::collector::profiles::v1development::ExportProfilesServiceRequest encode_profiles_request(
    const std::vector<OtlpAttribute>& resource, std::span<const ProfileRow> rows, uint64_t period_ns, uint64_t start_ns,
    uint64_t now_ns, const std::string& profile_id_hex) {
    opentelemetry::proto::collector::profiles::v1development::ExportProfilesServiceRequest request;
    profiles_pb::ResourceProfiles* resource_profiles = request.add_resource_profiles();
    set_resource(resource_profiles->mutable_resource(), resource);
    profiles_pb::ScopeProfiles* scope_profiles = resource_profiles->add_scope_profiles();
    set_scope(scope_profiles->mutable_scope());
    profiles_pb::Profile* profile = scope_profiles->add_profiles();
    Dictionary dictionary;
    const int32_t cpu = dictionary.strings.index("cpu"), nanoseconds = dictionary.strings.index("nanoseconds");
    profile->mutable_samples()->Reserve(static_cast<int>(rows.size()));
    for (const ProfileRow& row : rows) dictionary.intern(row, profile->add_samples());
    profile->mutable_sample_type()->set_type_strindex(cpu);
    profile->mutable_sample_type()->set_unit_strindex(nanoseconds);
    profile->mutable_period_type()->set_type_strindex(cpu);
    profile->mutable_period_type()->set_unit_strindex(nanoseconds);
    profile->set_period(static_cast<int64_t>(period_ns));
    profile->set_time_unix_nano(start_ns);
    profile->set_duration_nano(now_ns > start_ns ? now_ns - start_ns : 0);
    profile->set_profile_id(hex_bytes(profile_id_hex));
    dictionary.fill(request.mutable_dictionary());
    return request;
}

}  // namespace vtscope
