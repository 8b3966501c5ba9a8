#include "fold/range_source.h"

#include <algorithm>
#include <filesystem>
#include <optional>

#include <gtest/gtest.h>

#include "source/table_sstables.h"
#include "fold/select_json.h"
#include "fold/sstable_source.h"
#include "io/temp_dir_testing.h"
#include "test_paths.h"

namespace cqlite {
namespace {

// SELECT JSON lines of the example table `name` (two generations), folded
// over the partitions of `range`.
std::vector<std::string> FoldRange(const TableSSTables& table, Murmur3Range range, size_t items_per_piece) {
  std::vector<std::unique_ptr<FoldSource>> sources;
  for (const auto& sstable : table.sstables) {
    auto source = OpenSSTableFoldSource(*sstable, table.schema.table, items_per_piece);
    EXPECT_TRUE(source.ok()) << source.status().ToString();
    if (source.ok()) sources.push_back(RestrictToRange(std::move(*source), range));
  }
  auto fold = TableFold::Make(table.schema.table, table.partitioner, std::move(sources), 1800000000);
  EXPECT_TRUE(fold.ok()) << fold.status().ToString();
  if (!fold.ok()) return {};
  SelectJsonRenderer renderer(table.schema.table);
  std::vector<std::string> lines;
  FoldedPartition partition;
  while (true) {
    auto more = (*fold)->Next(&partition);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    EXPECT_TRUE(renderer.Render(partition, &lines).ok());
  }
  return lines;
}

TEST(RangeFoldSourceTest, FoldsOverRangesMakeTheWholeFold) {
  std::string keyspace = std::string(CQLITE_SOURCE_DIR) + "/examples/data/shop";
  int tables = 0;
  for (const auto& entry : std::filesystem::directory_iterator(keyspace)) {
    if (!entry.is_directory()) continue;  // schema.cql
    auto table = OpenTableSSTables(LocalFileSystem(), entry.path().string(), "");
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    ASSERT_EQ(table->partitioner, Partitioner::kMurmur3);
    ++tables;
    std::vector<std::string> whole = FoldRange(*table, Murmur3Range{}, kSSTableItemsPerPiece);
    ASSERT_GT(whole.size(), 3u);
    for (int count : {2, 3, 16}) {
      for (size_t piece : {size_t{1}, kSSTableItemsPerPiece}) {
        SCOPED_TRACE(entry.path().string() + " in " + std::to_string(count) + " ranges, pieces of " +
                     std::to_string(piece));
        std::vector<std::string> joined;
        int nonempty = 0;
        for (const Murmur3Range& range : SplitMurmur3Ring(count)) {
          std::vector<std::string> part = FoldRange(*table, range, piece);
          nonempty += !part.empty();
          joined.insert(joined.end(), part.begin(), part.end());
        }
        EXPECT_EQ(joined, whole);
        EXPECT_GT(nonempty, 1);  // the ranges did split the table
      }
    }
  }
  EXPECT_EQ(tables, 2);
}

// Partitions with the given keys, in the order given, and a key span of
// its own choosing; counts the partitions asked for.
class ListedSource final : public FoldSource {
 public:
  ListedSource(std::vector<std::string> keys, std::optional<PartitionKeySpan> span, int* reads)
      : keys_(std::move(keys)), span_(std::move(span)), reads_(reads) {}
  Result<bool> Next(FoldPartition* partition) override {
    if (next_ == keys_.size()) return false;
    ++*reads_;
    partition->Clear();
    partition->key = keys_[next_++];
    return true;
  }
  const std::string& name() const override { return name_; }
  std::optional<PartitionKeySpan> key_span() const override { return span_; }

