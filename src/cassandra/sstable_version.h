// SSTable identity: what a component file name says (version, generation id,
// format, component), and which on-disk features a version has. Versions are
// those Cassandra 3.0 to 5.0 write: BIG `ma`..`oa` and BTI `da`
// (org.apache.cassandra.io.sstable.format.{big,bti}.*Format.*Version).
#pragma once

#include <string>
#include <string_view>

#include "util/status.h"

namespace cqlite {

enum class SSTableFormat { kBig, kBti };

struct SSTableVersion {
  std::string name;  // two letters, e.g. "nb"
  SSTableFormat format = SSTableFormat::kBig;

  // Partition-level and row deletion times use the compact encoding with an
  // unsigned local deletion time (CASSANDRA-18648), from `oa` and `da`.
  bool HasUIntDeletionTime() const { return name >= "oa" || format == SSTableFormat::kBti; }
  // Statistics carry a pending-repair id (`mb`+ / 4.0 `na`).
  bool HasPendingRepair() const { return name >= "na"; }
  bool HasIsTransient() const { return name >= "na"; }
  // Stats carry min/max timestamps... and "improved min/max" clustering (`md`, `nb`...).
  bool HasImprovedMinMax() const { return (name >= "md" && name < "na") || name >= "nb"; }
  bool HasCommitLogLowerBound() const { return name >= "mb"; }
  bool HasCommitLogIntervals() const { return name >= "mc"; }
  bool HasAccurateMinMax() const { return name >= "md"; }
  bool HasOriginatingHostId() const { return (name >= "me" && name < "na") || name >= "nb"; }
  bool HasPartitionLevelDeletionPresenceMarker() const { return name >= "oa" || format == SSTableFormat::kBti; }
  bool HasKeyRange() const { return name >= "oa" || format == SSTableFormat::kBti; }
  bool HasTokenSpaceCoverage() const { return name >= "oa" || format == SSTableFormat::kBti; }
};

// One component file of an SSTable, from its name "<version>-<id>-<format>-<Component>".
struct SSTableFileName {
  SSTableVersion version;
  std::string generation;  // numeric or UUID-based identifier, as written
  std::string component;   // "Data.db", "Statistics.db", "TOC.txt", ...
  std::string prefix;      // the name up to and including "<format>-": "nb-1-big-"
};

// Parses a component file name (no directory). InvalidArgument if it is not an
// SSTable component; NotSupported for versions outside 3.0..5.0.
Result<SSTableFileName> ParseSSTableFileName(std::string_view file_name);

}  // namespace cqlite
