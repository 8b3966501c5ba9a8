#include "cluster/ring.h"

#include <algorithm>
#include <set>
#include <utility>

#include "util/strings.h"

namespace cqlite {

namespace {

// The class name without Cassandra's package.
std::string_view ShortClassName(std::string_view name) {
  constexpr std::string_view kPackage = "org.apache.cassandra.locator.";
  if (StartsWith(name, kPackage)) name.remove_prefix(kPackage.size());
  return name;
}

Result<int> ParseFactor(const std::string& key, const std::string& value) {
  if (value.find('/') != std::string::npos) {
    return Status::NotSupported(StrCat("replication ", key, " '", value,
                                       "' has transient replicas, which CQLite does not read"));
  }
  int factor = 0;
  if (value.empty() || value.size() > 6 || !std::all_of(value.begin(), value.end(), [](char c) {
        return c >= '0' && c <= '9';
      })) {
    return Status::InvalidArgument(StrCat("replication ", key, " '", value, "' is not a replica count"));
  }
  for (char c : value) factor = factor * 10 + (c - '0');
  return factor;
}

}  // namespace

Result<Replication> Replication::FromOptions(const std::map<std::string, std::string>& options) {
  auto cls = options.find("class");
  if (cls == options.end()) return Status::InvalidArgument("replication has no 'class'");
  std::string_view name = ShortClassName(cls->second);
  Replication out;
  if (name == "SimpleStrategy") {
    out.strategy = Strategy::kSimple;
    auto rf = options.find("replication_factor");
    if (rf == options.end()) return Status::InvalidArgument("SimpleStrategy replication has no 'replication_factor'");
    ASSIGN_OR_RETURN(out.replication_factor, ParseFactor(rf->first, rf->second));
    return out;
  }
  if (name == "NetworkTopologyStrategy") {
    out.strategy = Strategy::kNetworkTopology;
    for (const auto& [key, value] : options) {
      if (key == "class") continue;
      if (key == "replication_factor") {
        return Status::InvalidArgument(
            "NetworkTopologyStrategy replication names 'replication_factor' instead of data centres");
      }
      ASSIGN_OR_RETURN(out.data_centers[key], ParseFactor(key, value));
    }
    return out;
  }
  if (name == "LocalStrategy") {
    out.strategy = Strategy::kLocal;
    return out;
  }
  return Status::NotSupported(StrCat("replication class '", cls->second, "' is not one Cassandra ships"));
}

std::string Replication::ToString() const {
  switch (strategy) {
    case Strategy::kSimple:
      return StrCat("{'class': 'SimpleStrategy', 'replication_factor': '", replication_factor, "'}");
    case Strategy::kNetworkTopology: {
      std::string out = "{'class': 'NetworkTopologyStrategy'";
      for (const auto& [dc, factor] : data_centers) out += StrCat(", '", dc, "': '", factor, "'");
      return out + "}";
    }
    case Strategy::kLocal:
      return "{'class': 'LocalStrategy'}";
  }
  return "{}";
}

Result<TokenRing> TokenRing::Make(std::vector<RingNode> nodes) {
  TokenRing ring;
  std::set<std::string> host_ids;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const RingNode& node = nodes[i];
    if (node.tokens.empty()) return Status::InvalidArgument(StrCat("node ", node.Name(), " has no tokens"));
    if (!node.host_id.empty() && !host_ids.insert(node.host_id).second) {
      return Status::InvalidArgument(StrCat("two nodes have host id ", node.host_id));
    }
    for (int64_t token : node.tokens) ring.sorted_.push_back({token, static_cast<int>(i)});
  }
  std::sort(ring.sorted_.begin(), ring.sorted_.end(),
            [](const Owned& a, const Owned& b) { return a.token < b.token; });
  for (size_t i = 1; i < ring.sorted_.size(); ++i) {
    if (ring.sorted_[i].token == ring.sorted_[i - 1].token) {
      return Status::InvalidArgument(StrCat("token ", ring.sorted_[i].token, " belongs to both ",
                                            nodes[ring.sorted_[i - 1].node].Name(), " and ",
                                            nodes[ring.sorted_[i].node].Name()));
    }
  }
  ring.nodes_ = std::move(nodes);
  return ring;
}

