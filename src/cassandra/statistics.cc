#include "cassandra/statistics.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "io/checksum.h"
#include "io/data_input.h"
#include "io/file_system.h"
#include "util/strings.h"

namespace cqlite {
namespace {

// MetadataType ordinals (on-disk values, org.apache.cassandra.io.sstable.metadata.MetadataType).
constexpr int32_t kValidation = 0;
constexpr int32_t kCompaction = 1;
constexpr int32_t kStats = 2;
constexpr int32_t kHeader = 3;
constexpr int kNumClusteringKinds = 8;  // ClusteringPrefix.Kind has 8 values

const char* SectionName(int32_t type) {
  switch (type) {
    case kValidation: return "VALIDATION";
    case kCompaction: return "COMPACTION";
    case kStats: return "STATS";
    case kHeader: return "HEADER";
  }
  return "UNKNOWN";
}

uint32_t BigEndian32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) << 24 | static_cast<uint32_t>(p[1]) << 16 |
         static_cast<uint32_t>(p[2]) << 8 | static_cast<uint32_t>(p[3]);
}

double ReadDouble(DataInput& in) {
  uint64_t bits = in.ReadU64();
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

// Reads a count that must be non-negative and leave room for `min_item_bytes` per item.
int32_t ReadCount(DataInput& in, uint64_t end, uint64_t min_item_bytes, const char* what) {
  int32_t n = in.ReadI32();
  if (!in.ok()) return 0;
  uint64_t left = end - std::min(end, in.position());
  if (n < 0 || static_cast<uint64_t>(n) * min_item_bytes > left) {
    in.Fail(StrCat("bad ", what, " count ", n, " (", left, " bytes left in the section)"));
    return 0;
  }
  return n;
}

uint32_t ReadVIntCount(DataInput& in, uint64_t end, const char* what) {
  uint32_t n = in.ReadUnsignedVInt32();
  if (!in.ok()) return 0;
  uint64_t left = end - std::min(end, in.position());
  if (n > left) {
    in.Fail(StrCat("bad ", what, " count ", n, " (", left, " bytes left in the section)"));
    return 0;
  }
  return n;
}

std::string UuidText(uint64_t msb, uint64_t lsb) {
  uint8_t bytes[16];
  for (int i = 0; i < 8; ++i) {
    bytes[i] = static_cast<uint8_t>(msb >> (56 - 8 * i));
    bytes[8 + i] = static_cast<uint8_t>(lsb >> (56 - 8 * i));
  }
  std::string hex = ToHex(std::span<const uint8_t>(bytes, 16));
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" + hex.substr(16, 4) + "-" +
         hex.substr(20);
}

// One section being parsed: reads are bounded by the section end and errors
// carry the absolute byte offset in the file.
struct SectionReader {
  DataInput& in;
  uint64_t end;
  const std::string& path;
  const char* section;

  CqlTypePtr ReadType() {
    uint32_t n = in.ReadUnsignedVInt32();
    uint64_t at = in.position();
    std::string text;
    in.ReadBytes(n, &text);
    if (!in.ok()) return nullptr;
    auto type = ParseMarshalType(text);
    if (!type.ok()) {
      in.Fail(Status::Corruption(StrCat(path, " (", section, " section): bad type at byte offset ", at, ": ",
                                        type.status().message())));
      return nullptr;
    }
    return *type;
  }

  std::vector<CqlTypePtr> ReadTypeList() {
    std::vector<CqlTypePtr> types;
    uint32_t n = ReadVIntCount(in, end, "type");
    for (uint32_t i = 0; i < n && in.ok(); ++i) types.push_back(ReadType());
    return types;
  }

  EstimatedHistogram ReadEstimatedHistogram(const char* what) {
    EstimatedHistogram h;
    int32_t size = ReadCount(in, end, 16, what);
    if (in.ok() && size < 1) in.Fail(StrCat("empty ", what, " histogram"));
    for (int32_t i = 0; i < size && in.ok(); ++i) {
      int64_t offset = in.ReadI64();
      if (i > 0) h.offsets.push_back(offset);
      h.buckets.push_back(in.ReadI64());
    }
    return h;
  }

  CommitLogPosition ReadCommitLogPosition() {
    CommitLogPosition p;
    p.segment_id = in.ReadI64();
    p.position = in.ReadI32();
    return p;
  }

  // ClusteringBound (Slice.serializer): kind byte, unsigned short size, then
  // values in batches of 32 behind a vint header of null/empty bits.
  std::vector<std::string> ReadClusteringBound(const std::vector<CqlTypePtr>& types, int* kind_out) {
    std::vector<std::string> values;
    uint64_t at = in.position();
    int kind = in.ReadU8();
    if (in.ok() && (kind >= kNumClusteringKinds || kind == 3 /* STATIC_CLUSTERING */)) {
      in.Fail(StrCat("bad clustering bound kind ", kind, " at byte offset ", at));
    }
    *kind_out = kind;
    uint16_t size = in.ReadU16();
    if (in.ok() && size > types.size()) {
      in.Fail(StrCat("clustering bound has ", size, " values but there are ", types.size(), " clustering types"));
    }
    uint64_t header = 0;
    for (uint16_t i = 0; i < size && in.ok(); ++i) {
      if (i % 32 == 0) header = in.ReadUnsignedVInt();
      int bit = (i % 32) * 2;
      bool is_null = (header >> (bit + 1)) & 1;
      bool is_empty = (header >> bit) & 1;
      std::string value;
      if (is_null) {
        values.push_back("null");
        continue;
      }
      if (!is_empty) {
        auto fixed = types[i]->FixedValueLength();
        uint64_t n = fixed ? static_cast<uint64_t>(*fixed) : in.ReadUnsignedVInt32();
        in.ReadBytes(n, &value);
      }
      values.push_back(ToHex(value));
    }
    return values;
  }

  std::vector<std::string> ReadShortLengthList(const char* what) {
    std::vector<std::string> out;
    int32_t n = ReadCount(in, end, 2, what);
    for (int32_t i = 0; i < n && in.ok(); ++i) {
      std::string value;
      in.ReadBytes(in.ReadU16(), &value);
      out.push_back(ToHex(value));
    }
    return out;
  }

  std::string ReadVIntLengthBytes() {
    std::string out;
    in.ReadBytes(in.ReadUnsignedVInt32(), &out);
    return out;
  }
};

ValidationMetadata ParseValidation(SectionReader& r) {
  ValidationMetadata v;
  r.in.ReadBytes(r.in.ReadU16(), &v.partitioner);
  v.bloom_filter_fp_chance = ReadDouble(r.in);
  return v;
}

CompactionMetadata ParseCompaction(SectionReader& r) {
  CompactionMetadata c;
  int32_t n = ReadCount(r.in, r.end, 1, "cardinality estimator byte");
  r.in.ReadBytes(n, &c.cardinality_estimator);
  return c;
}

// StatsMetadata.StatsMetadataSerializer.deserialize, field by field.
StatsMetadata ParseStats(SectionReader& r, const SSTableVersion& version) {
  DataInput& in = r.in;
  StatsMetadata s;
  s.estimated_partition_size = r.ReadEstimatedHistogram("partition size");
  s.estimated_cell_per_partition_count = r.ReadEstimatedHistogram("cell count");
  // Saturating: a corrupt histogram must not overflow the estimate.
  for (int64_t count : s.estimated_partition_size.buckets) {
    if (count < 0 || __builtin_add_overflow(s.estimated_partition_count, count, &s.estimated_partition_count)) {
      s.estimated_partition_count = std::numeric_limits<int64_t>::max();
      break;
    }
  }
  s.commit_log_upper_bound = r.ReadCommitLogPosition();
  s.min_timestamp = in.ReadI64();
  s.max_timestamp = in.ReadI64();
  if (version.HasUIntDeletionTime()) {
    uint32_t min_ldt = in.ReadU32();
    uint32_t max_ldt = in.ReadU32();
    s.min_local_deletion_time = min_ldt == UINT32_MAX ? kNoDeletionTime : min_ldt;
    s.max_local_deletion_time = max_ldt == UINT32_MAX ? kNoDeletionTime : max_ldt;
  } else {
    int32_t min_ldt = in.ReadI32();
    int32_t max_ldt = in.ReadI32();
    s.min_local_deletion_time = min_ldt == INT32_MAX ? kNoDeletionTime : min_ldt;
    s.max_local_deletion_time = max_ldt == INT32_MAX ? kNoDeletionTime : max_ldt;
  }
  s.min_ttl = in.ReadI32();
  s.max_ttl = in.ReadI32();
  s.compression_ratio = ReadDouble(in);
  // TombstoneHistogram: int max bin size, int size, then (point, count) pairs:
  // (long, int) from `oa`, (double, long) before.
  in.ReadI32();
  bool compact = version.HasUIntDeletionTime();
  int32_t bins = ReadCount(in, r.end, compact ? 12 : 16, "tombstone histogram bin");
  for (int32_t i = 0; i < bins && in.ok(); ++i) {
    if (compact) {
      int64_t point = in.ReadI64();
      int64_t count = in.ReadI32();
      s.tombstone_drop_times.emplace_back(point, count);
    } else {
      double point = ReadDouble(in);
      int64_t count = in.ReadI64();
      int64_t p = std::isfinite(point) && point < 9.2e18 && point > -9.2e18 ? static_cast<int64_t>(point)
                                                                             : std::numeric_limits<int64_t>::max();
      s.tombstone_drop_times.emplace_back(p, count);
    }
  }
  s.sstable_level = in.ReadI32();
  s.repaired_at = in.ReadI64();
  auto read_improved = [&] {
    s.covered_clustering_types = r.ReadTypeList();
    if (!in.ok()) return;
    s.min_clustering_values = r.ReadClusteringBound(s.covered_clustering_types, &s.covered_start_kind);
    s.max_clustering_values = r.ReadClusteringBound(s.covered_clustering_types, &s.covered_end_kind);
  };
  if (version.HasLegacyMinMax()) {
    s.min_clustering_values = r.ReadShortLengthList("min clustering value");
    s.max_clustering_values = r.ReadShortLengthList("max clustering value");
  } else if (version.HasImprovedMinMax()) {
    read_improved();
  }
  s.has_legacy_counter_shards = in.ReadU8() != 0;
  s.total_columns_set = in.ReadI64();
  s.total_rows = in.ReadI64();
  if (version.HasCommitLogLowerBound()) s.commit_log_lower_bound = r.ReadCommitLogPosition();
  if (version.HasCommitLogIntervals()) {
    int32_t n = ReadCount(in, r.end, 24, "commit log interval");
    for (int32_t i = 0; i < n && in.ok(); ++i) {
      CommitLogPosition lower = r.ReadCommitLogPosition();
      CommitLogPosition upper = r.ReadCommitLogPosition();
      s.commit_log_intervals.emplace_back(lower, upper);
    }
  } else {
    s.commit_log_intervals.emplace_back(s.commit_log_lower_bound, s.commit_log_upper_bound);
  }
  if (version.HasPendingRepair() && in.ReadU8() != 0) {
    uint64_t msb = in.ReadU64();
    uint64_t lsb = in.ReadU64();
    s.pending_repair = UuidText(msb, lsb);
  }
  if (version.HasIsTransient()) {
    // Some `na` files from before 4.0's release (Cassandra's own legacy
    // test tables) end right here, written before isTransient existed.
    bool pre_release_na = version.name == "na" && in.ok() && in.position() == r.end;
    if (!pre_release_na) s.is_transient = in.ReadU8() != 0;
  }
  if (version.HasOriginatingHostId() && in.ReadU8() != 0) {
    uint64_t msb = in.ReadU64();
    uint64_t lsb = in.ReadU64();
    s.originating_host_id = UuidText(msb, lsb);
  }
  s.has_partition_level_deletions = s.min_local_deletion_time != kNoDeletionTime;
  if (version.HasPartitionLevelDeletionPresenceMarker()) s.has_partition_level_deletions = in.ReadU8() != 0;
  if (version.HasImprovedMinMax() && version.HasLegacyMinMax()) {
    // `nc` keeps both: the improved slice comes after the legacy lists, here.
    read_improved();
  }
  if (version.HasKeyRange()) {
    s.first_key = r.ReadVIntLengthBytes();
    s.last_key = r.ReadVIntLengthBytes();
  }
  if (version.HasTokenSpaceCoverage()) s.token_space_coverage = ReadDouble(in);
  return s;
}

std::vector<HeaderColumn> ReadColumns(SectionReader& r) {
  std::vector<HeaderColumn> columns;
  uint32_t n = ReadVIntCount(r.in, r.end, "column");
  for (uint32_t i = 0; i < n && r.in.ok(); ++i) {
    HeaderColumn c;
    c.name = r.ReadVIntLengthBytes();
    c.type = r.ReadType();
    columns.push_back(std::move(c));
  }
  return columns;
}

// SerializationHeader.Component.
SerializationHeader ParseHeader(SectionReader& r) {
  DataInput& in = r.in;
  SerializationHeader h;
  uint64_t ts = in.ReadUnsignedVInt();
  uint64_t ldt = in.ReadUnsignedVInt();
  uint64_t ttl = in.ReadUnsignedVInt();
  h.stats.min_timestamp = static_cast<int64_t>(ts + static_cast<uint64_t>(EncodingStats::kTimestampEpoch));
  h.stats.min_local_deletion_time = static_cast<int32_t>(
      static_cast<uint32_t>(ldt) + static_cast<uint32_t>(EncodingStats::kDeletionTimeEpoch));
  h.stats.min_ttl = static_cast<int32_t>(static_cast<uint32_t>(ttl));
  h.partition_key_type = r.ReadType();
  h.clustering_types = r.ReadTypeList();
  h.static_columns = ReadColumns(r);
  h.regular_columns = ReadColumns(r);
  return h;
}

}  // namespace

