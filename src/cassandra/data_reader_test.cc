#include "cassandra/data_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "util/strings.h"

namespace cqlite {
namespace {

// Builds Data.db bytes by hand, following Cassandra's encodings.
class Bytes {
 public:
  Bytes& U8(uint8_t v) {
    data_.push_back(static_cast<char>(v));
    return *this;
  }
  Bytes& U16(uint16_t v) { return U8(v >> 8).U8(v & 0xff); }
  Bytes& U32(uint32_t v) { return U16(v >> 16).U16(v & 0xffff); }
  Bytes& U64(uint64_t v) { return U32(v >> 32).U32(v & 0xffffffff); }
  // VIntCoding.writeUnsignedVInt
  Bytes& VInt(uint64_t v) {
    int bytes = 1;
    while (bytes < 9 && v >= (1ULL << (7 * bytes))) ++bytes;
    if (bytes == 1) return U8(static_cast<uint8_t>(v));
    if (bytes == 9) {
      U8(0xff);
      return U64(v);
    }
    int extra = bytes - 1;
    uint8_t first = static_cast<uint8_t>(~(0xff >> extra)) | static_cast<uint8_t>(v >> (8 * extra));
    U8(first);
    for (int i = extra - 1; i >= 0; --i) U8(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  Bytes& Raw(const std::string& s) {
    data_ += s;
    return *this;
  }
  const std::string& str() const { return data_; }
  size_t size() const { return data_.size(); }

 private:
  std::string data_;
};

std::string Int32(int32_t v) {
  Bytes b;
  b.U32(static_cast<uint32_t>(v));
  return b.str();
}

CqlTypePtr Type(const char* marshal) { return *ParseMarshalType(marshal); }

// Records what the decoder emits, copying each record and (as values are
// views valid only during the callback) its values.
class Recorder : public EnvelopeConsumer {
 public:
  Status OnPartitionStart(const PartitionHeader& p) override {
    partitions.push_back(p);
    return Status::OK();
  }
  Status OnRow(const Row& row) override {
    rows.push_back(row);
    Keep(&rows.back().clustering);
    for (ColumnData& column : rows.back().columns) {
      for (Cell& cell : column.cells) {
        Keep(&cell.path);
        Keep(&cell.value);
      }
    }
    return Status::OK();
  }
  Status OnRangeTombstoneMarker(const RangeTombstoneMarker& m) override {
    markers.push_back(m);
    Keep(&markers.back().bound);
    return Status::OK();
  }
  Status OnPartitionEnd() override {
    ++ends;
    return Status::OK();
  }
  std::vector<PartitionHeader> partitions;
  std::vector<Row> rows;
  std::vector<RangeTombstoneMarker> markers;
  int ends = 0;

 private:
  void Keep(std::string_view* value) {
    copies_.emplace_back(*value);
    *value = copies_.back();
  }
  void Keep(Clustering* clustering) {
    for (std::string_view& value : clustering->values) Keep(&value);
  }
  std::deque<std::string> copies_;  // a deque: the views stay valid as it grows
};

// CREATE TABLE t (pk int, ck int, v int, tags set<int>, s int static, PRIMARY KEY (pk, ck))
DataLayout TestLayout(const char* version) {
  SerializationHeader header;
  header.stats.min_timestamp = 1000;
  header.stats.min_local_deletion_time = 1600000000;
  header.stats.min_ttl = 0;
  header.partition_key_type = Type("org.apache.cassandra.db.marshal.Int32Type");
  header.clustering_types = {Type("org.apache.cassandra.db.marshal.Int32Type")};
  header.static_columns = {{"s", Type("org.apache.cassandra.db.marshal.Int32Type")}};
  // Deliberately not in on-disk order: the layout sorts simple before complex.
  header.regular_columns = {{"tags", Type("org.apache.cassandra.db.marshal.SetType(org.apache.cassandra.db.marshal.Int32Type)")},
                            {"v", Type("org.apache.cassandra.db.marshal.Int32Type")}};
  SSTableVersion v;
  v.name = version;
  return DataLayout::FromHeader(header, v);
}

Status Decode(const std::string& bytes, const DataLayout& layout, Recorder* out) {
  DataInput in(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), "t-Data.db");
  return ReadPartitions(in, layout, *out);
}

// Appends a row body (everything after the size fields) with its sizes.
void AppendRow(Bytes& out, const Bytes& body) {
  out.VInt(body.size() + 1).VInt(0).Raw(body.str());  // row size counts the previous-size vint
}

TEST(DataReaderTest, DecodesRowsCellsAndComplexColumns) {
  DataLayout layout = TestLayout("nb");
  ASSERT_EQ(layout.regular_columns[0].name, "v");
  ASSERT_TRUE(layout.regular_columns[1].is_complex);

  Bytes data;
  data.U16(4).Raw(Int32(7));                 // partition key
  data.U32(0x7fffffff).U64(1ULL << 63);      // live partition deletion (legacy encoding)
  // Static row: extension flag, IS_STATIC, all columns; s = 5 at timestamp 1005.
  data.U8(0x80 | 0x20).U8(0x01);
  {
    Bytes body;
    body.U8(0x00).VInt(5).Raw(Int32(5));  // cell flags, timestamp delta, value
    AppendRow(data, body);
  }
  // Row ck=1: timestamp 1010 with TTL 60 expiring at 1600000100; v = 3 using row
  // timestamp and TTL; tags deleted at 1009 then {4} added.
  data.U8(0x04 | 0x08 | 0x20 | 0x40);
  data.VInt(0).Raw(Int32(1));  // clustering header + value
  {
    Bytes body;
    body.VInt(10).VInt(60).VInt(100);        // timestamp, ttl, local expiration (deltas)
    body.U8(0x08 | 0x10).Raw(Int32(3));      // v: use row timestamp and TTL
    body.VInt(9).VInt(50);                   // tags complex deletion: ts 1009, ldt 1600000050
    body.VInt(1);                            // one cell
    body.U8(0x08 | 0x04).VInt(4).Raw(Int32(4));  // row timestamp, empty value, path = 4
    AppendRow(data, body);
  }
  data.U8(0x01);  // end of partition

  Recorder out;
  ASSERT_TRUE(Decode(data.str(), layout, &out).ok()) << Decode(data.str(), layout, &out).ToString();
  ASSERT_EQ(out.partitions.size(), 1u);
  EXPECT_EQ(out.partitions[0].key, Int32(7));
  EXPECT_TRUE(out.partitions[0].deletion.IsLive());
  ASSERT_EQ(out.rows.size(), 2u);
  EXPECT_EQ(out.ends, 1);

  const Row& s = out.rows[0];
  EXPECT_TRUE(s.is_static);
  ASSERT_EQ(s.columns.size(), 1u);
  EXPECT_EQ(s.columns[0].cells[0].timestamp, 1005);
  EXPECT_EQ(s.columns[0].cells[0].value, Int32(5));

  const Row& r = out.rows[1];
  EXPECT_FALSE(r.is_static);
  EXPECT_EQ(r.clustering.values[0], Int32(1));
  EXPECT_EQ(r.liveness.timestamp, 1010);
  EXPECT_EQ(r.liveness.ttl, 60);
  EXPECT_EQ(r.liveness.local_expiration_time, 1600000100);
  ASSERT_EQ(r.columns.size(), 2u);
  const Cell& v = r.columns[0].cells[0];
  EXPECT_EQ(v.value, Int32(3));
  EXPECT_EQ(v.timestamp, 1010);
  EXPECT_TRUE(v.is_expiring);
  EXPECT_EQ(v.ttl, 60);
  EXPECT_EQ(v.local_deletion_time, 1600000100);
  const ColumnData& tags = r.columns[1];
  EXPECT_TRUE(tags.is_complex);
  EXPECT_EQ(tags.complex_deletion.marked_for_delete_at, 1009);
  EXPECT_EQ(tags.complex_deletion.local_deletion_time, 1600000050);
  ASSERT_EQ(tags.cells.size(), 1u);
  EXPECT_EQ(tags.cells[0].path, Int32(4));
  EXPECT_TRUE(tags.cells[0].value.empty());
  EXPECT_FALSE(tags.cells[0].is_tombstone);
}

TEST(DataReaderTest, DecodesCompactPartitionDeletionAndBoundaries) {
  DataLayout layout = TestLayout("oa");
  Bytes data;
  data.U16(4).Raw(Int32(9));
  data.U64(2000).U32(1700000000);  // partition deleted at 2000 (compact encoding, sign bit clear)
  data.U8(0x80).U8(0x01);          // empty static row: no columns present
  {
    Bytes body;
    body.VInt(1);  // column subset bitmap: column 0 missing
    AppendRow(data, body);
  }
  // Boundary at ck=3: closes a range deleted at 1500, opens one deleted at 1600.
  data.U8(0x02).U8(2).U16(1).VInt(0).Raw(Int32(3));
  {
    Bytes body;
    body.VInt(500).VInt(1).VInt(600).VInt(2);
    data.VInt(body.size() + 1).VInt(0).Raw(body.str());
  }
  data.U8(0x01);
  Recorder out;
  Status status = Decode(data.str(), layout, &out);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(out.partitions[0].deletion.marked_for_delete_at, 2000);
  EXPECT_EQ(out.partitions[0].deletion.local_deletion_time, 1700000000);
  ASSERT_EQ(out.markers.size(), 1u);
  const RangeTombstoneMarker& m = out.markers[0];
  EXPECT_TRUE(m.IsBoundary());
  EXPECT_EQ(m.bound.values[0], Int32(3));
  EXPECT_EQ(m.end_deletion.marked_for_delete_at, 1500);
  EXPECT_EQ(m.end_deletion.local_deletion_time, 1600000001);
  EXPECT_EQ(m.start_deletion.marked_for_delete_at, 1600);
  EXPECT_EQ(m.start_deletion.local_deletion_time, 1600000002);
}

TEST(DataReaderTest, EveryTruncationIsACleanError) {
  DataLayout layout = TestLayout("nb");
  Bytes data;
  data.U16(4).Raw(Int32(7)).U32(0x7fffffff).U64(1ULL << 63);
  data.U8(0x80 | 0x20).U8(0x01);
  {
    Bytes body;
    body.U8(0x00).VInt(5).Raw(Int32(5));
    AppendRow(data, body);
  }
  data.U8(0x01);
  for (size_t cut = 1; cut < data.size(); ++cut) {
    Recorder out;
    Status status = Decode(data.str().substr(0, cut), layout, &out);
    EXPECT_FALSE(status.ok()) << "cut at " << cut;
    EXPECT_EQ(status.kind(), StatusKind::kCorruption);
    EXPECT_NE(status.message().find("t-Data.db"), std::string::npos) << status.message();
  }
}

TEST(DataReaderTest, RowSizeMismatchIsCorruption) {
  DataLayout layout = TestLayout("nb");
  Bytes data;
  data.U16(4).Raw(Int32(7)).U32(0x7fffffff).U64(1ULL << 63);
  data.U8(0x80 | 0x20).U8(0x01);
  data.VInt(9).VInt(0).U8(0x00).VInt(5).Raw(Int32(5));  // declares 9 bytes, holds 7
  data.U8(0x01);
  Recorder out;
  Status status = Decode(data.str(), layout, &out);
  EXPECT_EQ(status.kind(), StatusKind::kCorruption);
  EXPECT_NE(status.message().find("declares 9 bytes"), std::string::npos) << status.message();
}

TEST(DataReaderTest, HugeCellCountIsCorruptionNotAnAllocation) {
  // Found by fuzz_data_reader: a complex column claiming 2^32 - 16 cells in a
  // row claiming as many bytes made the reader allocate them all up front.
  DataLayout layout = TestLayout("nb");
  Bytes data;
  data.U16(4).Raw(Int32(7)).U32(0x7fffffff).U64(1ULL << 63);
  data.U8(0x80 | 0x20).U8(0x01);
  {
    Bytes body;
    body.U8(0x00).VInt(5).Raw(Int32(5));
    AppendRow(data, body);
  }
  data.U8(0x20).VInt(0).Raw(Int32(1));  // row, all columns, ck = 1
  data.VInt(0xfffffff0).VInt(0);         // row size, previous row size
  data.U8(0x08 | 0x04);                  // v: row timestamp, empty value
  data.VInt(0xfffffff0);                 // tags: cell count
  data.U8(0x08 | 0x04).VInt(4).Raw(Int32(4));
  Recorder out;
  Status status = Decode(data.str(), layout, &out);
  EXPECT_EQ(status.kind(), StatusKind::kCorruption) << status.ToString();
}

// Hands out the bytes in chunks of a fixed size, as a decompressed Data.db
// arrives; the decoder must not care where the boundaries fall.
class FixedChunkSource : public ChunkSource {
 public:
  FixedChunkSource(const std::string& bytes, size_t chunk) : bytes_(bytes), chunk_(chunk) {}
  Result<std::span<const uint8_t>> NextChunk() override {
    size_t n = std::min(chunk_, bytes_.size() - at_);
    // A fresh buffer for each chunk, so that a view into an earlier one shows up under ASan.
    buffer_ = std::make_unique<uint8_t[]>(n);
    std::memcpy(buffer_.get(), bytes_.data() + at_, n);
    at_ += n;
    return std::span<const uint8_t>(buffer_.get(), n);
  }
  uint64_t TotalLength() const override { return bytes_.size(); }

