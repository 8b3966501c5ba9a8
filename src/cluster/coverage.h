// Whether the nodes whose data a run reads hold every replica of every token
// range of a keyspace: what `materialize --cluster` checks before it folds,
// since a range folded without one of its replicas may miss writes (or
// deletes) only that replica took.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "cluster/ring.h"
#include "util/status.h"

namespace cqlite {

// A token range some of whose replicas are not among the nodes read.
struct RangeLackingReplicas {
  Murmur3Range range;
  std::vector<int> missing;  // indexes into TokenRing::nodes()
  std::vector<int> present;
};

// The ranges of the ring under `replication` that have a replica whose host
// id is not in `present_hosts`, in token order.
std::vector<RangeLackingReplicas> RangesLackingReplicas(const TokenRing& ring, const Replication& replication,
                                                        const std::set<std::string>& present_hosts);

// OK when every range has all its replicas. Otherwise InvalidArgument naming
// `what` (the table), the first ranges and the replicas each lacks; with
// `allow_missing`, OK as long as every range has at least one replica read.
Status CheckReplicaCoverage(const TokenRing& ring, const Replication& replication,
                            const std::set<std::string>& present_hosts, const std::string& what, bool allow_missing);

}  // namespace cqlite
