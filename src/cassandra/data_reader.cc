#include "cassandra/data_reader.h"

#include <algorithm>

#include "util/strings.h"

namespace cqlite {

namespace {

// Unfiltered flags (UnfilteredSerializer). On-disk values.
constexpr uint8_t kEndOfPartition = 0x01;
constexpr uint8_t kIsMarker = 0x02;
constexpr uint8_t kHasTimestamp = 0x04;
constexpr uint8_t kHasTtl = 0x08;
constexpr uint8_t kHasDeletion = 0x10;
constexpr uint8_t kHasAllColumns = 0x20;
constexpr uint8_t kHasComplexDeletion = 0x40;
constexpr uint8_t kExtensionFlag = 0x80;
// Extended flags.
constexpr uint8_t kIsStatic = 0x01;
constexpr uint8_t kHasShadowableDeletion = 0x02;

// Cell flags (Cell.Serializer). On-disk values.
constexpr uint8_t kCellIsDeleted = 0x01;
constexpr uint8_t kCellIsExpiring = 0x02;
constexpr uint8_t kCellHasEmptyValue = 0x04;
constexpr uint8_t kCellUseRowTimestamp = 0x08;
constexpr uint8_t kCellUseRowTtl = 0x10;

// The live partition deletion of the compact encoding (DeletionTime.Serializer).
constexpr uint8_t kIsLiveDeletion = 0x80;

// An unsigned 32-bit local deletion time as Cassandra 5.0 reads it
// (Cell.deletionTimeUnsignedIntegerToLong).
int64_t UnsignedDeletionTime(uint32_t value) {
  return value == 0xFFFFFFFFu ? kNoDeletionTime : static_cast<int64_t>(value);
}

}  // namespace

// Declared in data_reader.h so that PartitionReader can hold one.
class PartitionDecoder {
 public:
  PartitionDecoder(DataInput& in, const DataLayout& layout, EnvelopeConsumer& consumer)
      : in_(in), layout_(layout), consumer_(consumer) {}

  Status Run() {
    while (!in_.AtEnd()) {
      RETURN_IF_ERROR(ReadPartition());
    }
    return in_.status();
  }

  Status ReadPartition() {
    partition_.position = in_.position();
    partition_.key.clear();
    uint16_t key_length = in_.ReadU16();
    in_.ReadBytes(key_length, &partition_.key);
    partition_.deletion = ReadPartitionDeletion();
    partition_.body_position = in_.position();
    if (!in_.ok()) return in_.status();
    RETURN_IF_ERROR(CheckPartitionOrder());
    RETURN_IF_ERROR(consumer_.OnPartitionStart(partition_));

    if (!layout_.static_columns.empty()) {
      uint64_t position = in_.position();
      uint8_t flags = in_.ReadU8();
      uint8_t extended = (flags & kExtensionFlag) ? in_.ReadU8() : 0;
      if ((flags & (kEndOfPartition | kIsMarker)) || !(extended & kIsStatic)) {
        in_.Fail(StrCat("expected the static row of partition at byte offset ", partition_.position,
                        ", found flags 0x", ToHex(std::string(1, static_cast<char>(flags)))));
        return in_.status();
      }
      RETURN_IF_ERROR(ReadRow(position, flags, extended, /*is_static=*/true));
    }

    while (true) {
      uint64_t position = in_.position();
      uint8_t flags = in_.ReadU8();
      if (!in_.ok()) return in_.status();
      if (flags & kEndOfPartition) break;
      uint8_t extended = (flags & kExtensionFlag) ? in_.ReadU8() : 0;
      if (flags & kIsMarker) {
        RETURN_IF_ERROR(ReadMarker(position));
      } else {
        if (extended & kIsStatic) {
          in_.Fail(StrCat("row at byte offset ", position, " has the static flag outside the partition header"));
          return in_.status();
        }
        RETURN_IF_ERROR(ReadRow(position, flags, extended, /*is_static=*/false));
      }
    }
    return consumer_.OnPartitionEnd();
  }

  bool AtEnd() { return in_.AtEnd(); }

 private:
  // Partitions are written in partitioner order (token, then key bytes); a
  // file out of order is corrupt, and would break every merge downstream.
  Status CheckPartitionOrder() {
    if (!layout_.partitioner) return Status::OK();
    if (*layout_.partitioner == Partitioner::kMurmur3) partition_.token = Murmur3Token(partition_.key);
    if (has_previous_key_ &&
        ComparePartitionKeys(*layout_.partitioner, previous_key_, partition_.key) != std::strong_ordering::less) {
      in_.Fail(StrCat("partition at byte offset ", partition_.position,
                      " is not after the previous one in token order"));
      return in_.status();
    }
    previous_key_ = partition_.key;
    has_previous_key_ = true;
    return Status::OK();
  }