 private:
  const std::string& bytes_;
  size_t chunk_;
  size_t at_ = 0;
  std::unique_ptr<uint8_t[]> buffer_;
};

// Everything a decode produced, as text: records in order, then the status.
std::string Describe(const Recorder& out, const Status& status) {
  std::string s;
  auto clustering = [&](const Clustering& c) {
    for (size_t i = 0; i < c.values.size(); ++i) {
      s += c.present[i] ? "[" + ToHex(std::string(c.values[i])) + "]" : "[null]";
    }
  };
  auto deletion = [&](const DeletionTime& d) { s += StrCat(" del ", d.marked_for_delete_at, "/", d.local_deletion_time); };
  for (const PartitionHeader& p : out.partitions) s += StrCat("partition ", p.position, " ", ToHex(p.key), "\n");
  for (const Row& row : out.rows) {
    s += StrCat("row ", row.position, "-", row.end_position, row.is_static ? " static " : " ");
    clustering(row.clustering);
    s += StrCat(" live ", row.liveness.timestamp, "/", row.liveness.ttl, "/", row.liveness.local_expiration_time);
    deletion(row.deletion);
    s += row.deletion_is_shadowable ? " shadowable\n" : "\n";
    for (const ColumnData& c : row.columns) {
      s += StrCat("  column ", c.column, c.is_complex ? " complex" : "");
      deletion(c.complex_deletion);
      s += "\n";
      for (const Cell& cell : c.cells) {
        s += StrCat("    cell ", cell.timestamp, " ", cell.ttl, " ", cell.local_deletion_time, " ",
                    cell.is_tombstone, cell.is_expiring, " path ", ToHex(std::string(cell.path)), " value ",
                    ToHex(std::string(cell.value)), "\n");
      }
    }
  }
  for (const RangeTombstoneMarker& m : out.markers) {
    s += StrCat("marker ", m.position, " kind ", static_cast<int>(m.kind), " ");
    clustering(m.bound);
    deletion(m.deletion);
    deletion(m.end_deletion);
    deletion(m.start_deletion);
    s += "\n";
  }
  return s + StrCat("ends ", out.ends, "\n", status.ToString(), "\n");
}

std::string DecodeInChunks(const std::string& bytes, const DataLayout& layout, size_t chunk) {
  DataInput in(std::make_unique<FixedChunkSource>(bytes, chunk), "t-Data.db");
  Recorder out;
  Status status = ReadPartitions(in, layout, out);
  return Describe(out, status);
}

std::string DecodeWhole(const std::string& bytes, const DataLayout& layout) {
  Recorder out;
  Status status = Decode(bytes, layout, &out);
  return Describe(out, status);
}

// CREATE TABLE t (pk int, ck text, a int, b text, m map<text, int>, s text static, PRIMARY KEY (pk, ck))
DataLayout MixedLayout() {
  SerializationHeader header;
  header.stats.min_timestamp = 1000;
  header.stats.min_local_deletion_time = 1600000000;
  header.stats.min_ttl = 0;
  header.partition_key_type = Type("org.apache.cassandra.db.marshal.Int32Type");
  header.clustering_types = {Type("org.apache.cassandra.db.marshal.UTF8Type")};
  header.static_columns = {{"s", Type("org.apache.cassandra.db.marshal.UTF8Type")}};
  header.regular_columns = {
      {"a", Type("org.apache.cassandra.db.marshal.Int32Type")},
      {"b", Type("org.apache.cassandra.db.marshal.UTF8Type")},
      {"m", Type("org.apache.cassandra.db.marshal.MapType(org.apache.cassandra.db.marshal.UTF8Type,"
                 "org.apache.cassandra.db.marshal.Int32Type)")}};
  SSTableVersion v;
  v.name = "nb";
  return DataLayout::FromHeader(header, v);
}

// Two partitions of rows with text values, collections, column subsets,
// TTLs, deletions and a range tombstone.
std::string MixedData() {
  auto text = [](Bytes& b, const std::string& s) { b.VInt(s.size()).Raw(s); };
  Bytes data;
  for (int pk : {1, 2}) {
    data.U16(4).Raw(Int32(pk)).U32(0x7fffffff).U64(1ULL << 63);
    data.U8(0x80 | 0x20).U8(0x01);  // static row, all columns
    {
      Bytes body;
      body.U8(0x00).VInt(3);
      text(body, "static text");
      AppendRow(data, body);
    }
    // ck = "x": all columns; a from the row timestamp, b with its own, m deleted then two entries.
    data.U8(0x04 | 0x20 | 0x40).VInt(0);
    text(data, "x");
    {
      Bytes body;
      body.VInt(20);                              // row timestamp
      body.U8(0x08).Raw(Int32(pk));               // a
      body.U8(0x00).VInt(21);                     // b: own timestamp
      text(body, "a longer text value, to straddle chunks");
      body.VInt(19).VInt(5);                      // m: complex deletion
      body.VInt(2);                               // two cells
      body.U8(0x08).VInt(2).Raw("k1").VInt(4).Raw(Int32(1));
      body.U8(0x08).VInt(2).Raw("k2").VInt(4).Raw(Int32(2));
      AppendRow(data, body);
    }
    // ck = "" (empty): a missing; b expiring with the row's TTL; m with no cells.
    data.U8(0x04 | 0x08).VInt(1);  // clustering header: value 0 empty
    {
      Bytes body;
      body.VInt(30).VInt(60).VInt(100);  // row timestamp, TTL, expiration
      body.VInt(0x1);                    // column subset: a missing
      body.U8(0x02 | 0x08 | 0x10);       // b: expiring, row timestamp and TTL
      text(body, "expiring");
      body.VInt(0);                      // m: no cells
      AppendRow(data, body);
    }
    // A range tombstone bound at ck = "y".
    data.U8(0x02).U8(1).U16(1).VInt(0);
    text(data, "y");
    {
      Bytes body;
      body.VInt(40).VInt(7);
      data.VInt(body.size() + 1).VInt(0).Raw(body.str());
    }
    // ck = "z": row deletion, only b, a tombstone.
    data.U8(0x10).VInt(0);
    text(data, "z");
    {
      Bytes body;
      body.VInt(50).VInt(8);        // row deletion
      body.VInt(0x5);               // column subset: a and m missing
      body.U8(0x01 | 0x04).VInt(51).VInt(9);  // b: deleted, empty, timestamp, local deletion time
      AppendRow(data, body);
    }
    data.U8(0x01);  // end of partition
  }
  return data.str();
}

TEST(DataReaderTest, ChunkBoundariesDoNotChangeTheRecords) {
  DataLayout layout = MixedLayout();
  std::string data = MixedData();
  std::string whole = DecodeWhole(data, layout);
  ASSERT_NE(whole.find("\nOK\n"), std::string::npos) << whole;
  ASSERT_NE(whole.find(ToHex("a longer text value, to straddle chunks")), std::string::npos) << whole;
  for (size_t chunk = 1; chunk <= data.size(); ++chunk) {
    ASSERT_EQ(DecodeInChunks(data, layout, chunk), whole) << "chunks of " << chunk;
  }
}

TEST(DataReaderTest, ChunkBoundariesDoNotChangeTheErrors) {
  DataLayout layout = MixedLayout();
  std::string data = MixedData();
  for (size_t cut = 0; cut < data.size(); ++cut) {
    std::string truncated = data.substr(0, cut);
    std::string whole = DecodeWhole(truncated, layout);
    for (size_t chunk : {1, 3, 16}) {
      ASSERT_EQ(DecodeInChunks(truncated, layout, chunk), whole) << "cut at " << cut << ", chunks of " << chunk;
    }
  }
  for (size_t at = 0; at < data.size(); ++at) {
    for (uint8_t flip : {0x01, 0x80, 0xff}) {
      std::string corrupt = data;
      corrupt[at] = static_cast<char>(corrupt[at] ^ flip);
      std::string whole = DecodeWhole(corrupt, layout);
      for (size_t chunk : {1, 3, 16}) {
        ASSERT_EQ(DecodeInChunks(corrupt, layout, chunk), whole)
            << "byte " << at << " ^ " << int{flip} << ", chunks of " << chunk;
      }
    }
  }
}

// Each partition of MixedData read whole (-1) or skipped (SkipItems) after
// the given number of rows and markers, in chunks of `chunk` bytes.
std::string DecodeSkipping(const std::string& bytes, const DataLayout& layout, size_t chunk,
                           const std::vector<int>& read_before_skip, Recorder* out) {
  DataInput in(std::make_unique<FixedChunkSource>(bytes, chunk), "t-Data.db");
  PartitionReader reader(in, layout);
  Status status;
  for (size_t i = 0;; ++i) {
    Result<bool> started = reader.StartNext(*out);
    if (!started.ok()) {
      status = started.status();
      break;
    }
    if (!*started) break;
    int items = i < read_before_skip.size() ? read_before_skip[i] : -1;
    Result<bool> ended = reader.ReadItems(*out, items < 0 ? std::numeric_limits<size_t>::max() : items);
    if (ended.ok() && !*ended) status = reader.SkipItems(*out);
    if (!ended.ok()) status = ended.status();
    if (!status.ok()) break;
  }
  return Describe(*out, status);
}

TEST(DataReaderTest, SkippedPartitionsEndWhereTheirRowsDo) {
  DataLayout layout = MixedLayout();
  std::string data = MixedData();
  Recorder whole;
  ASSERT_TRUE(Decode(data, layout, &whole).ok());
  ASSERT_EQ(whole.partitions.size(), 2u);
  ASSERT_FALSE(whole.markers.empty());
  const uint64_t second = whole.partitions[1].position;
  // What a decode shows when partition `skipped` is passed over after its
  // first `kept` rows and markers (in position order), the other read whole.
  auto expected = [&](size_t skipped, int kept) {
    Recorder want;
    want.partitions = whole.partitions;
    want.ends = 2;
    auto in_skipped = [&](uint64_t position) { return (position >= second) == (skipped == 1); };
    std::vector<uint64_t> items;  // the skipped partition's non-static items, in order
    for (const Row& row : whole.rows) {
      if (in_skipped(row.position) && !row.is_static) items.push_back(row.position);
    }
    for (const RangeTombstoneMarker& m : whole.markers) {
      if (in_skipped(m.position)) items.push_back(m.position);
    }
    std::sort(items.begin(), items.end());
    auto wanted = [&](uint64_t position, bool is_static) {
      if (!in_skipped(position) || is_static) return true;
      return std::find(items.begin(), items.begin() + std::min<size_t>(kept, items.size()), position) !=
             items.begin() + std::min<size_t>(kept, items.size());
    };
    for (const Row& row : whole.rows) {
      if (wanted(row.position, row.is_static)) want.rows.push_back(row);
    }
    for (const RangeTombstoneMarker& m : whole.markers) {
      if (wanted(m.position, false)) want.markers.push_back(m);
    }
    return Describe(want, Status::OK());
  };
  for (size_t chunk = 1; chunk <= data.size(); ++chunk) {
    for (size_t skipped : {0, 1}) {
      for (int kept : {0, 1, 2}) {
        std::vector<int> plan = {-1, -1};
        plan[skipped] = kept;
        Recorder out;
        ASSERT_EQ(DecodeSkipping(data, layout, chunk, plan, &out), expected(skipped, kept))
            << "partition " << skipped << " skipped after " << kept << " items, chunks of " << chunk;
      }
    }
  }
}

// A Recorder that turns down the regular rows whose clustering it was told
// to, and counts the times it was asked.
class TurningDown : public Recorder {
 public:
  explicit TurningDown(std::vector<std::string> unwanted) : unwanted_(std::move(unwanted)) {}
  bool WantsRow(const Clustering& clustering) override {
    ++asked;
    std::string key;
    for (std::string_view v : clustering.values) key += StrCat(v.size(), ":", v, ";");
    return std::find(unwanted_.begin(), unwanted_.end(), key) == unwanted_.end();
  }
  static std::string KeyOf(const Row& row) {
    std::string key;
    for (std::string_view v : row.clustering.values) key += StrCat(v.size(), ":", v, ";");
    return key;
  }
  int asked = 0;