 private:
  std::vector<std::string> keys_;
  std::optional<PartitionKeySpan> span_;
  int* reads_;
  size_t next_ = 0;
  std::string name_ = "listed-Data.db";
};

// Keys 0..n-1 as 4-byte ints, in token order.
std::vector<std::string> KeysInTokenOrder(int n) {
  std::vector<std::string> keys;
  for (int i = 0; i < n; ++i) keys.push_back(std::string("\0\0\0", 3) + static_cast<char>(i));
  std::sort(keys.begin(), keys.end(),
            [](const std::string& a, const std::string& b) { return Murmur3Token(a) < Murmur3Token(b); });
  return keys;
}

TEST(RangeFoldSourceTest, ASourceWhoseKeysLieOutsideTheRangeIsNotRead) {
  std::vector<std::string> keys = KeysInTokenOrder(40);
  PartitionKeySpan span{keys.front(), keys.back()};
  int64_t first = Murmur3Token(keys.front()), last = Murmur3Token(keys.back());
  ASSERT_LT(first, last);
  for (Murmur3Range range : {Murmur3Range{INT64_MIN, first - 1}, Murmur3Range{last + 1, INT64_MAX}}) {
    int reads = 0;
    auto source = RestrictToRange(std::make_unique<ListedSource>(keys, span, &reads), range);
    FoldPartition partition;
    auto more = source->Next(&partition);
    ASSERT_TRUE(more.ok()) << more.status().ToString();
    EXPECT_FALSE(*more);
    EXPECT_EQ(reads, 0);
  }
  // Without a span the same source is read up to the range (or through it).
  int reads = 0;
  auto source = RestrictToRange(std::make_unique<ListedSource>(keys, std::nullopt, &reads),
                                Murmur3Range{last + 1, INT64_MAX});
  FoldPartition partition;
  ASSERT_FALSE(*source->Next(&partition));
  EXPECT_EQ(reads, 40);
}

TEST(RangeFoldSourceTest, APartitionPastTheSpansLastKeyIsCorruption) {
  // The span claims the source ends at key 19: a reader of the range after
  // it would pass the source over and lose keys 20 to 39.
  std::vector<std::string> keys = KeysInTokenOrder(40);
  PartitionKeySpan span{keys.front(), keys[19]};
  int reads = 0;
  auto source = RestrictToRange(std::make_unique<ListedSource>(keys, span, &reads),
                                Murmur3Range{INT64_MIN, Murmur3Token(keys[9])});
  FoldPartition partition;
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(*source->Next(&partition));
  // Key 10 is past the range but within the span: the range ends cleanly.
  auto end = source->Next(&partition);
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(*end);
  reads = 0;
  source = RestrictToRange(std::make_unique<ListedSource>(keys, span, &reads),
                           Murmur3Range{INT64_MIN, Murmur3Token(keys[25])});
  for (int i = 0; i < 26; ++i) ASSERT_TRUE(*source->Next(&partition));
  end = source->Next(&partition);
  ASSERT_FALSE(end.ok());
  EXPECT_EQ(end.status().kind(), StatusKind::kCorruption);
  EXPECT_NE(end.status().message().find("listed-Data.db"), std::string::npos) << end.status().ToString();
}

TEST(SSTableFoldSourceTest, TheKeySpanIsTheFilesFirstAndLastPartition) {
  std::string keyspace = std::string(CQLITE_SOURCE_DIR) + "/examples/data/shop";
  int spans = 0;
  for (const auto& entry : std::filesystem::directory_iterator(keyspace)) {
    if (!entry.is_directory()) continue;
    auto table = OpenTableSSTables(LocalFileSystem(), entry.path().string(), "");
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    for (const auto& sstable : table->sstables) {
      auto source = OpenSSTableFoldSource(*sstable, table->schema.table);
      ASSERT_TRUE(source.ok()) << source.status().ToString();
      std::optional<PartitionKeySpan> span = (*source)->key_span();
      if (!span) continue;
      ++spans;
      std::vector<std::string> keys;
      FoldPartition partition;
      while (true) {
        auto more = (*source)->Next(&partition);
        ASSERT_TRUE(more.ok()) << more.status().ToString();
        if (!*more) break;
        keys.push_back(partition.key);
        ASSERT_TRUE((*source)->SkipRest(&partition).ok());
      }
      ASSERT_FALSE(keys.empty());
      EXPECT_EQ(span->first, keys.front()) << sstable->location().DataPath();
      EXPECT_EQ(span->last, keys.back()) << sstable->location().DataPath();
    }
  }
  EXPECT_GT(spans, 0);  // Cassandra 5.0 records them
}

// Each partition a source hands on: its key and the clusterings of its rows.
using PartitionRows = std::pair<std::string, std::vector<std::vector<std::string>>>;

TEST(SSTableFoldSourceTest, PartitionsTurnedDownByKeyArePassedOver) {
  std::string keyspace = std::string(CQLITE_SOURCE_DIR) + "/examples/data/shop";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(keyspace)) {
    if (!entry.is_directory()) continue;
    auto table = OpenTableSSTables(LocalFileSystem(), entry.path().string(), "");
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    for (const auto& sstable : table->sstables) {
      // Pieces of one row, so that a partition taken is read in several.
      auto read = [&](const FoldSource::KeyTest* skip) {
        std::vector<PartitionRows> got;
        auto source = OpenSSTableFoldSource(*sstable, table->schema.table, 1);
        EXPECT_TRUE(source.ok()) << source.status().ToString();
        FoldPartition partition;
        while (true) {
          auto more = skip ? (*source)->NextNotSkipped(&partition, *skip) : (*source)->Next(&partition);
          EXPECT_TRUE(more.ok()) << more.status().ToString();
          if (!more.ok() || !*more) break;
          PartitionRows& rows = got.emplace_back(partition.key, std::vector<std::vector<std::string>>{});
          while (true) {
            for (const FoldRow& row : partition.rows) rows.second.push_back(row.clustering.values);
            if (partition.complete) break;
            EXPECT_TRUE((*source)->More(&partition).ok());
          }
        }
        return got;
      };
      std::vector<PartitionRows> all = read(nullptr);
      if (all.size() < 2) continue;
      ++checked;
      // Every other partition, by key.
      std::vector<PartitionRows> want;
      for (size_t i = 0; i < all.size(); i += 2) want.push_back(all[i]);
      FoldSource::KeyTest skip = [&](std::string_view key) {
        for (size_t i = 1; i < all.size(); i += 2) {
          if (all[i].first == key) return true;
        }
        return false;
      };
      EXPECT_EQ(read(&skip), want) << sstable->location().DataPath();
      FoldSource::KeyTest skip_all = [](std::string_view) { return true; };
      EXPECT_TRUE(read(&skip_all).empty());
    }
  }
  EXPECT_GT(checked, 0);
}

TEST(SSTableFoldSourceTest, AKeySpanThatIsNotTheFilesIsCorruption) {
  // The example table's two generations begin at different partitions; with
  // their Statistics.db swapped, each names the other's first key.
  namespace stdfs = std::filesystem;
  const std::string keyspace = std::string(CQLITE_SOURCE_DIR) + "/examples/data/shop";
  std::string example;
  for (const auto& entry : stdfs::directory_iterator(keyspace)) {
    if (entry.path().filename().string().rfind("price_points-", 0) == 0) example = entry.path().string();
  }
  ASSERT_FALSE(example.empty());
  TempDir temp("cqlite-key-span-test");
  const std::string table_dir = JoinPath(temp.path(), "shop/" + stdfs::path(example).filename().string());
  stdfs::create_directories(table_dir);
  stdfs::copy_file(keyspace + "/schema.cql", JoinPath(temp.path(), "shop/schema.cql"));
  for (const auto& entry : stdfs::directory_iterator(example)) {
    std::string name = entry.path().filename().string();
    if (name == "oa-1-big-Statistics.db") {
      name = "oa-2-big-Statistics.db";
    } else if (name == "oa-2-big-Statistics.db") {
      name = "oa-1-big-Statistics.db";
    }
    stdfs::copy_file(entry.path(), JoinPath(table_dir, name));
  }
  auto table = OpenTableSSTables(LocalFileSystem(), table_dir, "");
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  ASSERT_EQ(table->sstables.size(), 2u);
  for (const auto& sstable : table->sstables) {
    auto source = OpenSSTableFoldSource(*sstable, table->schema.table);
    ASSERT_TRUE(source.ok()) << source.status().ToString();
    ASSERT_TRUE((*source)->key_span().has_value());
    FoldPartition partition;
    auto first = (*source)->Next(&partition);
    ASSERT_FALSE(first.ok()) << sstable->location().DataPath();
    EXPECT_EQ(first.status().kind(), StatusKind::kCorruption);
    EXPECT_EQ(first.status().message(),
              sstable->location().DataPath() +
                  ": Statistics.db gives another first partition key than the file holds (0 partitions read)");
  }
}

}  // namespace
}  // namespace cqlite