  DeletionTime ReadPartitionDeletion() {
    if (layout_.version.HasUIntDeletionTime()) {
      uint8_t first = in_.ReadU8();
      if (first & kIsLiveDeletion) {
        if (first != kIsLiveDeletion) in_.Fail("invalid flags in a partition deletion time");
        return DeletionTime{};
      }
      uint64_t rest = 0;
      for (int i = 0; i < 7; ++i) rest = (rest << 8) | in_.ReadU8();
      int64_t marked_at = static_cast<int64_t>((static_cast<uint64_t>(first) << 56) | rest);
      uint32_t ldt = in_.ReadU32();
      return DeletionTime{marked_at, UnsignedDeletionTime(ldt)};
    }
    // Legacy encoding: int local deletion time, then long marked-for-delete-at.
    int32_t ldt = in_.ReadI32();
    int64_t marked_at = in_.ReadI64();
    if (marked_at == std::numeric_limits<int64_t>::min() && ldt == std::numeric_limits<int32_t>::max()) {
      return DeletionTime{};
    }
    return DeletionTime::Build(marked_at, ldt);
  }

  // SerializationHeader.readTimestamp: an unsigned delta from the minimum, with wrap-around.
  int64_t ReadTimestamp() {
    return static_cast<int64_t>(in_.ReadUnsignedVInt() + static_cast<uint64_t>(layout_.stats.min_timestamp));
  }

  // A delta written as a Java int (so possibly negative) in an unsigned vint.
  int64_t ReadInt32Delta() {
    uint64_t raw = in_.ReadUnsignedVInt();
    int64_t value = static_cast<int64_t>(raw);
    if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max()) [[unlikely]] {
      return FailInt32Delta(raw);
    }
    return value;
  }

  [[gnu::noinline]] int64_t FailInt32Delta(uint64_t raw) {
    in_.Fail(StrCat("delta-encoded 32-bit value out of range: ", raw));
    return 0;
  }

  int64_t ReadLocalDeletionTime() { return ReadInt32Delta() + layout_.stats.min_local_deletion_time; }
  int32_t ReadTtl() {
    return static_cast<int32_t>(static_cast<uint32_t>(ReadInt32Delta()) +
                                static_cast<uint32_t>(layout_.stats.min_ttl));
  }
  DeletionTime ReadDeletionTime() {
    int64_t marked_at = ReadTimestamp();
    int64_t ldt = ReadLocalDeletionTime();
    return DeletionTime::Build(marked_at, ldt);
  }

  // Cell.decodeLocalDeletionTime for this SSTable's version.
  int64_t DecodeLocalDeletionTime(int64_t ldt, int32_t ttl) const {
    if (ldt >= ttl) return ldt;
    if (ldt < 0) {
      return layout_.version.HasUIntDeletionTime() ? UnsignedDeletionTime(static_cast<uint32_t>(ldt))
                                                   : kInvalidDeletionTime;
    }
    if (ttl == kExpiredLivenessTtl) return ldt;
    return kInvalidDeletionTime;
  }

  // A value of a type whose values are `fixed_length` bytes long (written
  // raw), or of variable length (-1: written with a vint length).
  void ReadValue(int fixed_length, std::string* out) {
    in_.ReadString(fixed_length >= 0 ? static_cast<uint64_t>(fixed_length) : in_.ReadUnsignedVInt32(), out);
  }

  // ClusteringPrefix.Serializer.deserializeValuesWithoutSize: a header of two
  // bits per value (null, empty) every 32 values, then the non-empty values.
  void ReadClusteringValues(size_t size, Clustering* clustering) {
    clustering->values.resize(size);
    if (clustering->present.size() != size) clustering->present.resize(size);
    std::fill(clustering->present.begin(), clustering->present.end(), true);
    uint64_t header = 0;
    for (size_t i = 0; i < size; ++i) {
      if (i % 32 == 0) header = in_.ReadUnsignedVInt();
      unsigned shift = (i % 32) * 2;
      std::string& value = clustering->values[i];
      value.clear();
      if (header & (1ULL << (shift + 1))) {
        clustering->present[i] = false;
      } else if (!(header & (1ULL << shift))) {
        ReadValue(layout_.clustering_fixed_lengths[i], &value);
      }
    }
  }