Result<Statistics> ParseStatistics(std::span<const uint8_t> bytes, const std::string& path,
                                   const SSTableVersion& version) {
  const bool checksummed = version.HasMetadataChecksum();
  Statistics stats;
  // Table of contents.
  DataInput toc(bytes, path + " (table of contents)");
  uint32_t crc_state = 0;
  auto update_int = [&](int32_t v) {
    uint8_t b[4] = {static_cast<uint8_t>(v >> 24), static_cast<uint8_t>(v >> 16), static_cast<uint8_t>(v >> 8),
                    static_cast<uint8_t>(v)};
    crc_state = Crc32Extend(crc_state, std::span<const uint8_t>(b, 4));
  };
  auto check_crc = [&](const char* what) {
    uint64_t at = toc.position();
    uint32_t stored = toc.ReadU32();
    if (toc.ok() && stored != crc_state) {
      toc.Fail(StrCat(what, " checksum mismatch at byte offset ", at, ": stored ", stored, ", computed ",
                      crc_state));
    }
  };
  int32_t count = toc.ReadI32();
  if (toc.ok() && (count <= 0 || count > 16)) toc.Fail(StrCat("bad section count ", count));
  update_int(count);
  if (checksummed) check_crc("section count");
  for (int32_t i = 0; i < count && toc.ok(); ++i) {
    StatisticsSection section;
    section.type = toc.ReadI32();
    int32_t offset = toc.ReadI32();
    update_int(section.type);
    update_int(offset);
    if (!toc.ok()) break;
    if (section.type < 0 || section.type > kHeader) {
      toc.Fail(StrCat("unknown section type ", section.type));
    } else if (offset < 0 || static_cast<uint64_t>(offset) > bytes.size()) {
      toc.Fail(StrCat(SectionName(section.type), " section offset ", offset, " is outside the file (",
                      bytes.size(), " bytes)"));
    } else {
      for (const StatisticsSection& other : stats.sections) {
        if (other.type == section.type) toc.Fail(StrCat("section type ", section.type, " appears twice"));
      }
    }
    section.offset = static_cast<uint64_t>(offset);
    stats.sections.push_back(section);
  }
  if (checksummed) check_crc("table of contents");
  if (!toc.ok()) return toc.status();
  // Cassandra writes sections in type order, but some other writers do not:
  // a section ends where the next one (by offset) starts, or at the file end.
  for (StatisticsSection& section : stats.sections) {
    if (section.offset < toc.position()) {
      return Status::Corruption(StrCat(path, " (table of contents): ", SectionName(section.type), " section offset ",
                                       section.offset, " overlaps the table of contents, which ends at byte offset ",
                                       toc.position()));
    }
    uint64_t end = bytes.size();
    for (const StatisticsSection& other : stats.sections) {
      if (other.offset > section.offset) end = std::min(end, other.offset);
    }
    section.length = end - section.offset;
  }

  for (StatisticsSection& section : stats.sections) {
    const char* name = SectionName(section.type);
    std::string label = StrCat(path, " (", name, " section)");
    uint64_t end = section.offset + section.length;
    if (checksummed) {
      if (section.length < 4) {
        return Status::Corruption(StrCat(label, ": ", section.length, " bytes at byte offset ", section.offset,
                                         " leave no room for its checksum"));
      }
      end -= 4;
      uint32_t stored = BigEndian32(bytes.data() + end);
      uint32_t computed = Crc32(bytes.subspan(section.offset, end - section.offset));
      if (stored != computed) {
        return Status::Corruption(StrCat(label, ": checksum mismatch at byte offset ", end, ": stored ", stored,
                                         ", computed ", computed));
      }
    }
    // Read from a view that ends at the section's end, so offsets stay absolute.
    DataInput in(bytes.subspan(0, end), label);
    in.Skip(section.offset);
    SectionReader r{in, end, path, name};
    switch (section.type) {
      case kValidation: stats.validation = ParseValidation(r); break;
      case kCompaction: stats.compaction = ParseCompaction(r); break;
      case kStats: stats.stats = ParseStats(r, version); break;
      case kHeader: stats.header = ParseHeader(r); break;
    }
    if (!in.ok()) return in.status();
    // Cassandra 5.0 sizes the STATS section for 16 bytes per tombstone
    // histogram bin but writes 12 (StatsMetadata.serializedSize against
    // TombstoneHistogram.HistogramSerializer): the rest is zero padding.
    if (section.type == kStats && version.HasUIntDeletionTime() && stats.stats &&
        end - in.position() == 4 * stats.stats->tombstone_drop_times.size()) {
      bool zeros = true;
      for (uint64_t i = in.position(); i < end; ++i) zeros = zeros && bytes[i] == 0;
      if (zeros) in.Skip(end - in.position());
    }
    if (in.position() != end) {
      return Status::Corruption(StrCat(label, ": ", end - in.position(), " bytes left unparsed at byte offset ",
                                       in.position(), " (section ends at ", end, ")"));
    }
  }
  return stats;
}

Result<Statistics> ReadStatistics(FileSystem& fs, const std::string& path, const SSTableVersion& version) {
  ASSIGN_OR_RETURN(std::string contents, fs.ReadFileToString(path));
  return ParseStatistics(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(contents.data()), contents.size()), path, version);
}

}  // namespace cqlite
