#include "fold/sstable_source.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "source/table_sstables.h"
#include "io/file_system.h"
#include "util/strings.h"
#include "test_paths.h"

namespace cqlite {
namespace {

constexpr int64_t kNow = 1767225600;  // 2026-01-01
constexpr size_t kWhole = size_t{1} << 30;

void Describe(const FoldRow& row, std::ostringstream& out) {
  out << "[";
  for (const std::string& value : row.clustering.values) out << ToHex(value) << ",";
  out << " ts=" << row.liveness.timestamp << " ttl=" << row.liveness.ttl;
  for (const FoldColumn& column : row.columns) {
    out << " " << column.column << (column.is_complex ? "*" : "") << ":";
    for (const FoldCell& cell : column.cells) {
      out << ToHex(cell.path) << "=" << ToHex(cell.value) << "@" << cell.timestamp << "/" << cell.ttl << "/"
          << cell.local_deletion_time << ";";
    }
  }
  out << "]";
}

// Every live row of the table folded from its SSTables, each with its
// partition key and static row, whatever pieces they came in.
std::vector<std::string> FoldTable(const std::string& table_dir, size_t items_per_piece,
                                   size_t rows_per_piece) {
  FileSystem& fs = LocalFileSystem();
  auto table = OpenTableSSTables(fs, table_dir, "");
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  if (!table.ok()) return {};
  std::vector<std::unique_ptr<FoldSource>> sources;
  for (auto& sstable : table->sstables) {
    auto source = OpenSSTableFoldSource(*sstable, table->schema.table, items_per_piece);
    EXPECT_TRUE(source.ok()) << source.status().ToString();
    if (!source.ok()) return {};
    sources.push_back(std::move(*source));
  }
  auto fold =
      TableFold::Make(table->schema.table, table->partitioner, std::move(sources), kNow, rows_per_piece);
  EXPECT_TRUE(fold.ok()) << fold.status().ToString();
  if (!fold.ok()) return {};
  std::vector<std::string> rows;
  FoldedPartition partition;
  while (true) {
    auto more = (*fold)->Next(&partition);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    std::ostringstream head;
    head << ToHex(partition.key);
    if (partition.has_static_row) Describe(partition.static_row, head);
    for (const FoldRow& row : partition.rows) {
      std::ostringstream out;
      out << head.str() << " ";
      Describe(row, out);
      rows.push_back(out.str());
    }
  }
  return rows;
}

// Rows, columns and cells are reused from piece to piece: folding the
// example tables a row at a time must give what folding them whole gives.
TEST(SSTableFoldSourceTest, PiecesFoldAsWholePartitions) {
  for (const char* table :
       {"orders-c85b1a00ebce11f1ba4d733417774d07", "price_points-c868ae90ebce11f1ba4d733417774d07"}) {
    SCOPED_TRACE(table);
    const std::string dir = StrCat(CQLITE_SOURCE_DIR, "/examples/data/shop/", table);
    std::vector<std::string> whole = FoldTable(dir, kWhole, kWhole);
    ASSERT_FALSE(whole.empty());
    EXPECT_EQ(FoldTable(dir, 1, 1), whole);
    EXPECT_EQ(FoldTable(dir, 2, 3), whole);
  }
}

}  // namespace
}  // namespace cqlite
