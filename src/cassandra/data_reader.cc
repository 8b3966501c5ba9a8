#include "cassandra/data_reader.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <span>
#include <string_view>

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

// Copies of the values a StreamReader read, kept until the record they belong
// to has been delivered. A deque, so that views into its strings stay valid
// as it grows; the strings keep their buffers from one record to the next.
class ValueBuffer {
 public:
  std::string_view Read(DataInput& in, uint64_t n) {
    if (n == 0) return {};
    if (used_ == strings_.size()) strings_.emplace_back();
    std::string& s = strings_[used_++];
    in.ReadString(n, &s);
    return s;
  }
  void Clear() { used_ = 0; }

 private:
  std::deque<std::string> strings_;
  size_t used_ = 0;
};

// The decoder reads a record through one of two readers with the same
// interface. Both latch the first failure (later reads return zeros) and hand
// out values as views that stay valid until the record has been delivered.

// Reads through DataInput, across chunk boundaries. Values are copied into a
// ValueBuffer: the chunk a value came from may be gone by the record's end.
class StreamReader {
 public:
  StreamReader(DataInput& in, ValueBuffer& values) : in_(in), values_(values) {}
  bool ok() const { return in_.ok(); }
  uint64_t position() const { return in_.position(); }
  uint8_t ReadU8() { return in_.ReadU8(); }
  uint64_t ReadUnsignedVInt() { return in_.ReadUnsignedVInt(); }
  uint32_t ReadUnsignedVInt32() { return in_.ReadUnsignedVInt32(); }
  std::string_view ReadValue(uint64_t n) { return values_.Read(in_, n); }
  void Skip(uint64_t n) { in_.Skip(n); }
  void Fail(const std::string& what) { in_.Fail(what); }

 private:
  DataInput& in_;
  ValueBuffer& values_;
};

// Reads a record from bytes already in memory (the rest of the current
// chunk), its values as views into them. Any failure, running out of bytes
// or a corrupt field, only marks the reader failed: the caller then reads the
// record again with a StreamReader, which continues into the next chunk or
// reports the error with its byte offset.
class InPlaceReader {
 public:
  InPlaceReader(std::span<const uint8_t> bytes, uint64_t position)
      : begin_(bytes.data()), p_(bytes.data()), end_(bytes.data() + bytes.size()), position_(position) {}
  bool ok() const { return ok_; }
  uint64_t position() const { return position_ + consumed(); }
  size_t consumed() const { return static_cast<size_t>(p_ - begin_); }

  [[gnu::always_inline]] uint8_t ReadU8() {
    if (p_ == end_) return Stop();
    return *p_++;
  }
  [[gnu::always_inline]] uint64_t ReadUnsignedVInt() {
    if (end_ - p_ >= 9) {
      size_t length;
      uint64_t value = DecodeUnsignedVInt(p_, &length);
      p_ += length;
      return value;
    }
    size_t length = 0;
    uint64_t value = DecodeUnsignedVIntNearEnd(p_, static_cast<size_t>(end_ - p_), &length);
    if (length == 0) return Stop();
    p_ += length;
    return value;
  }
  [[gnu::always_inline]] uint32_t ReadUnsignedVInt32() {
    uint64_t value = ReadUnsignedVInt();
    if (value > UINT32_MAX) return Stop();
    return static_cast<uint32_t>(value);
  }
  [[gnu::always_inline]] std::string_view ReadValue(uint64_t n) {
    if (n > static_cast<uint64_t>(end_ - p_)) {
      Stop();
      return {};
    }
    std::string_view value(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return value;
  }
  // Past the chunk's end: stops, for the StreamReader to skip across it.
  void Skip(uint64_t n) {
    if (n > static_cast<uint64_t>(end_ - p_)) {
      Stop();
      return;
    }
    p_ += n;
  }
  void Fail(const std::string& /*what: the StreamReader will say*/) { Stop(); }

 private:
  uint8_t Stop() {
    ok_ = false;
    end_ = p_;
    return 0;
  }
  // A vint in the last `available` (< 9) bytes: *length is 0 if it does not fit.
  // Out of line, and not a member, so that the reader stays in registers.
  [[gnu::noinline]] static uint64_t DecodeUnsignedVIntNearEnd(const uint8_t* p, size_t available, size_t* length) {
    uint8_t padded[9] = {};
    std::memcpy(padded, p, available);
    uint64_t value = DecodeUnsignedVInt(padded, length);
    if (*length > available) *length = 0;
    return value;
  }

  const uint8_t* begin_;
  const uint8_t* p_;
  const uint8_t* end_;
  uint64_t position_;
  bool ok_ = true;
};

}  // namespace

