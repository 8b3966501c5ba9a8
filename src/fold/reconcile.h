// Cassandra's rules for which of two versions of the same fact wins
// (org.apache.cassandra.db.rows.Cells, LivenessInfo, DeletionTime,
// db.context.CounterContext), as of Cassandra 5.0. Pure functions.
#pragma once

#include "cassandra/envelope.h"
#include "fold/fold_types.h"

namespace cqlite {

// Cells.resolveRegular: the higher timestamp wins; on a tie a tombstone or
// expiring cell beats a live one (CASSANDRA-14592), a tombstone beats an
// expiring cell, the later local deletion time wins, then the lower TTL,
// then the greater value (unsigned bytes).
const FoldCell& ReconcileRegularCells(const FoldCell& a, const FoldCell& b);

// Cells.resolveCounter: a tombstone always wins; otherwise the counter
// contexts merge shard by shard (CounterContext.merge) and the timestamp is
// the greater one.
FoldCell ReconcileCounterCells(const FoldCell& a, const FoldCell& b);

// CounterContext.merge over serialized contexts.
std::string MergeCounterContexts(std::string_view a, std::string_view b);

// LivenessInfo.supersedes.
bool Supersedes(const LivenessInfo& a, const LivenessInfo& b);

// DeletionTime.supersedes.
inline bool Supersedes(const DeletionTime& a, const DeletionTime& b) {
  return a.marked_for_delete_at > b.marked_for_delete_at ||
         (a.marked_for_delete_at == b.marked_for_delete_at && a.local_deletion_time > b.local_deletion_time);
}

// DeletionTime.deletes: whether data written at `timestamp` is shadowed.
inline bool Deletes(const DeletionTime& deletion, int64_t timestamp) {
  return !deletion.IsLive() && timestamp <= deletion.marked_for_delete_at;
}

// The later of two deletions.
inline const DeletionTime& LaterDeletion(const DeletionTime& a, const DeletionTime& b) {
  return Supersedes(b, a) ? b : a;
}

// LivenessInfo.isLive.
inline bool IsLive(const LivenessInfo& info, int64_t now_seconds) {
  if (info.IsEmpty()) return false;
  if (info.ttl == kExpiredLivenessTtl) return false;
  if (info.IsExpiring()) return now_seconds < info.local_expiration_time;
  return true;
}

}  // namespace cqlite