 private:
  std::vector<std::string> unwanted_;
};

TEST(DataReaderTest, RowsTurnedDownArePassedOverWithoutTheirCells) {
  DataLayout layout = MixedLayout();
  std::string data = MixedData();
  Recorder whole;
  ASSERT_TRUE(Decode(data, layout, &whole).ok());
  std::vector<const Row*> regular;
  for (const Row& row : whole.rows) {
    if (!row.is_static) regular.push_back(&row);
  }
  ASSERT_GE(regular.size(), 3u);
  // Every subset of the regular rows turned down, in chunks of every size:
  // the rest, the static rows, the markers and the partitions are as a
  // whole decode gives them.
  for (size_t mask = 0; mask < (size_t{1} << regular.size()); ++mask) {
    std::vector<std::string> unwanted;
    Recorder want;
    want.partitions = whole.partitions;
    want.markers = whole.markers;
    want.ends = whole.ends;
    for (size_t i = 0; i < regular.size(); ++i) {
      if (mask & (size_t{1} << i)) unwanted.push_back(TurningDown::KeyOf(*regular[i]));
    }
    for (const Row& row : whole.rows) {
      if (row.is_static || std::find(unwanted.begin(), unwanted.end(), TurningDown::KeyOf(row)) == unwanted.end()) {
        want.rows.push_back(row);
      }
    }
    const std::string expected = Describe(want, Status::OK());
    for (size_t chunk : {size_t{1}, size_t{3}, size_t{16}, data.size()}) {
      TurningDown out(unwanted);
      DataInput in(std::make_unique<FixedChunkSource>(data, chunk), "t-Data.db");
      PartitionReader reader(in, layout);
      Status status;
      while (true) {
        Result<bool> started = reader.StartNext(out);
        if (!started.ok() || !*started) {
          status = started.status();
          break;
        }
        Result<bool> ended = reader.ReadItems(out, std::numeric_limits<size_t>::max());
        if (!ended.ok()) {
          status = ended.status();
          break;
        }
      }
      ASSERT_EQ(Describe(out, status), expected) << "rows turned down: mask " << mask << ", chunks of " << chunk;
      EXPECT_GE(out.asked, static_cast<int>(regular.size()));
    }
  }
}

TEST(DataReaderTest, SkippingATruncatedPartitionIsACleanError) {
  DataLayout layout = MixedLayout();
  std::string data = MixedData();
  Recorder whole;
  ASSERT_TRUE(Decode(data, layout, &whole).ok());
  for (size_t cut = 0; cut < data.size(); ++cut) {
    Recorder out;
    std::string described = DecodeSkipping(data.substr(0, cut), layout, 3, {0, 0}, &out);
    bool at_partition_end = cut == whole.partitions[1].position;
    if (cut == 0 || at_partition_end) {
      EXPECT_EQ(described.substr(described.rfind("ends")), StrCat("ends ", cut == 0 ? 0 : 1, "\nOK\n")) << cut;
    } else {
      EXPECT_NE(described.find("Corruption"), std::string::npos) << "cut at " << cut << ": " << described;
      EXPECT_NE(described.find("t-Data.db"), std::string::npos) << described;
    }
  }
}

}  // namespace
}  // namespace cqlite
