#include "fold/table_fold.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <sstream>

#include "cassandra/cql_schema.h"
#include "fold/reconcile.h"
#include "util/strings.h"

namespace cqlite {
namespace {

FoldCell Live(int64_t timestamp, std::string value) {
  FoldCell cell;
  cell.timestamp = timestamp;
  cell.value = std::move(value);
  return cell;
}
FoldCell Tombstone(int64_t timestamp, int64_t deleted_at = 1000) {
  FoldCell cell;
  cell.timestamp = timestamp;
  cell.local_deletion_time = deleted_at;
  return cell;
}
FoldCell Expiring(int64_t timestamp, std::string value, int32_t ttl, int64_t expires_at) {
  FoldCell cell = Live(timestamp, std::move(value));
  cell.ttl = ttl;
  cell.local_deletion_time = expires_at;
  return cell;
}

TEST(ReconcileTest, HigherTimestampWins) {
  EXPECT_EQ(ReconcileRegularCells(Live(2, "a"), Tombstone(1)).value, "a");
  EXPECT_TRUE(ReconcileRegularCells(Live(1, "a"), Tombstone(2)).IsTombstone());
}

// CASSANDRA-14592: on equal timestamps what will die beats what lives.
TEST(ReconcileTest, EqualTimestampTies) {
  EXPECT_TRUE(ReconcileRegularCells(Live(5, "z"), Tombstone(5)).IsTombstone());
  EXPECT_TRUE(ReconcileRegularCells(Tombstone(5), Live(5, "z")).IsTombstone());
  EXPECT_TRUE(ReconcileRegularCells(Live(5, "z"), Expiring(5, "a", 10, 2000)).IsExpiring());
  EXPECT_TRUE(ReconcileRegularCells(Expiring(5, "a", 10, 2000), Tombstone(5, 3000)).IsTombstone());
  // Two expiring cells: the later expiry, then the lower TTL.
  EXPECT_EQ(ReconcileRegularCells(Expiring(5, "a", 10, 2000), Expiring(5, "b", 10, 1999)).value, "a");
  EXPECT_EQ(ReconcileRegularCells(Expiring(5, "a", 20, 2000), Expiring(5, "b", 10, 2000)).value, "b");
  // Two live cells: the greater value, as unsigned bytes.
  EXPECT_EQ(ReconcileRegularCells(Live(5, "a"), Live(5, "\xff")).value, "\xff");
  EXPECT_EQ(ReconcileRegularCells(Live(5, "b"), Live(5, "a")).value, "b");
}

TEST(ReconcileTest, LivenessTies) {
  LivenessInfo plain{10, kNoTtl, kNoDeletionTime};
  LivenessInfo expiring{10, 60, 5000};
  LivenessInfo expired{10, kExpiredLivenessTtl, 4000};
  EXPECT_TRUE(Supersedes(expiring, plain));
  EXPECT_FALSE(Supersedes(plain, expiring));
  EXPECT_TRUE(Supersedes(expired, expiring));
  EXPECT_TRUE(Supersedes(LivenessInfo{11, kNoTtl, kNoDeletionTime}, expired));
}

std::string CounterContext(std::initializer_list<std::tuple<int, int64_t, int64_t>> global_shards) {
  std::string out;
  auto put = [&out](uint64_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  put(global_shards.size(), 2);
  for (size_t i = 0; i < global_shards.size(); ++i) put(static_cast<uint16_t>(static_cast<int>(i) - 32768), 2);
  for (auto [id, clock, count] : global_shards) {
    put(0, 8);
    put(static_cast<uint64_t>(id), 8);
    put(static_cast<uint64_t>(clock), 8);
    put(static_cast<uint64_t>(count), 8);
  }
  return out;
}

TEST(ReconcileTest, CounterShardsMerge) {
  // Node 1 counted 5 then 7 (clock 2 wins); node 2 counted 3.
  FoldCell a = Live(10, CounterContext({{1, 1, 5}, {2, 1, 3}}));
  FoldCell b = Live(20, CounterContext({{1, 2, 7}}));
  FoldCell merged = ReconcileCounterCells(a, b);
  EXPECT_EQ(merged.timestamp, 20);
  EXPECT_EQ(merged.value, CounterContext({{1, 2, 7}, {2, 1, 3}}));
  // A counter tombstone wins whatever its timestamp.
  EXPECT_TRUE(ReconcileCounterCells(b, Tombstone(1)).IsTombstone());
}

// A table: k int, c int (clustering), s int static, v text, l list<int>.
TableSchema TestSchema() {
  auto schemas = ParseCqlSchema(
      "CREATE TABLE ks.t (k int, c int, s int static, v text, m map<int, int>, PRIMARY KEY (k, c));");
  EXPECT_TRUE(schemas.ok()) << schemas.status().ToString();
  return schemas->at(0);
}

std::string Int(int32_t v) {
  std::string out;
  for (int i = 3; i >= 0; --i) out.push_back(static_cast<char>((static_cast<uint32_t>(v) >> (8 * i)) & 0xff));
  return out;
}

int ColumnIndex(const TableSchema& schema, std::string_view name) {
  return static_cast<int>(schema.FindColumn(name) - schema.columns.data());
}

FoldRow RowAt(int c) {
  FoldRow row;
  row.clustering.values = {Int(c)};
  row.clustering.present = {true};
  return row;
}

void AddSimple(const TableSchema& schema, FoldRow* row, std::string_view column, FoldCell cell) {
  FoldColumn& data = row->columns.emplace_back();
  data.column = ColumnIndex(schema, column);
  data.cells.push_back(std::move(cell));
  std::sort(row->columns.begin(), row->columns.end(),
            [](const FoldColumn& a, const FoldColumn& b) { return a.column < b.column; });
}

class VectorSource : public FoldSource {
 public:
  explicit VectorSource(std::vector<FoldPartition> partitions) : partitions_(std::move(partitions)) {}
  Result<bool> Next(FoldPartition* partition) override {
    if (next_ == partitions_.size()) return false;
    *partition = partitions_[next_++];
    return true;
  }
  const std::string& name() const override { return name_; }

 private:
  std::vector<FoldPartition> partitions_;
  size_t next_ = 0;
  std::string name_ = "test";
};

// Hands each partition on in pieces of 1 to `max_items` rows and markers,
// now and then an empty one.
class PieceSource : public FoldSource {
 public:
  PieceSource(std::vector<FoldPartition> partitions, size_t max_items, uint32_t seed)
      : partitions_(std::move(partitions)), max_items_(max_items), rng_(seed) {}
  Result<bool> Next(FoldPartition* partition) override {
    if (next_ == partitions_.size()) return false;
    whole_ = partitions_[next_++];
    *partition = whole_;
    partition->ClearItems();
    item_ = row_ = marker_ = 0;
    Fill(partition);
    return true;
  }
  Status More(FoldPartition* partition) override {
    partition->ClearItems();
    Fill(partition);
    return Status::OK();
  }
  const std::string& name() const override { return name_; }

 private:
  void Fill(FoldPartition* partition) {
    size_t items = rng_() % 5 == 0 ? 0 : 1 + rng_() % max_items_;
    for (; items > 0 && item_ < whole_.item_is_marker.size(); --items, ++item_) {
      bool is_marker = whole_.item_is_marker[item_];
      partition->item_is_marker.push_back(is_marker);
      if (is_marker) {
        partition->markers.push_back(whole_.markers[marker_++]);
      } else {
        partition->rows.push_back(whole_.rows[row_++]);
      }
    }
    partition->complete = item_ == whole_.item_is_marker.size();
  }

  std::vector<FoldPartition> partitions_;
  size_t max_items_;
  std::mt19937 rng_;
  size_t next_ = 0;
  FoldPartition whole_;
  size_t item_ = 0, row_ = 0, marker_ = 0;
  std::string name_ = "pieces";
};

std::string DescribeStatic(const FoldedPartition& p) {
  std::ostringstream out;
  out << "key=" << ToHex(p.key);
  if (p.has_static_row) {
    out << " static{";
    for (const auto& column : p.static_row.columns) {
      for (const auto& cell : column.cells) out << column.column << ":" << ToHex(cell.value) << ";";
    }
    out << "}";
  }
  return out.str();
}

std::string DescribeRows(const FoldedPartition& p) {
  std::ostringstream out;
  for (const FoldRow& row : p.rows) {
    out << " row(" << ToHex(row.clustering.values.at(0)) << " pk=" << IsLive(row.liveness, 1500) << ")[";
    for (const auto& column : row.columns) {
      for (const auto& cell : column.cells) out << column.column << ":" << ToHex(cell.path) << "=" << ToHex(cell.value) << ";";
    }
    out << "]";
  }
  return out.str();
}

// The folded partitions, described; pieces of one partition are joined.
// With `max_items`, every source hands partitions on in pieces of at most so
// many rows and markers; the fold hands rows on `rows_per_piece` at a time.
std::vector<std::string> FoldAll(const TableSchema& schema, const std::vector<std::vector<FoldPartition>>& generations,
                                 int64_t now, size_t max_items = 0,
                                 size_t rows_per_piece = TableFold::kRowsPerPiece) {
  std::vector<std::unique_ptr<FoldSource>> sources;
  uint32_t seed = 1;
  for (const auto& generation : generations) {
    if (max_items == 0) {
      sources.push_back(std::make_unique<VectorSource>(generation));
    } else {
      sources.push_back(std::make_unique<PieceSource>(generation, max_items, seed++));
    }
  }
  auto fold = TableFold::Make(schema, Partitioner::kMurmur3, std::move(sources), now, rows_per_piece);
  EXPECT_TRUE(fold.ok());
  std::vector<std::string> out;
  std::string last_key, last_head;
  FoldedPartition partition;
  while (true) {
    auto more = (*fold)->Next(&partition);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    std::string head = DescribeStatic(partition);
    if (!out.empty() && partition.key == last_key) {
      // A later piece: the same static row, and rows.
      EXPECT_EQ(head, last_head);
      EXPECT_FALSE(partition.rows.empty()) << "a later piece without rows";
      EXPECT_LE(partition.rows.size(), rows_per_piece + max_items * generations.size());
      out.back() += DescribeRows(partition);
    } else {
      out.push_back(head + DescribeRows(partition));
    }
    last_key = partition.key;
    last_head = head;
  }
  return out;
}

FoldPartition Partition(int32_t k) {
  FoldPartition p;
  p.key = Int(k);
  return p;
}

void AddRow(FoldPartition* p, FoldRow row) {
  p->rows.push_back(std::move(row));
  p->item_is_marker.push_back(false);
}

void AddMarker(FoldPartition* p, ClusteringKind kind, std::vector<int> bound, DeletionTime deletion) {
  FoldMarker& marker = p->markers.emplace_back();
  marker.kind = kind;
  for (int v : bound) {
    marker.bound.values.push_back(Int(v));
    marker.bound.present.push_back(true);
  }
  marker.deletion = deletion;
  p->item_is_marker.push_back(true);
}

TEST(TableFoldTest, RangeTombstoneOfOneGenerationShadowsOlderRowsOfAnother) {
  TableSchema schema = TestSchema();
  FoldPartition old_rows = Partition(1);
  for (int c : {1, 2, 3, 4}) {
    FoldRow row = RowAt(c);
    row.liveness = {10, kNoTtl, kNoDeletionTime};
    AddSimple(schema, &row, "v", Live(10, "old"));
    AddRow(&old_rows, std::move(row));
  }
  // Generation 2: DELETE WHERE k = 1 AND c >= 2 AND c < 4 at timestamp 20, then c = 3 rewritten at 30.
  FoldPartition deletes = Partition(1);
  AddMarker(&deletes, ClusteringKind::kInclStartBound, {2}, {20, 1000});
  FoldRow rewritten = RowAt(3);
  AddSimple(schema, &rewritten, "v", Live(30, "new"));
  AddRow(&deletes, std::move(rewritten));
  AddMarker(&deletes, ClusteringKind::kExclEndBound, {4}, {20, 1000});

  auto rows = FoldAll(schema, {{old_rows}, {deletes}}, 1500);
  ASSERT_EQ(rows.size(), 1u);
  int v = ColumnIndex(schema, "v");
  std::string expected = "key=00000001 row(00000001 pk=1)[" + std::to_string(v) + ":=6f6c64;]" +
                         " row(00000003 pk=0)[" + std::to_string(v) + ":=6e6577;]" +
                         " row(00000004 pk=1)[" + std::to_string(v) + ":=6f6c64;]";
  EXPECT_EQ(rows[0], expected);
}

TEST(TableFoldTest, PartitionDeletionCoversStaticRowAndComplexDeletionClearsOlderElements) {
  TableSchema schema = TestSchema();
  int s = ColumnIndex(schema, "s");
  int m = ColumnIndex(schema, "m");
  FoldPartition first = Partition(7);
  first.has_static_row = true;
  AddSimple(schema, &first.static_row, "s", Live(10, Int(1)));
  FoldRow row = RowAt(1);
  FoldColumn& map = row.columns.emplace_back();
  map.column = m;
  map.is_complex = true;
  map.cells = {Live(10, Int(100)), Live(10, Int(200))};
  map.cells[0].path = Int(1);
  map.cells[1].path = Int(2);
  AddRow(&first, std::move(row));

  // Later: the map is overwritten (complex deletion at 19, element at 20) and
  // the partition deleted at 15, which removes the static cell written at 10.
  FoldPartition second = Partition(7);
  second.deletion = {15, 1000};
  FoldRow overwrite = RowAt(1);
  FoldColumn& map2 = overwrite.columns.emplace_back();
  map2.column = m;
  map2.is_complex = true;
  map2.complex_deletion = {19, 1000};
  map2.cells = {Live(20, Int(300))};
  map2.cells[0].path = Int(3);
  AddRow(&second, std::move(overwrite));

  auto rows = FoldAll(schema, {{first}, {second}}, 1500);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0], "key=00000007 row(00000001 pk=0)[" + std::to_string(m) + ":00000003=0000012c;]");
  (void)s;
}

TEST(TableFoldTest, TtlExpiresAsOfNow) {
  TableSchema schema = TestSchema();
  FoldPartition p = Partition(2);
  FoldRow row = RowAt(1);
  row.liveness = {10, 100, 1100};
  AddSimple(schema, &row, "v", Expiring(10, "x", 100, 1100));
  AddRow(&p, std::move(row));
  EXPECT_EQ(FoldAll(schema, {{p}}, 1099).size(), 1u);
  EXPECT_EQ(FoldAll(schema, {{p}}, 1100).size(), 0u);
}

// Random generations of a few partitions: folding them in any order, or
// with a generation repeated, gives the same rows.
std::vector<FoldPartition> RandomGeneration(const TableSchema& schema, std::mt19937& rng) {
  std::vector<int32_t> keys = {1, 2, 3, 4, 5};
  std::vector<FoldPartition> out;
  auto ts = [&rng] { return static_cast<int64_t>(rng() % 6); };  // few timestamps: many ties
  int m = ColumnIndex(schema, "m");
  for (int32_t k : keys) {
    if (rng() % 3 == 0) continue;
    FoldPartition p = Partition(k);
    if (rng() % 6 == 0) p.deletion = {ts(), 1000};
    if (rng() % 2 == 0) {
      p.has_static_row = true;
      AddSimple(schema, &p.static_row, "s", rng() % 4 ? Live(ts(), Int(rng() % 3)) : Tombstone(ts()));
    }
    // Range bounds before the row at c (exclusive end, inclusive start) and
    // after it (inclusive end, exclusive start), so each version stays in
    // clustering order.
    int open_at = -1;
    for (int c = 0; c < 6; ++c) {
      if (open_at >= 0 && open_at < c && rng() % 6 == 0) {
        AddMarker(&p, ClusteringKind::kExclEndBound, {c}, p.markers.back().deletion);
        open_at = -1;
      }
      if (open_at < 0 && rng() % 5 == 0) {
        AddMarker(&p, ClusteringKind::kInclStartBound, {c}, {ts(), 1000});
        open_at = c;
      }
      if (rng() % 2 == 0) {
        FoldRow row = RowAt(c);
        if (rng() % 2) row.liveness = {ts(), kNoTtl, kNoDeletionTime};
        if (rng() % 7 == 0) row.deletion = {ts(), 1000};
        int kind = static_cast<int>(rng() % 4);
        if (kind == 0) AddSimple(schema, &row, "v", Live(ts(), std::string(1, static_cast<char>('a' + rng() % 3))));
        if (kind == 1) AddSimple(schema, &row, "v", Tombstone(ts()));
        if (kind == 2) AddSimple(schema, &row, "v", Expiring(ts(), "e", 10, 1000 + static_cast<int64_t>(rng() % 1000)));
        if (rng() % 2) {
          FoldColumn& map = row.columns.emplace_back();
          map.column = m;
          map.is_complex = true;
          if (rng() % 3 == 0) map.complex_deletion = {ts(), 1000};
          for (int key = 0; key < 3; ++key) {
            if (rng() % 2) continue;
            FoldCell cell = rng() % 4 ? Live(ts(), Int(rng() % 5)) : Tombstone(ts());
            cell.path = Int(key);
            map.cells.push_back(std::move(cell));
          }
          std::sort(row.columns.begin(), row.columns.end(),
                    [](const FoldColumn& a, const FoldColumn& b) { return a.column < b.column; });
        }
        AddRow(&p, std::move(row));
      }
      if (open_at >= 0 && open_at < c && rng() % 3 == 0) {
        AddMarker(&p, ClusteringKind::kInclEndBound, {c}, p.markers.back().deletion);
        open_at = -1;
      }
      if (open_at < 0 && rng() % 8 == 0) {
        AddMarker(&p, ClusteringKind::kExclStartBound, {c}, {ts(), 1000});
        open_at = c;
      }
    }
    if (open_at >= 0) AddMarker(&p, ClusteringKind::kInclEndBound, {5}, p.markers.back().deletion);
    out.push_back(std::move(p));
  }
  PartitionKeyLess less{Partitioner::kMurmur3};
  std::sort(out.begin(), out.end(), [&less](const FoldPartition& a, const FoldPartition& b) { return less(a.key, b.key); });
  return out;
}

TEST(TableFoldTest, OrderIndependentAndIdempotent) {
  TableSchema schema = TestSchema();
  std::mt19937 rng(20261129);
  int nonempty = 0;
  for (int round = 0; round < 300; ++round) {
    std::vector<std::vector<FoldPartition>> generations;
    for (int g = 0; g < 3; ++g) generations.push_back(RandomGeneration(schema, rng));
    auto expected = FoldAll(schema, generations, 1500);
    nonempty += !expected.empty();
    std::vector<int> order = {0, 1, 2};
    while (std::next_permutation(order.begin(), order.end())) {
      std::vector<std::vector<FoldPartition>> permuted;
      for (int i : order) permuted.push_back(generations[i]);
      ASSERT_EQ(FoldAll(schema, permuted, 1500), expected) << "round " << round;
    }
    auto doubled = generations;
    doubled.push_back(generations[1]);
    doubled.push_back(generations[0]);
    ASSERT_EQ(FoldAll(schema, doubled, 1500), expected) << "round " << round;
  }
  EXPECT_GT(nonempty, 200);  // the property is not vacuous
}

// Every row the fold hands on (and every static row) knows when its
// liveness or the first of its cells expires, as a pass over what it holds
// finds: shadowed, deleted and expired cells left out.
TEST(TableFoldTest, RowsKnowTheirEarliestExpiry) {
  TableSchema schema = TestSchema();
  std::mt19937 rng(20261206);
  auto earliest = [](const FoldRow& row) {
    int64_t t = row.liveness.IsExpiring() ? row.liveness.local_expiration_time : INT64_MAX;
    for (const FoldColumn& column : row.columns) {
      for (const FoldCell& cell : column.cells) {
        if (cell.IsExpiring()) t = std::min(t, cell.local_deletion_time);
      }
    }
    return t;
  };
  int rows = 0, expiring = 0;
  for (int round = 0; round < 200; ++round) {
    std::vector<std::unique_ptr<FoldSource>> sources;
    for (int g = 0; g < 3; ++g) {
      std::vector<FoldPartition> generation = RandomGeneration(schema, rng);
      for (FoldPartition& p : generation) {
        for (FoldRow& row : p.rows) {
          if (rng() % 3 == 0) row.liveness = {static_cast<int64_t>(rng() % 6), 100, 1000 + static_cast<int64_t>(rng() % 1000)};
        }
      }
      sources.push_back(std::make_unique<VectorSource>(std::move(generation)));
    }
    auto fold = TableFold::Make(schema, Partitioner::kMurmur3, std::move(sources), 1500);
    ASSERT_TRUE(fold.ok());
    FoldedPartition partition;
    while (true) {
      auto more = (*fold)->Next(&partition);
      ASSERT_TRUE(more.ok()) << more.status().ToString();
      if (!*more) break;
      if (partition.has_static_row) {
        ASSERT_EQ(partition.static_row.earliest_expiry, earliest(partition.static_row)) << "round " << round;
      }
      for (const FoldRow& row : partition.rows) {
        ++rows;
        expiring += row.earliest_expiry != INT64_MAX;
        ASSERT_EQ(row.earliest_expiry, earliest(row)) << "round " << round;
      }
    }
  }
  EXPECT_GT(expiring, 100);  // not vacuous: many rows expire, and many do not
  EXPECT_GT(rows - expiring, 100);
}

// Partitions read in pieces, and folded rows handed on in pieces, fold as
// whole ones: a row or range met in one piece of one generation is merged
// with the same clustering in another's later piece.
TEST(TableFoldTest, PiecesFoldAsWholePartitions) {
  TableSchema schema = TestSchema();
  std::mt19937 rng(20261130);
  int split = 0;
  for (int round = 0; round < 300; ++round) {
    std::vector<std::vector<FoldPartition>> generations;
    for (int g = 0; g < 3; ++g) generations.push_back(RandomGeneration(schema, rng));
    auto expected = FoldAll(schema, generations, 1500);
    for (size_t max_items : {1, 2, 3}) {
      for (size_t rows_per_piece : {1, 2, 4096}) {
        ASSERT_EQ(FoldAll(schema, generations, 1500, max_items, rows_per_piece), expected)
            << "round " << round << ", pieces of at most " << max_items << " items, " << rows_per_piece
            << " rows handed on at a time";
      }
    }
    for (const std::string& partition : expected) split += std::count(partition.begin(), partition.end(), '(') > 1;
  }
  EXPECT_GT(split, 300);  // many partitions had rows to split
}

// The generations merged into one (TableFold::NextMerged), each partition
// whole; sources hand partitions on in pieces of at most `max_items` (0:
// whole), and the merge hands them on `items_per_piece` at a time.
std::vector<FoldPartition> MergeAll(const TableSchema& schema,
                                    const std::vector<std::vector<FoldPartition>>& generations, size_t max_items,
                                    size_t items_per_piece) {
  std::vector<std::unique_ptr<FoldSource>> sources;
  uint32_t seed = 7;
  for (const auto& generation : generations) {
    if (max_items == 0) {
      sources.push_back(std::make_unique<VectorSource>(generation));
    } else {
      sources.push_back(std::make_unique<PieceSource>(generation, max_items, seed++));
    }
  }
  auto merge = TableFold::Make(schema, Partitioner::kMurmur3, std::move(sources), 0, items_per_piece);
  EXPECT_TRUE(merge.ok());
  std::vector<FoldPartition> out;
  FoldPartition piece;
  bool continues = false;
  while (true) {
    auto more = (*merge)->NextMerged(&piece);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    if (!continues) {
      out.push_back(piece);
    } else {
      FoldPartition& whole = out.back();
      whole.rows.insert(whole.rows.end(), piece.rows.begin(), piece.rows.end());
      whole.markers.insert(whole.markers.end(), piece.markers.begin(), piece.markers.end());
      whole.item_is_marker.insert(whole.item_is_marker.end(), piece.item_is_marker.begin(),
                                  piece.item_is_marker.end());
    }
    continues = !piece.complete;
    out.back().complete = true;
  }
  EXPECT_FALSE(continues) << "the last piece said more was to come";
  return out;
}

// Merging generations as a compaction would, purging nothing, then folding
// the merge, gives what folding the generations gives: merged all at once,
// in steps, with a generation twice, and read and handed on in pieces.
TEST(TableFoldTest, MergedGenerationsFoldAsTheGenerations) {
  TableSchema schema = TestSchema();
  std::mt19937 rng(20261131);
  size_t rows_in = 0, rows_merged = 0, markers_merged = 0, deleted_partitions = 0;
  for (int round = 0; round < 300; ++round) {
    std::vector<std::vector<FoldPartition>> generations;
    for (int g = 0; g < 3; ++g) generations.push_back(RandomGeneration(schema, rng));
    for (int64_t now : {1200, 1500, 1900}) {
      auto expected = FoldAll(schema, generations, now);
      ASSERT_EQ(FoldAll(schema, {MergeAll(schema, generations, 0, 4096)}, now), expected) << "round " << round;
      ASSERT_EQ(FoldAll(schema, {MergeAll(schema, generations, 2, 3)}, now), expected) << "round " << round;
      auto first_two = MergeAll(schema, {generations[0], generations[1]}, 1, 1);
      ASSERT_EQ(FoldAll(schema, {first_two, generations[2]}, now), expected) << "round " << round;
      ASSERT_EQ(FoldAll(schema, {MergeAll(schema, {first_two, generations[2], generations[0]}, 0, 2)}, now),
                expected)
          << "round " << round;
    }
    for (const auto& generation : generations) {
      for (const FoldPartition& p : generation) rows_in += p.rows.size();
    }
    for (const FoldPartition& p : MergeAll(schema, generations, 0, 4096)) {
      rows_merged += p.rows.size();
      markers_merged += p.markers.size();
      deleted_partitions += !p.deletion.IsLive();
    }
  }
  // Not vacuous: rows of one clustering became one; deletions were kept.
  EXPECT_LT(rows_merged, rows_in * 3 / 4);
  EXPECT_GT(markers_merged, 300u);
  EXPECT_GT(deleted_partitions, 100u);
}

}  // namespace
}  // namespace cqlite