int TokenRing::FindNode(const std::string& host_id) const {
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].host_id == host_id) return static_cast<int>(i);
  }
  return -1;
}

template <typename Emit>
void TokenRing::ForEachRange(Emit emit) const {
  if (sorted_.empty()) return;
  // (last token, first token] wraps: its part from the ring's start comes first.
  emit(Murmur3Range{INT64_MIN, sorted_.front().token}, size_t{0});
  for (size_t i = 1; i < sorted_.size(); ++i) emit(Murmur3Range{sorted_[i - 1].token + 1, sorted_[i].token}, i);
  if (sorted_.back().token != INT64_MAX) emit(Murmur3Range{sorted_.back().token + 1, INT64_MAX}, size_t{0});
}

std::vector<int> TokenRing::ReplicasAt(size_t at, const Replication& replication) const {
  std::vector<int> replicas;
  auto taken = [&](int node) { return std::find(replicas.begin(), replicas.end(), node) != replicas.end(); };
  const size_t n = sorted_.size();
  switch (replication.strategy) {
    case Replication::Strategy::kLocal:
      for (size_t i = 0; i < nodes_.size(); ++i) replicas.push_back(static_cast<int>(i));
      return replicas;
    case Replication::Strategy::kSimple:
      for (size_t step = 0; step < n && static_cast<int>(replicas.size()) < replication.replication_factor; ++step) {
        int node = sorted_[(at + step) % n].node;
        if (!taken(node)) replicas.push_back(node);
      }
      return replicas;
    case Replication::Strategy::kNetworkTopology: {
      struct DataCenterFill {
        int left = 0;                  // replicas still to place
        int acceptable_rack_repeats = 0;  // nodes of a rack already used that may still be taken
      };
      std::map<std::string, DataCenterFill> fills;
      for (const auto& [dc, factor] : replication.data_centers) {
        std::set<std::string> racks;
        int node_count = 0;
        for (const RingNode& node : nodes_) {
          if (node.data_center != dc) continue;
          ++node_count;
          racks.insert(node.rack);
        }
        if (factor <= 0 || node_count == 0) continue;
        fills[dc] = {std::min(factor, node_count), factor - static_cast<int>(racks.size())};
      }
      size_t to_fill = fills.size();
      std::set<std::pair<std::string, std::string>> racks_used;
      for (size_t step = 0; step < n && to_fill > 0; ++step) {
        int node = sorted_[(at + step) % n].node;
        const RingNode& where = nodes_[node];
        auto fill = fills.find(where.data_center);
        if (fill == fills.end() || fill->second.left == 0 || taken(node)) continue;
        if (!racks_used.insert({where.data_center, where.rack}).second) {
          // A rack already used: only while there are fewer racks than replicas.
          if (fill->second.acceptable_rack_repeats <= 0) continue;
          --fill->second.acceptable_rack_repeats;
        }
        replicas.push_back(node);
        if (--fill->second.left == 0) --to_fill;
      }
      return replicas;
    }
  }
  return replicas;
}

std::vector<ReplicatedRange> TokenRing::Replicas(const Replication& replication) const {
  std::vector<ReplicatedRange> out;
  ForEachRange([&](Murmur3Range range, size_t end) { out.push_back({range, ReplicasAt(end, replication)}); });
  return out;
}

std::vector<Murmur3Range> TokenRing::PrimaryRanges(int node, const Replication& replication) const {
  std::vector<Murmur3Range> out;
  ForEachRange([&](Murmur3Range range, size_t end) {
    int primary = sorted_[end].node;
    if (replication.strategy != Replication::Strategy::kLocal) {
      std::vector<int> replicas = ReplicasAt(end, replication);
      primary = replicas.empty() ? -1 : replicas.front();
    }
    if (primary == node) out.push_back(range);
  });
  return out;
}

}  // namespace cqlite