  Status ReadMarker(uint64_t position) {
    RangeTombstoneMarker& marker = marker_;
    marker.position = position;
    uint8_t kind = in_.ReadU8();
    if (kind > static_cast<uint8_t>(ClusteringKind::kSstableUpperBound) ||
        kind == static_cast<uint8_t>(ClusteringKind::kClustering) ||
        kind == static_cast<uint8_t>(ClusteringKind::kStaticClustering)) {
      in_.Fail(StrCat("range tombstone marker at byte offset ", position, " has invalid bound kind ",
                      static_cast<int>(kind)));
      return in_.status();
    }
    marker.kind = static_cast<ClusteringKind>(kind);
    uint16_t size = in_.ReadU16();
    if (size > layout_.clustering_types.size()) {
      in_.Fail(StrCat("range tombstone marker at byte offset ", position, " has ", size,
                      " clustering values, the table has ", layout_.clustering_types.size()));
      return in_.status();
    }
    marker.bound.Clear();
    if (size > 0) ReadClusteringValues(size, &marker.bound);
    uint64_t marker_size = in_.ReadUnsignedVInt();
    uint64_t body_start = in_.position();
    in_.ReadUnsignedVInt();  // previous unfiltered size
    if (marker.IsBoundary()) {
      marker.end_deletion = ReadDeletionTime();
      marker.start_deletion = ReadDeletionTime();
      marker.deletion = DeletionTime{};
    } else {
      marker.deletion = ReadDeletionTime();
      marker.end_deletion = marker.start_deletion = DeletionTime{};
    }
    RETURN_IF_ERROR(CheckSize("range tombstone marker", position, body_start, marker_size));
    return consumer_.OnRangeTombstoneMarker(marker);
  }

  Status CheckSize(const char* what, uint64_t position, uint64_t body_start, uint64_t size) {
    if (!in_.ok()) return in_.status();
    if (in_.position() != body_start + size) {
      in_.Fail(StrCat(what, " at byte offset ", position, " declares ", size, " bytes but holds ",
                      in_.position() - body_start));
    }
    return in_.status();
  }

  Status ReadRow(uint64_t position, uint8_t flags, uint8_t extended, bool is_static) {
    Row& row = row_;
    row.position = position;
    row.is_static = is_static;
    if (!is_static && !layout_.clustering_types.empty()) {
      // Resizing (not clearing) keeps the value strings' buffers across rows.
      ReadClusteringValues(layout_.clustering_types.size(), &row.clustering);
    } else {
      row.clustering.Clear();
    }
    uint64_t row_size = in_.ReadUnsignedVInt();
    uint64_t body_start = in_.position();
    in_.ReadUnsignedVInt();  // previous unfiltered size

    row.liveness = LivenessInfo{};
    if (flags & kHasTimestamp) {
      row.liveness.timestamp = ReadTimestamp();
      if (flags & kHasTtl) {
        row.liveness.ttl = ReadTtl();
        row.liveness.local_expiration_time =
            DecodeLocalDeletionTime(ReadLocalDeletionTime(), row.liveness.ttl);
      }
      if (row.liveness.ttl < 0) in_.Fail(StrCat("row at byte offset ", position, " has a negative TTL"));
    }
    row.deletion = (flags & kHasDeletion) ? ReadDeletionTime() : DeletionTime{};
    row.deletion_is_shadowable = (extended & kHasShadowableDeletion) != 0;

    const std::vector<ColumnLayout>& columns = layout_.columns(is_static);
    present_.clear();
    if (flags & kHasAllColumns) {
      present_.resize(columns.size());
      for (size_t i = 0; i < columns.size(); ++i) present_[i] = static_cast<int>(i);
    } else {
      ReadColumnSubset(columns.size());
    }
    if (!in_.ok()) return in_.status();

    // ColumnData objects (and their cells' buffers) are reused across rows.
    row.columns.resize(present_.size());
    for (size_t i = 0; i < present_.size(); ++i) {
      ColumnData& data = row.columns[i];
      const ColumnLayout& column = columns[present_[i]];
      data.column = present_[i];
      data.is_complex = column.is_complex;
      data.complex_deletion = DeletionTime{};
      if (!column.is_complex) {
        data.cells.resize(1);
        ReadCell(column, row.liveness, /*has_path=*/false, &data.cells[0]);
        continue;
      }
      if (flags & kHasComplexDeletion) {
        DeletionTime deletion = ReadDeletionTime();
        data.complex_deletion = deletion;
      }
      uint32_t count = in_.ReadUnsignedVInt32();
      if (!in_.ok()) return in_.status();
      // Each cell takes at least one byte: a count beyond the bytes left is corrupt.
      if (count > row_size) {
        in_.Fail(StrCat("column ", column.name, " at byte offset ", position, " claims ", count, " cells"));
        return in_.status();
      }
      // The row size is as untrusted as the count: grow the cells as they
      // are read (each takes at least a byte), reusing earlier rows' cells,
      // so a corrupt count costs no more memory than the bytes present.
      uint32_t read = 0;
      for (; read < count && in_.ok(); ++read) {
        if (read == data.cells.size()) data.cells.emplace_back();
        ReadCell(column, row.liveness, /*has_path=*/true, &data.cells[read]);
      }
      data.cells.resize(read);
    }
    RETURN_IF_ERROR(CheckSize(is_static ? "static row" : "row", position, body_start, row_size));
    row.end_position = in_.position();
    return consumer_.OnRow(row);
  }