// Declared in data_reader.h so that PartitionReader can hold one.
class PartitionDecoder {
 public:
  PartitionDecoder(DataInput& in, const DataLayout& layout, EnvelopeConsumer& consumer)
      : in_(in), layout_(layout), consumer_(consumer) {
    for (bool is_static : {false, true}) {
      std::vector<int>& all = all_columns_[is_static];
      for (size_t i = 0; i < layout_.columns(is_static).size(); ++i) all.push_back(static_cast<int>(i));
    }
  }

  Status Run() {
    while (!in_.AtEnd()) {
      RETURN_IF_ERROR(ReadPartition());
    }
    return in_.status();
  }

  Status ReadPartition() {
    RETURN_IF_ERROR(StartPartition());
    while (true) {
      ASSIGN_OR_RETURN(bool ended, ReadItems(std::numeric_limits<size_t>::max()));
      if (ended) return Status::OK();
    }
  }

  // The partition's key, deletion and static row.
  Status StartPartition() {
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
    return Status::OK();
  }

  // At most `max_items` rows and markers of the partition StartPartition
  // began: true when its end was read (and OnPartitionEnd called).
  // Rows the consumer does not want (WantsRow) are passed over and not counted.
  Result<bool> ReadItems(size_t max_items) {
    for (size_t items = 0; items < max_items;) {
      // Most rows lie within one chunk: decoded in place, without copying values.
      if (ReadRowInPlace()) {
        if (row_passed_over_) continue;
        RETURN_IF_ERROR(consumer_.OnRow(row_));
        ++items;
        continue;
      }
      ++items;
      uint64_t position = in_.position();
      uint8_t flags = in_.ReadU8();
      if (!in_.ok()) return in_.status();
      if (flags & kEndOfPartition) {
        RETURN_IF_ERROR(consumer_.OnPartitionEnd());
        return true;
      }
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
    return false;
  }

  // Passes over the rest of the partition StartPartition began by the sizes
  // its rows and markers declare, decoding only their flags and clusterings
  // (which come before the size), and calls OnPartitionEnd: a scan that skips
  // partitions (a fold restricted to a token range) costs no cell decoding.
  Status SkipItems() {
    while (true) {
      uint64_t position = in_.position();
      uint8_t flags = in_.ReadU8();
      if (!in_.ok()) return in_.status();
      if (flags & kEndOfPartition) return consumer_.OnPartitionEnd();
      uint8_t extended = (flags & kExtensionFlag) ? in_.ReadU8() : 0;
      values_.Clear();
      StreamReader in(in_, values_);
      if (flags & kIsMarker) {
        uint8_t kind = in.ReadU8();
        uint16_t size = in_.ReadU16();
        if (size > layout_.clustering_types.size()) {
          in.Fail(StrCat("range tombstone marker at byte offset ", position, " has ", size,
                         " clustering values, the table has ", layout_.clustering_types.size(), " (bound kind ",
                         static_cast<int>(kind), ")"));
          return in_.status();
        }
        if (size > 0) ReadClusteringValues(in, size, &marker_.bound);
      } else {
        if (extended & kIsStatic) {
          in.Fail(StrCat("row at byte offset ", position, " has the static flag outside the partition header"));
          return in_.status();
        }
        if (!layout_.clustering_types.empty()) {
          ReadClusteringValues(in, layout_.clustering_types.size(), &row_.clustering);
        }
      }
      in_.Skip(in_.ReadUnsignedVInt());
      if (!in_.ok()) return in_.status();
    }
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
  template <class In>
  [[gnu::always_inline]] int64_t ReadTimestamp(In& in) {
    return static_cast<int64_t>(in.ReadUnsignedVInt() + static_cast<uint64_t>(layout_.stats.min_timestamp));
  }

  // A delta written as a Java int (so possibly negative) in an unsigned vint.
  template <class In>
  [[gnu::always_inline]] int64_t ReadInt32Delta(In& in) {
    uint64_t raw = in.ReadUnsignedVInt();
    int64_t value = static_cast<int64_t>(raw);
    if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max()) [[unlikely]] {
      in.Fail(StrCat("delta-encoded 32-bit value out of range: ", raw));
      return 0;
    }
    return value;
  }

  template <class In>
  [[gnu::always_inline]] int64_t ReadLocalDeletionTime(In& in) {
    return ReadInt32Delta(in) + layout_.stats.min_local_deletion_time;
  }
  template <class In>
  [[gnu::always_inline]] int32_t ReadTtl(In& in) {
    return static_cast<int32_t>(static_cast<uint32_t>(ReadInt32Delta(in)) +
                                static_cast<uint32_t>(layout_.stats.min_ttl));
  }
  template <class In>
  [[gnu::always_inline]] DeletionTime ReadDeletionTime(In& in) {
    int64_t marked_at = ReadTimestamp(in);
    int64_t ldt = ReadLocalDeletionTime(in);
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
  template <class In>
  [[gnu::always_inline]] std::string_view ReadValue(In& in, int fixed_length) {
    return in.ReadValue(fixed_length >= 0 ? static_cast<uint64_t>(fixed_length) : in.ReadUnsignedVInt32());
  }

  // ClusteringPrefix.Serializer.deserializeValuesWithoutSize: a header of two
  // bits per value (null, empty) every 32 values, then the non-empty values.
  template <class In>
  [[gnu::always_inline]] void ReadClusteringValues(In& in, size_t size, Clustering* clustering) {
    if (clustering->values.size() != size) {
      clustering->values.resize(size);
      clustering->present.resize(size);
    }
    uint64_t header = 0;
    for (size_t i = 0; i < size; ++i) {
      if (i % 32 == 0) header = in.ReadUnsignedVInt();
      unsigned shift = (i % 32) * 2;
      bool is_null = (header & (1ULL << (shift + 1))) != 0;
      bool is_empty = (header & (1ULL << shift)) != 0;
      clustering->present[i] = !is_null;
      clustering->values[i] = is_null || is_empty ? std::string_view() : ReadValue(in, layout_.clustering_fixed_lengths[i]);
    }
  }

  Status ReadMarker(uint64_t position) {
    values_.Clear();
    StreamReader in(in_, values_);
    RangeTombstoneMarker& marker = marker_;
    marker.position = position;
    uint8_t kind = in.ReadU8();
    if (kind > static_cast<uint8_t>(ClusteringKind::kSstableUpperBound) ||
        kind == static_cast<uint8_t>(ClusteringKind::kClustering) ||
        kind == static_cast<uint8_t>(ClusteringKind::kStaticClustering)) {
      in.Fail(StrCat("range tombstone marker at byte offset ", position, " has invalid bound kind ",
                     static_cast<int>(kind)));
      return in_.status();
    }
    marker.kind = static_cast<ClusteringKind>(kind);
    uint16_t size = in_.ReadU16();
    if (size > layout_.clustering_types.size()) {
      in.Fail(StrCat("range tombstone marker at byte offset ", position, " has ", size,
                     " clustering values, the table has ", layout_.clustering_types.size()));
      return in_.status();
    }
    marker.bound.Clear();
    if (size > 0) ReadClusteringValues(in, size, &marker.bound);
    uint64_t marker_size = in.ReadUnsignedVInt();
    uint64_t body_start = in.position();
    in.ReadUnsignedVInt();  // previous unfiltered size
    if (marker.IsBoundary()) {
      marker.end_deletion = ReadDeletionTime(in);
      marker.start_deletion = ReadDeletionTime(in);
      marker.deletion = DeletionTime{};
    } else {
      marker.deletion = ReadDeletionTime(in);
      marker.end_deletion = marker.start_deletion = DeletionTime{};
    }
    CheckSize(in, "range tombstone marker", position, body_start, marker_size);
    if (!in_.ok()) return in_.status();
    return consumer_.OnRangeTombstoneMarker(marker);
  }

  template <class In>
  void CheckSize(In& in, const char* what, uint64_t position, uint64_t body_start, uint64_t size) {
    if (in.ok() && in.position() != body_start + size) {
      in.Fail(StrCat(what, " at byte offset ", position, " declares ", size, " bytes but holds ",
                     in.position() - body_start));
    }
  }

  // Reads a row through DataInput (flags already read) and delivers it.
  Status ReadRow(uint64_t position, uint8_t flags, uint8_t extended, bool is_static) {
    values_.Clear();
    StreamReader in(in_, values_);
    DecodeRow(in, position, flags, extended, is_static);
    if (!in_.ok()) return in_.status();
    if (row_passed_over_) return Status::OK();
    return consumer_.OnRow(row_);
  }

  // Decodes the next item into row_ if it is a regular row lying wholly in
  // the current chunk, and consumes it; anything else (a marker, the end of
  // the partition, a row continuing in the next chunk, or one that does not
  // decode) is left unread for the streaming path.
  bool ReadRowInPlace() {
    InPlaceReader in(in_.Buffered(), in_.position());
    uint64_t position = in.position();
    uint8_t flags = in.ReadU8();
    uint8_t extended = (flags & kExtensionFlag) ? in.ReadU8() : 0;
    if (!in.ok() || (flags & (kEndOfPartition | kIsMarker)) || (extended & kIsStatic)) return false;
    DecodeRow(in, position, flags, extended, /*is_static=*/false);
    if (!in.ok()) return false;
    in_.Consume(in.consumed());
    return true;
  }

  // UnfilteredSerializer.deserializeRowBody, after the flags: fills row_.
  template <class In>
  [[gnu::always_inline]] void DecodeRow(In& in, uint64_t position, uint8_t flags, uint8_t extended, bool is_static) {
    Row& row = row_;
    row.position = position;
    row.is_static = is_static;
    if (!is_static && !layout_.clustering_types.empty()) {
      // Resizing (not clearing) keeps the vectors' buffers across rows.
      ReadClusteringValues(in, layout_.clustering_types.size(), &row.clustering);
    } else {
      row.clustering.Clear();
    }
    uint64_t row_size = in.ReadUnsignedVInt();
    uint64_t body_start = in.position();
    row_passed_over_ = !is_static && in.ok() && !consumer_.WantsRow(row.clustering);
    if (row_passed_over_) {
      in.Skip(row_size);
      return;
    }
    in.ReadUnsignedVInt();  // previous unfiltered size

    row.liveness = LivenessInfo{};
    if (flags & kHasTimestamp) {
      row.liveness.timestamp = ReadTimestamp(in);
      if (flags & kHasTtl) {
        row.liveness.ttl = ReadTtl(in);
        row.liveness.local_expiration_time = DecodeLocalDeletionTime(ReadLocalDeletionTime(in), row.liveness.ttl);
      }
      if (row.liveness.ttl < 0) in.Fail(StrCat("row at byte offset ", position, " has a negative TTL"));
    }
    row.deletion = (flags & kHasDeletion) ? ReadDeletionTime(in) : DeletionTime{};
    row.deletion_is_shadowable = (extended & kHasShadowableDeletion) != 0;

    const std::vector<ColumnLayout>& columns = layout_.columns(is_static);
    const std::vector<int>& present =
        (flags & kHasAllColumns) ? all_columns_[is_static] : ReadColumnSubset(in, is_static, columns.size());
    if (!in.ok()) return;

    ShapeColumns(present, is_static);
    // Locals rather than the row's members, which every store of a cell
    // field might alias: the loop keeps them in registers.
    const LivenessInfo liveness = row.liveness;
    const ColumnLayout* layouts = columns.data();
    for (ColumnData *data = row.columns.data(), *end = data + row.columns.size(); data != end; ++data) {
      const ColumnLayout& column = layouts[data->column];
      if (!data->is_complex) {
        ReadCell(in, column, liveness, /*has_path=*/false, &data->cells.front());
        continue;
      }
      data->complex_deletion = (flags & kHasComplexDeletion) ? ReadDeletionTime(in) : DeletionTime{};
      uint32_t count = in.ReadUnsignedVInt32();
      if (!in.ok()) return;
      // Each cell takes at least one byte: a count beyond the bytes left is corrupt.
      if (count > row_size) {
        in.Fail(StrCat("column ", column.name, " at byte offset ", position, " claims ", count, " cells"));
        return;
      }
      // The row size is as untrusted as the count: grow the cells as they
      // are read (each takes at least a byte), reusing the vector's buffer,
      // so a corrupt count costs no more memory than the bytes present.
      std::vector<Cell>& cells = data->cells;
      cells.clear();
      for (uint32_t read = 0; read < count && in.ok(); ++read) {
        ReadCell(in, column, liveness, /*has_path=*/true, &cells.emplace_back());
      }
    }
    CheckSize(in, is_static ? "static row" : "row", position, body_start, row_size);
    row.end_position = in.position();
  }

  // Sets row_.columns up for the columns `present`: which column each is, and
  // one cell for each simple column. ColumnData objects (and their cell
  // vectors) are reused across rows, and consecutive rows usually have the
  // same columns, so this mostly finds nothing to do.
  void ShapeColumns(const std::vector<int>& present, bool is_static) {
    uint64_t generation = &present == &subset_ ? subset_generation_ : 0;
    if (&present == shaped_for_ && generation == shaped_generation_ && is_static == shaped_static_) return;
    const std::vector<ColumnLayout>& columns = layout_.columns(is_static);
    if (row_.columns.size() != present.size()) row_.columns.resize(present.size());
    for (size_t i = 0; i < present.size(); ++i) {
      ColumnData& data = row_.columns[i];
      data.column = present[i];
      data.is_complex = columns[present[i]].is_complex;
      data.complex_deletion = DeletionTime{};
      if (!data.is_complex && data.cells.size() != 1) data.cells.resize(1);
    }
    shaped_for_ = &present;
    shaped_generation_ = generation;
    shaped_static_ = is_static;
  }

  // Columns.Serializer.deserializeSubset: a bitmap of missing columns, or for
  // 64 columns or more, the count missing followed by indexes. Returns the
  // indexes of the columns present.
  template <class In>
  [[gnu::always_inline]] const std::vector<int>& ReadColumnSubset(In& in, bool is_static, size_t superset) {
    uint64_t encoded = in.ReadUnsignedVInt();
    if (encoded == 0) return all_columns_[is_static];  // none missing
    // Consecutive rows usually miss the same columns: reuse the last decoding.
    if (superset < 64 && encoded == subset_encoded_ && superset == subset_superset_) return subset_;
    subset_.clear();
    ++subset_generation_;
    subset_superset_ = SIZE_MAX;
    DecodeColumnSubset(in, superset, encoded);
    if (superset < 64 && in.ok()) {
      subset_encoded_ = encoded;
      subset_superset_ = superset;
    }
    return subset_;
  }

  template <class In>
  [[gnu::always_inline]] void DecodeColumnSubset(In& in, size_t superset, uint64_t encoded) {
    std::vector<int>& present = subset_;
    if (superset < 64) {
      for (size_t i = 0; i < superset; ++i) {
        if ((encoded & 1) == 0) present.push_back(static_cast<int>(i));
        encoded >>= 1;
      }
      if (encoded != 0) in.Fail("invalid column subset: bits set beyond the header's columns");
      return;
    }
    if (encoded > superset) {
      in.Fail(StrCat("invalid column subset: ", encoded, " missing of ", superset));
      return;
    }
    size_t missing = encoded;
    size_t count = superset - missing;
    if (count < superset / 2) {
      for (size_t i = 0; i < count && in.ok(); ++i) {
        uint32_t index = in.ReadUnsignedVInt32();
        if (index >= superset || (!present.empty() && static_cast<int>(index) <= present.back())) {
          in.Fail(StrCat("invalid column subset index ", index));
          return;
        }
        present.push_back(static_cast<int>(index));
      }
      return;
    }
    size_t index = 0;
    size_t skipped = 0;
    while (in.ok()) {
      size_t next_missing = skipped < missing ? in.ReadUnsignedVInt32() : superset;
      if (next_missing > superset || next_missing < index) {
        in.Fail(StrCat("invalid column subset index ", next_missing));
        return;
      }
      while (index < next_missing) present.push_back(static_cast<int>(index++));
      if (index == superset) break;
      ++index;
      ++skipped;
    }
  }

  // Cell.Serializer.deserialize; `has_path` for the cells of a complex column.
  template <class In>
  [[gnu::always_inline]] void ReadCell(In& in, const ColumnLayout& column, const LivenessInfo& liveness,
                                       bool has_path, Cell* cell) {
    uint8_t flags = in.ReadU8();
    // Most cells are live, not expiring, and written at the row's timestamp.
    constexpr uint8_t kTimeFlags = kCellIsDeleted | kCellIsExpiring | kCellUseRowTimestamp | kCellUseRowTtl;
    bool row_timestamp_only = (flags & kTimeFlags) == kCellUseRowTimestamp;
    int64_t timestamp = liveness.timestamp;
    int64_t ldt = kNoDeletionTime;
    int32_t ttl = kNoTtl;
    if (!row_timestamp_only) [[unlikely]] {
      bool is_deleted = (flags & kCellIsDeleted) != 0;
      bool is_expiring = (flags & kCellIsExpiring) != 0;
      bool use_row_ttl = (flags & kCellUseRowTtl) != 0;
      if (!(flags & kCellUseRowTimestamp)) timestamp = ReadTimestamp(in);
      if (use_row_ttl) {
        ldt = liveness.local_expiration_time;
      } else if (is_deleted || is_expiring) {
        ldt = ReadLocalDeletionTime(in);
      }
      ttl = use_row_ttl ? liveness.ttl : (is_expiring ? ReadTtl(in) : kNoTtl);
    }
    cell->path = has_path ? in.ReadValue(in.ReadUnsignedVInt32()) : std::string_view();
    // Element values of complex columns always carry their length.
    cell->value = (flags & kCellHasEmptyValue) ? std::string_view() : ReadValue(in, has_path ? -1 : column.fixed_length);
    cell->timestamp = timestamp;
    cell->ttl = ttl;
    if (row_timestamp_only) [[likely]] {
      cell->local_deletion_time = kNoDeletionTime;
      cell->is_expiring = false;
      cell->is_tombstone = false;
      return;
    }
    if (ttl < 0) [[unlikely]] in.Fail(StrCat("cell of column ", column.name, " has a negative TTL"));
    cell->local_deletion_time = DecodeLocalDeletionTime(ldt, ttl);
    // Like Cassandra's cells, what a cell is follows from its TTL and deletion time.
    cell->is_expiring = ttl != kNoTtl;
    cell->is_tombstone = cell->local_deletion_time != kNoDeletionTime && ttl == kNoTtl;
  }

  DataInput& in_;
  const DataLayout& layout_;
  EnvelopeConsumer& consumer_;
  PartitionHeader partition_;
  Row row_;
  bool row_passed_over_ = false;  // the last row decoded was not wanted (WantsRow)
  RangeTombstoneMarker marker_;
  // Values of the record being read through DataInput.
  ValueBuffer values_;
  std::string previous_key_;
  bool has_previous_key_ = false;
  // 0, 1, ... for the regular [false] and static [true] columns: a row with all columns.
  std::vector<int> all_columns_[2];
  // The last column subset decoded, and what it was decoded from (see ReadColumnSubset).
  std::vector<int> subset_;
  uint64_t subset_encoded_ = 0;
  size_t subset_superset_ = SIZE_MAX;
  uint64_t subset_generation_ = 0;  // counts the decodings into subset_
  // The columns row_.columns is set up for (see ShapeColumns).
  const std::vector<int>* shaped_for_ = nullptr;
  uint64_t shaped_generation_ = 0;
  bool shaped_static_ = false;
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

// Forwards to whichever consumer the current StartNext or ReadItems call named.
class PartitionReader::Forwarder : public EnvelopeConsumer {
 public:
  EnvelopeConsumer* target = nullptr;
  Status OnPartitionStart(const PartitionHeader& partition) override { return target->OnPartitionStart(partition); }
  Status OnRow(const Row& row) override { return target->OnRow(row); }
  Status OnRangeTombstoneMarker(const RangeTombstoneMarker& marker) override {
    return target->OnRangeTombstoneMarker(marker);
  }
  Status OnPartitionEnd() override { return target->OnPartitionEnd(); }
  bool WantsRow(const Clustering& clustering) override { return target->WantsRow(clustering); }
};

PartitionReader::PartitionReader(DataInput& in, const DataLayout& layout)
    : in_(in), forwarder_(std::make_unique<Forwarder>()),
      decoder_(std::make_unique<PartitionDecoder>(in, layout, *forwarder_)) {}

PartitionReader::~PartitionReader() = default;

Result<bool> PartitionReader::StartNext(EnvelopeConsumer& consumer) {
  if (decoder_->AtEnd()) {
    RETURN_IF_ERROR(in_.status());
    return false;
  }
  forwarder_->target = &consumer;
  RETURN_IF_ERROR(decoder_->StartPartition());
  return true;
}

Result<bool> PartitionReader::ReadItems(EnvelopeConsumer& consumer, size_t max_items) {
  forwarder_->target = &consumer;
  return decoder_->ReadItems(max_items);
}

Status PartitionReader::SkipItems(EnvelopeConsumer& consumer) {
  forwarder_->target = &consumer;
  return decoder_->SkipItems();
}

}  // namespace cqlite
