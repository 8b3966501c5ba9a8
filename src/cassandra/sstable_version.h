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

// Feature flags mirror Cassandra 5.0's BigFormat.BigVersion and
// BtiFormat.BtiVersion; `nc` (a 5.0 development BIG version found in test data)
// follows the 2023 trunk BigVersion that wrote it. Every BTI version has every
// feature listed here except the legacy min/max clustering values.
struct SSTableVersion {
  std::string name;  // two letters, e.g. "nb"
  SSTableFormat format = SSTableFormat::kBig;

  // Statistics carry an unsigned 32-bit local deletion time and the compact
  // tombstone histogram (CASSANDRA-18648): BIG `oa`+, BTI.
  bool HasUIntDeletionTime() const { return AtLeast("oa"); }
  // Statistics carry a nullable pending-repair session id: `na`+.
  bool HasPendingRepair() const { return AtLeast("na"); }
  // Statistics carry the isTransient flag: `na`+.
  bool HasIsTransient() const { return AtLeast("na"); }
  // Statistics carry covered clustering slice with its types ("improved
  // min/max", CASSANDRA-18134): BIG `nc`+, BTI.
  bool HasImprovedMinMax() const { return AtLeast("nc"); }
  // Statistics carry the legacy min/max clustering value lists: BIG `m?`
  // and `n?`, not `oa` nor BTI.
  bool HasLegacyMinMax() const { return format == SSTableFormat::kBig && name < "oa"; }
  // Statistics carry a commit log lower bound: `mb`+.
  bool HasCommitLogLowerBound() const { return AtLeast("mb"); }
  // Statistics carry commit log intervals: `mc`+.
  bool HasCommitLogIntervals() const { return AtLeast("mc"); }
  // The legacy min/max clustering values are trustworthy (CASSANDRA-14861):
  // BIG `md`..`n?`, BTI.
  bool HasAccurateMinMax() const {
    return format == SSTableFormat::kBti || (name >= "md" && name < "oa");
  }
  // Statistics carry the originating host id: BIG `me`..`mz`, `nb`+, BTI.
  bool HasOriginatingHostId() const {
    return format == SSTableFormat::kBti || (name >= "me" && name < "na") || name >= "nb";
  }
  // Statistics say whether any partition-level deletion exists: BIG `nc`+, BTI.
  bool HasPartitionLevelDeletionPresenceMarker() const { return AtLeast("nc"); }
  // Statistics carry the first and last partition keys: BIG `nc`+, BTI.
  bool HasKeyRange() const { return AtLeast("nc"); }
  // Statistics carry the token space coverage: BIG `oa`+, BTI.
  bool HasTokenSpaceCoverage() const { return AtLeast("oa"); }
  // CompressionInfo.db stores maxCompressedLength and chunks that did not
  // compress well enough are stored raw: `na`+.
  bool HasMaxCompressedLength() const { return AtLeast("na"); }
  // Statistics.db sections are followed by CRC32 checksums: `na`+.
  bool HasMetadataChecksum() const { return AtLeast("na"); }

 private:
  // BIG versions compare as strings ("ma" < "nb" < "oa"); BTI has them all.
  bool AtLeast(const char* big_version) const {
    return format == SSTableFormat::kBti || name >= big_version;
  }
};

// One component file of an SSTable, from its name "<version>-<id>-<format>-<Component>".
struct SSTableFileName {
  SSTableVersion version;
  std::string generation;  // numeric or UUID-based identifier, as written
  std::string component;   // "Data.db", "Statistics.db", "TOC.txt", ...
  std::string prefix;      // the name up to and including "<format>-": "nb-1-big-"
};

// Parses a component file name (no directory) of the current naming scheme,
// "<version>-<generation>-<format>-<Component>" (Descriptor.java). InvalidArgument
// if it is not an SSTable component; NotSupported for versions outside
// 3.0..5.0 (ma mb mc md me na nb nc oa, da) or a version written in the wrong
// format. Both errors name the file.
Result<SSTableFileName> ParseSSTableFileName(std::string_view file_name);

// The version named `name` in `format`; NotSupported if CQLite cannot read it.
Result<SSTableVersion> MakeSSTableVersion(std::string_view name, SSTableFormat format);

}  // namespace cqlite