  // Columns.Serializer.deserializeSubset: a bitmap of missing columns, or for
  // 64 columns or more, the count missing followed by indexes.
  void ReadColumnSubset(size_t superset) {
    uint64_t encoded = in_.ReadUnsignedVInt();
    // Consecutive rows usually miss the same columns: reuse the last decoding.
    if (superset < 64 && encoded == last_subset_ && superset == last_superset_ && encoded != 0) {
      present_ = last_present_;
      return;
    }
    DecodeColumnSubset(superset, encoded);
    if (superset < 64 && in_.ok()) {
      last_subset_ = encoded;
      last_superset_ = superset;
      last_present_ = present_;
    }
  }

  void DecodeColumnSubset(size_t superset, uint64_t encoded) {
    if (encoded == 0) {
      for (size_t i = 0; i < superset; ++i) present_.push_back(static_cast<int>(i));
      return;
    }
    if (superset < 64) {
      for (size_t i = 0; i < superset; ++i) {
        if ((encoded & 1) == 0) present_.push_back(static_cast<int>(i));
        encoded >>= 1;
      }
      if (encoded != 0) in_.Fail("invalid column subset: bits set beyond the header's columns");
      return;
    }
    if (encoded > superset) {
      in_.Fail(StrCat("invalid column subset: ", encoded, " missing of ", superset));
      return;
    }
    size_t missing = encoded;
    size_t count = superset - missing;
    if (count < superset / 2) {
      for (size_t i = 0; i < count && in_.ok(); ++i) {
        uint32_t index = in_.ReadUnsignedVInt32();
        if (index >= superset || (!present_.empty() && static_cast<int>(index) <= present_.back())) {
          in_.Fail(StrCat("invalid column subset index ", index));
          return;
        }
        present_.push_back(static_cast<int>(index));
      }
      return;
    }
    size_t index = 0;
    size_t skipped = 0;
    while (in_.ok()) {
      size_t next_missing = skipped < missing ? in_.ReadUnsignedVInt32() : superset;
      if (next_missing > superset || next_missing < index) {
        in_.Fail(StrCat("invalid column subset index ", next_missing));
        return;
      }
      while (index < next_missing) present_.push_back(static_cast<int>(index++));
      if (index == superset) break;
      ++index;
      ++skipped;
    }
  }

  void ReadCell(const ColumnLayout& column, const LivenessInfo& liveness, bool has_path, Cell* cell) {
    uint8_t flags = in_.ReadU8();
    bool has_value = (flags & kCellHasEmptyValue) == 0;
    bool is_deleted = (flags & kCellIsDeleted) != 0;
    bool is_expiring = (flags & kCellIsExpiring) != 0;
    bool use_row_timestamp = (flags & kCellUseRowTimestamp) != 0;
    bool use_row_ttl = (flags & kCellUseRowTtl) != 0;

    cell->timestamp = use_row_timestamp ? liveness.timestamp : ReadTimestamp();
    int64_t ldt = use_row_ttl ? liveness.local_expiration_time
                              : (is_deleted || is_expiring ? ReadLocalDeletionTime() : kNoDeletionTime);
    cell->ttl = use_row_ttl ? liveness.ttl : (is_expiring ? ReadTtl() : kNoTtl);
    if (has_path) {
      in_.ReadString(in_.ReadUnsignedVInt32(), &cell->path);
    } else {
      cell->path.clear();
    }
    if (!has_value) cell->value.clear();
    if (has_value) {
      // Element values of complex columns always carry their length.
      ReadValue(column.is_complex ? -1 : column.fixed_length, &cell->value);
    }
    if (cell->ttl < 0) [[unlikely]] in_.Fail(StrCat("cell of column ", column.name, " has a negative TTL"));
    cell->local_deletion_time = DecodeLocalDeletionTime(ldt, cell->ttl);
    // Like Cassandra's cells, what a cell is follows from its TTL and deletion time.
    cell->is_expiring = cell->ttl != kNoTtl;
    cell->is_tombstone = cell->local_deletion_time != kNoDeletionTime && cell->ttl == kNoTtl;
  }

