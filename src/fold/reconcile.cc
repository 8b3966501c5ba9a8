#include "fold/reconcile.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "cassandra/value_format.h"

namespace cqlite {

namespace {

int CompareUnsigned(std::string_view a, std::string_view b) {
  size_t n = std::min(a.size(), b.size());
  int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c;
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

enum class Relationship { kEqual, kGreaterThan, kLessThan, kDisjoint };

// CounterContext.compare for two shards of the same counter id.
Relationship CompareShards(const CounterShard& left, const CounterShard& right) {
  using Kind = CounterShard::Kind;
  auto by_count = [&] {
    if (left.count > right.count) return Relationship::kGreaterThan;
    if (left.count == right.count) return Relationship::kEqual;
    return Relationship::kLessThan;
  };
  if (left.kind == Kind::kGlobal || right.kind == Kind::kGlobal) {
    if (left.kind == Kind::kGlobal && right.kind == Kind::kGlobal) {
      if (left.clock == right.clock) return by_count();
      return left.clock > right.clock ? Relationship::kGreaterThan : Relationship::kLessThan;
    }
    return left.kind == Kind::kGlobal ? Relationship::kGreaterThan : Relationship::kLessThan;
  }
  if (left.kind == Kind::kLocal || right.kind == Kind::kLocal) {
    if (left.kind == Kind::kLocal && right.kind == Kind::kLocal) return Relationship::kDisjoint;
    return left.kind == Kind::kLocal ? Relationship::kGreaterThan : Relationship::kLessThan;
  }
  if (left.clock == right.clock) return by_count();
  if ((left.clock >= 0 && right.clock > 0 && left.clock >= right.clock) ||
      (left.clock < 0 && (right.clock > 0 || left.clock < right.clock))) {
    return Relationship::kGreaterThan;
  }
  return Relationship::kLessThan;
}

void AppendBigEndian(std::string* out, uint64_t value, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

// CounterContext layout: header count, header elements (global shard index
// + Short.MIN_VALUE, local shard index), then every shard.
std::string SerializeCounterContext(const std::vector<CounterShard>& shards) {
  std::vector<int16_t> header;
  for (size_t i = 0; i < shards.size(); ++i) {
    if (shards[i].kind == CounterShard::Kind::kGlobal) {
      header.push_back(static_cast<int16_t>(static_cast<int>(i) - 32768));
    } else if (shards[i].kind == CounterShard::Kind::kLocal) {
      header.push_back(static_cast<int16_t>(i));
    }
  }
  std::string out;
  AppendBigEndian(&out, static_cast<uint16_t>(header.size()), 2);
  for (int16_t element : header) AppendBigEndian(&out, static_cast<uint16_t>(element), 2);
  for (const CounterShard& shard : shards) {
    out.append(reinterpret_cast<const char*>(shard.counter_id.data()), shard.counter_id.size());
    AppendBigEndian(&out, static_cast<uint64_t>(shard.clock), 8);
    AppendBigEndian(&out, static_cast<uint64_t>(shard.count), 8);
  }
  return out;
}

std::string_view IdOf(const CounterShard& shard) {
  return {reinterpret_cast<const char*>(shard.counter_id.data()), shard.counter_id.size()};
}

}  // namespace

const FoldCell& ReconcileRegularCells(const FoldCell& a, const FoldCell& b) {
  if (a.timestamp != b.timestamp) return a.timestamp > b.timestamp ? a : b;
  bool a_dies = a.local_deletion_time != kNoDeletionTime;
  bool b_dies = b.local_deletion_time != kNoDeletionTime;
  if (a_dies || b_dies) {
    if (a_dies != b_dies) return a_dies ? a : b;
    bool a_tombstone = !a.IsExpiring();
    bool b_tombstone = !b.IsExpiring();
    if (a_tombstone != b_tombstone) return a_tombstone ? a : b;
    if (a.local_deletion_time != b.local_deletion_time) {
      return a.local_deletion_time > b.local_deletion_time ? a : b;
    }
    if (!a_tombstone && a.ttl != b.ttl) return a.ttl < b.ttl ? a : b;
  }
  return CompareUnsigned(a.value, b.value) >= 0 ? a : b;
}

std::string MergeCounterContexts(std::string_view a, std::string_view b) {
  auto left = ParseCounterContext(a);
  auto right = ParseCounterContext(b);
  // A malformed context cannot be merged shard by shard; keep the other one,
  // as the read would fail in Cassandra anyway.
  if (!left.ok()) return std::string(b);
  if (!right.ok()) return std::string(a);
  std::vector<CounterShard> merged;
  size_t i = 0, j = 0;
  while (i < left->size() && j < right->size()) {
    const CounterShard& l = (*left)[i];
    const CounterShard& r = (*right)[j];
    int c = CompareUnsigned(IdOf(l), IdOf(r));
    if (c == 0) {
      switch (CompareShards(l, r)) {
        case Relationship::kDisjoint: {
          CounterShard sum = l;
          sum.clock = l.clock + r.clock;
          sum.count = l.count + r.count;
          merged.push_back(sum);
          break;
        }
        case Relationship::kGreaterThan:
          merged.push_back(l);
          break;
        default:
          merged.push_back(r);
          break;
      }
      ++i;
      ++j;
    } else if (c > 0) {
      merged.push_back(r);
      ++j;
    } else {
      merged.push_back(l);
      ++i;
    }
  }
  for (; i < left->size(); ++i) merged.push_back((*left)[i]);
  for (; j < right->size(); ++j) merged.push_back((*right)[j]);
  return SerializeCounterContext(merged);
}

FoldCell ReconcileCounterCells(const FoldCell& a, const FoldCell& b) {
  bool a_tombstone = a.IsTombstone();
  bool b_tombstone = b.IsTombstone();
  if (a_tombstone || b_tombstone) {
    if (a_tombstone && b_tombstone) return ReconcileRegularCells(a, b);
    return a_tombstone ? a : b;
  }
  if (a.value.empty() || b.value.empty()) {
    if (a.value.empty() != b.value.empty()) return a.value.empty() ? a : b;
    return a.timestamp > b.timestamp ? a : b;
  }
  FoldCell merged = a;
  merged.timestamp = std::max(a.timestamp, b.timestamp);
  merged.ttl = kNoTtl;
  merged.local_deletion_time = kNoDeletionTime;
  merged.value = MergeCounterContexts(a.value, b.value);
  return merged;
}

bool Supersedes(const LivenessInfo& a, const LivenessInfo& b) {
  if (a.timestamp != b.timestamp) return a.timestamp > b.timestamp;
  bool a_expired = a.ttl == kExpiredLivenessTtl;
  bool b_expired = b.ttl == kExpiredLivenessTtl;
  if (a_expired != b_expired) return a_expired;
  if (a.IsExpiring() == b.IsExpiring()) {
    return a.local_expiration_time > b.local_expiration_time ||
           (a.local_expiration_time == b.local_expiration_time && a.ttl < b.ttl);
  }
  return a.IsExpiring();
}

}  // namespace cqlite
