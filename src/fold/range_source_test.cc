#include "fold/range_source.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "cassandra/table_sstables.h"
#include "fold/select_json.h"
#include "fold/sstable_source.h"
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

}  // namespace
}  // namespace cqlite