  DataInput& in_;
  const DataLayout& layout_;
  EnvelopeConsumer& consumer_;
  PartitionHeader partition_;
  Row row_;
  RangeTombstoneMarker marker_;
  std::vector<int> present_;
  std::string previous_key_;
  bool has_previous_key_ = false;
  // The last column subset decoded (see ReadColumnSubset).
  uint64_t last_subset_ = 0;
  size_t last_superset_ = 0;
  std::vector<int> last_present_;
};

namespace {

bool ColumnOrder(const ColumnLayout& a, const ColumnLayout& b) {
  if (a.is_complex != b.is_complex) return !a.is_complex;
  // Unsigned byte order of the names, as ColumnIdentifier compares them.
  return std::lexicographical_compare(
      a.name.begin(), a.name.end(), b.name.begin(), b.name.end(),
      [](char x, char y) { return static_cast<uint8_t>(x) < static_cast<uint8_t>(y); });
}

std::vector<ColumnLayout> SortedColumns(const std::vector<HeaderColumn>& columns, const TableSchema* schema) {
  std::vector<ColumnLayout> out;
  for (const auto& c : columns) {
    CqlTypePtr type = c.type;
    const ColumnSchema* column = schema ? schema->FindColumn(c.name) : nullptr;
    if (column && type->kind == CqlKind::kUdt && type->IsMultiCell() && column->type->kind == CqlKind::kUdt &&
        !column->type->IsMultiCell()) {
      auto frozen = std::make_shared<CqlType>(*type);
      frozen->frozen = true;
      type = frozen;
    }
    out.push_back({c.name, type, type->IsMultiCell(), type->FixedValueLength().value_or(-1)});
  }
  std::stable_sort(out.begin(), out.end(), ColumnOrder);
  return out;
}

}  // namespace

void Row::Clear() {
  position = 0;
  is_static = false;
  clustering.Clear();
  liveness = LivenessInfo{};
  deletion = DeletionTime{};
  deletion_is_shadowable = false;
  columns.clear();
}

DataLayout DataLayout::FromHeader(const SerializationHeader& header, const SSTableVersion& version,
                                  const TableSchema* schema) {
  DataLayout layout;
  layout.version = version;
  layout.stats = header.stats;
  layout.clustering_types = header.clustering_types;
  for (const auto& type : layout.clustering_types) {
    layout.clustering_fixed_lengths.push_back(type->FixedValueLength().value_or(-1));
  }
  layout.static_columns = SortedColumns(header.static_columns, schema);
  layout.regular_columns = SortedColumns(header.regular_columns, schema);
  return layout;
}

Status ReadPartitions(DataInput& in, const DataLayout& layout, EnvelopeConsumer& consumer) {
  return PartitionDecoder(in, layout, consumer).Run();
}

// Forwards to whichever consumer the current ReadNext call named.
class PartitionReader::Forwarder : public EnvelopeConsumer {
 public:
  EnvelopeConsumer* target = nullptr;
  Status OnPartitionStart(const PartitionHeader& partition) override { return target->OnPartitionStart(partition); }
  Status OnRow(const Row& row) override { return target->OnRow(row); }
  Status OnRangeTombstoneMarker(const RangeTombstoneMarker& marker) override {
    return target->OnRangeTombstoneMarker(marker);
  }
  Status OnPartitionEnd() override { return target->OnPartitionEnd(); }
};

PartitionReader::PartitionReader(DataInput& in, const DataLayout& layout)
    : in_(in), forwarder_(std::make_unique<Forwarder>()),
      decoder_(std::make_unique<PartitionDecoder>(in, layout, *forwarder_)) {}

PartitionReader::~PartitionReader() = default;

Result<bool> PartitionReader::ReadNext(EnvelopeConsumer& consumer) {
  if (decoder_->AtEnd()) {
    RETURN_IF_ERROR(in_.status());
    return false;
  }
  forwarder_->target = &consumer;
  RETURN_IF_ERROR(decoder_->ReadPartition());
  return true;
}

}  // namespace cqlite
