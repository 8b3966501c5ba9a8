#include "cluster/coverage.h"

#include <algorithm>

#include "util/strings.h"

namespace cqlite {

namespace {

std::string Names(const TokenRing& ring, const std::vector<int>& nodes) {
  std::vector<std::string> names;
  for (int node : nodes) names.push_back(ring.nodes()[static_cast<size_t>(node)].Name());
  return names.empty() ? "none" : Join(names, ", ");
}

std::string Describe(const TokenRing& ring, const RangeLackingReplicas& lacking) {
  return StrCat("tokens [", lacking.range.first, ", ", lacking.range.last, "] lack ", Names(ring, lacking.missing),
                " (read: ", Names(ring, lacking.present), ")");
}

}  // namespace

std::vector<RangeLackingReplicas> RangesLackingReplicas(const TokenRing& ring, const Replication& replication,
                                                        const std::set<std::string>& present_hosts) {
  std::vector<RangeLackingReplicas> out;
  for (const ReplicatedRange& range : ring.Replicas(replication)) {
    RangeLackingReplicas lacking{range.range, {}, {}};
    for (int node : range.replicas) {
      bool read = present_hosts.count(ring.nodes()[static_cast<size_t>(node)].host_id) > 0;
      (read ? lacking.present : lacking.missing).push_back(node);
    }
    if (!lacking.missing.empty()) out.push_back(std::move(lacking));
  }
  return out;
}

Status CheckReplicaCoverage(const TokenRing& ring, const Replication& replication,
                            const std::set<std::string>& present_hosts, const std::string& what, bool allow_missing) {
  std::vector<RangeLackingReplicas> lacking = RangesLackingReplicas(ring, replication, present_hosts);
  if (allow_missing) {
    lacking.erase(std::remove_if(lacking.begin(), lacking.end(),
                                 [](const RangeLackingReplicas& r) { return !r.present.empty(); }),
                  lacking.end());
  }
  if (lacking.empty()) return Status::OK();
  constexpr size_t kShown = 3;
  std::vector<std::string> shown;
  for (size_t i = 0; i < lacking.size() && i < kShown; ++i) shown.push_back(Describe(ring, lacking[i]));
  std::string more = lacking.size() > kShown ? StrCat("; and ", lacking.size() - kShown, " more") : "";
  size_t ranges = ring.Replicas(replication).size();
  if (allow_missing) {
    return Status::InvalidArgument(StrCat(what, ": ", lacking.size(), " of ", ranges,
                                          " token ranges have no replica among the data directories given: ",
                                          Join(shown, "; "), more));
  }
  return Status::InvalidArgument(StrCat(what, ": ", lacking.size(), " of ", ranges,
                                        " token ranges lack replicas among the data directories given (",
                                        replication.ToString(), "): ", Join(shown, "; "), more,
                                        "; give every replica's data directory, or --allow-missing-replicas to "
                                        "fold the replicas there are"));
}

}  // namespace cqlite
