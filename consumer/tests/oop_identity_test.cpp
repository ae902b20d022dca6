// SPDX-License-Identifier: Apache-2.0
// JDK 21-23 thread ids read from thread objects (jvm/oop_identity.h): each collector's rule must
// refuse a read that a collection may have raced, and decode what it accepts exactly. A collection
// "during" the read is made by a reader that changes the fake target when the tid is read.
#include <gtest/gtest.h>

#include <functional>

#include "fake_memory.h"
#include "jvm/oop_identity.h"

using vtscope::OopIdentity;
using vtscope::OopReadResult;
using vtscope::testing::FakeMemory;

namespace {

constexpr uint64_t kJavaThread = 0x10000, kSlot = 0x20000, kCount = 0x30000, kActive = 0x30100;
constexpr uint64_t kGood = 0x30200, kSeq = 0x30300;
constexpr uint64_t kVthreadOffset = 896, kTidOffset = 48;

// A FakeMemory that runs a hook when one address is read: a collection between two reads.
class RacingMemory final : public vtscope::MemoryReader {
public:
    FakeMemory memory;
    uint64_t trigger = 0;
    std::function<void(FakeMemory&)> hook;
    bool read(uint64_t address, void* out, size_t size) const override {
        if (address == trigger && hook) {
            auto run = hook;
            const_cast<RacingMemory*>(this)->hook = nullptr;
            run(const_cast<RacingMemory*>(this)->memory);
        }
        return memory.read(address, out, size);
    }
};

void put_thread(FakeMemory& m, uint64_t slot_value, uint64_t object, int64_t tid) {
    m.put_value(kJavaThread + kVthreadOffset, kSlot);
    m.put_value(kSlot, slot_value);
    m.put_value(object + kTidOffset, tid);
}

OopIdentity identity(vtscope_oop_rule rule) {
    OopIdentity id;
    id.rule = rule;
    id.tid_offset = kTidOffset;
    id.vthread = kVthreadOffset;
    id.active_address = kActive;
    id.count_address = kCount;
    id.good_mask_address = kGood;
    id.seq_address = kSeq;
    return id;
}

OopReadResult read(const vtscope::MemoryReader& m, const OopIdentity& id, int64_t& tid) {
    return vtscope::read_thread_tid(m, id, kJavaThread, kVthreadOffset, tid);
}

TEST(OopIdentity, StwReadsTheTidOutsidePauses) {
    RacingMemory m;
    constexpr uint64_t kObject = 0x40000;
    put_thread(m.memory, kObject, kObject, 77);
    m.memory.put_value(kCount, uint32_t{5});
    m.memory.put_value(kActive, uint8_t{0});
    int64_t tid = 0;
    EXPECT_EQ(read(m, identity(VTSCOPE_OOP_STW), tid), OopReadResult::kOk);
    EXPECT_EQ(tid, 77);
    m.memory.put_value(kActive, uint8_t{1});  // a pause is running
    tid = 0;
    EXPECT_EQ(read(m, identity(VTSCOPE_OOP_STW), tid), OopReadResult::kGcPause);
    EXPECT_EQ(tid, 0);
}

// A whole pause between the first and the last guard read: it moved the object (the tid read saw
// what the old place holds now) and incremented the count, so the read is refused.
TEST(OopIdentity, StwRefusesAReadAPauseRanThrough) {
    RacingMemory m;
    constexpr uint64_t kObject = 0x40000;
    put_thread(m.memory, kObject, kObject, 77);
    m.memory.put_value(kCount, uint32_t{5});
    m.memory.put_value(kActive, uint8_t{0});
    m.trigger = kObject + kTidOffset;
    m.hook = [](FakeMemory& mem) {
        mem.put_value(kObject + kTidOffset, int64_t{12345});  // another object now lives there
        mem.put_value(kCount, uint32_t{6});
    };
    int64_t tid = 0;
    EXPECT_EQ(read(m, identity(VTSCOPE_OOP_STW), tid), OopReadResult::kGcPause);
    EXPECT_EQ(tid, 0);
}

TEST(OopIdentity, NonGenerationalZgcAcceptsOnlyTheGoodColour) {
    RacingMemory m;
    OopIdentity id = identity(VTSCOPE_OOP_XZGC);
    id.metadata_mask = uint64_t{0xF} << 42;
    const uint64_t marked0 = uint64_t{1} << 42, remapped = uint64_t{1} << 44, offset = 0x40000;
    m.memory.put_value(kGood, remapped);
    m.memory.put_value(kSeq, uint32_t{3});
    put_thread(m.memory, remapped | offset, remapped | offset, 91);
    int64_t tid = 0;
    EXPECT_EQ(read(m, id, tid), OopReadResult::kOk);
    EXPECT_EQ(tid, 91);
    m.memory.put_value(kSlot, marked0 | offset);  // a stale colour: the object may have moved since
    EXPECT_EQ(read(m, id, tid), OopReadResult::kPointerNotGood);
    // The good mask flips while the tid is read: a new phase began and may relocate it.
    m.memory.put_value(kSlot, remapped | offset);
    m.trigger = (remapped | offset) + kTidOffset;
    m.hook = [&](FakeMemory& mem) { mem.put_value(kGood, marked0); };
    EXPECT_EQ(read(m, id, tid), OopReadResult::kPhaseChanged);
    // A whole cycle later the mask is the same again; the cycle number is not.
    m.memory.put_value(kGood, remapped);
    m.hook = [&](FakeMemory& mem) { mem.put_value(kSeq, uint32_t{4}); };
    EXPECT_EQ(read(m, id, tid), OopReadResult::kPhaseChanged);
}

TEST(OopIdentity, GenerationalZgcDecodesLoadGoodPointers) {
    RacingMemory m;
    OopIdentity id = identity(VTSCOPE_OOP_ZGEN);
    id.metadata_mask = 0xF000;  // the remapped bits
    id.remapped_shift = 12;
    const uint8_t table[9] = {24, 13, 14, 0, 15, 0, 0, 0, 16};  // JDK 21's ZPointerLoadShiftTable (x86-64)
    std::copy(std::begin(table), std::end(table), id.load_shift);
    const uint64_t good = 0x2000, address = 0x7f0000040000;   // remapped index 2: shift 14
    const uint64_t zpointer = (address << 14) | good | 0x30;  // plus mark bits below the remapped ones
    m.memory.put_value(kGood, good);
    m.memory.put_value(kCount, uint32_t{9});
    put_thread(m.memory, zpointer, address, 55);
    int64_t tid = 0;
    EXPECT_EQ(read(m, id, tid), OopReadResult::kOk);
    EXPECT_EQ(tid, 55);
    m.memory.put_value(kSlot, (address << 14) | 0x1000 | 0x30);  // another remapped bit: load bad
    EXPECT_EQ(read(m, id, tid), OopReadResult::kPointerNotGood);
    // Same mask after the read, but a mark start happened: two relocations may have passed.
    m.memory.put_value(kSlot, zpointer);
    m.trigger = address + kTidOffset;
    m.hook = [](FakeMemory& mem) { mem.put_value(kCount, uint32_t{10}); };
    EXPECT_EQ(read(m, id, tid), OopReadResult::kPhaseChanged);
}

TEST(OopIdentity, EpsilonReadsDirectlyAndRejectsNonPositiveIds) {
    RacingMemory m;
    constexpr uint64_t kObject = 0x40000;
    put_thread(m.memory, kObject, kObject, 0);
    int64_t tid = 0;
    EXPECT_EQ(read(m, identity(VTSCOPE_OOP_EPSILON), tid), OopReadResult::kBadId);
    m.memory.put_value(kObject + kTidOffset, int64_t{8});
    EXPECT_EQ(read(m, identity(VTSCOPE_OOP_EPSILON), tid), OopReadResult::kOk);
    EXPECT_EQ(tid, 8);
    m.memory.put_value(kJavaThread + kVthreadOffset, uint64_t{0});  // no handle: nothing to read
    EXPECT_EQ(read(m, identity(VTSCOPE_OOP_EPSILON), tid), OopReadResult::kReadFault);
}

}  // namespace
