// A table published by token ranges (MaterializeOptions::token_ranges): a
// run per part of the ring, in any order and racing each other, must give
// the table one run of the whole ring gives, each part's later runs only
// its own changes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "source/table_sstables.h"
#include "cassandra/token.h"
#include "catalog/sql_catalog.h"
#include "fold/sstable_source.h"
#include "fold/table_fold.h"
#include "materialize/materializer.h"
#include "materialize/table_view_testing.h"
#include "util/strings.h"
#include "test_paths.h"

namespace cqlite::materialize {
namespace {

namespace stdfs = std::filesystem;

constexpr char kExampleKeyspace[] = CQLITE_SOURCE_DIR "/examples/data/shop";
constexpr int64_t kNow = 1'800'000'000;

// Three parts of the ring, each holding live partitions of the table in
// `table_dir`: cut at the tokens of its first, middle and last partition, the
// first part also taking the ring's end past the last cut, as a node's vnodes
// are spread over the ring.
std::vector<Murmur3RangeSet> ThreeParts(const std::string& table_dir) {
  auto table = OpenTableSSTables(LocalFileSystem(), table_dir, "");
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  if (!table.ok()) return {};
  std::vector<std::unique_ptr<FoldSource>> sources;
  for (auto& sstable : table->sstables) {
    auto source = OpenSSTableFoldSource(*sstable, table->schema.table);
    EXPECT_TRUE(source.ok()) << source.status().ToString();
    if (!source.ok()) return {};
    sources.push_back(std::move(*source));
  }
  auto fold = TableFold::Make(table->schema.table, table->partitioner, std::move(sources), kNow);
  EXPECT_TRUE(fold.ok()) << fold.status().ToString();
  if (!fold.ok()) return {};
  std::vector<int64_t> tokens;  // in ring order, as the fold gives partitions
  FoldedPartition partition;
  while (true) {
    auto more = (*fold)->Next(&partition);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    tokens.push_back(Murmur3Token(partition.key));
  }
  EXPECT_GE(tokens.size(), 3u) << "the example table has too few partitions to split";
  if (tokens.size() < 3) return {};
  const int64_t a = tokens.front(), b = tokens[tokens.size() / 2], c = tokens.back();
  return {Murmur3RangeSet({Murmur3Range{INT64_MIN, a}, Murmur3Range{c + 1, INT64_MAX}}),
          Murmur3RangeSet({Murmur3Range{a + 1, b}}), Murmur3RangeSet({Murmur3Range{b + 1, c}})};
}

class TokenRangePartsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = stdfs::temp_directory_path() / StrCat("cqlite_parts_", getpid(), "_", info->name());
    stdfs::remove_all(dir_);
    stdfs::create_directories(dir_ / "shop");
    stdfs::copy_file(stdfs::path(kExampleKeyspace) / "schema.cql", dir_ / "shop" / "schema.cql");
    for (const auto& entry : stdfs::directory_iterator(kExampleKeyspace)) {
      if (entry.is_directory() && StartsWith(entry.path().filename().string(), "orders-")) {
        example_table_ = entry.path();
        table_dir_ = (dir_ / "shop" / entry.path().filename()).string();
      }
    }
    ASSERT_FALSE(table_dir_.empty());
    stdfs::create_directories(table_dir_);
    AddGeneration(1);
  }
  void TearDown() override { stdfs::remove_all(dir_); }

  // Flushes generation `n` of the example table into the table directory.
  void AddGeneration(int n) {
    for (const auto& entry : stdfs::directory_iterator(example_table_)) {
      if (StartsWith(entry.path().filename().string(), StrCat("oa-", n, "-"))) {
        stdfs::copy_file(entry.path(), stdfs::path(table_dir_) / entry.path().filename());
      }
    }
  }

  std::unique_ptr<catalog::SqlCatalog> Catalog(const std::string& name) {
    auto catalog = catalog::SqlCatalog::Open((dir_ / StrCat(name, ".db")).string());
    EXPECT_TRUE(catalog.ok()) << catalog.status().ToString();
    return catalog.ok() ? std::move(catalog).value() : nullptr;
  }

  MaterializeOptions Options(const std::string& warehouse, const Murmur3RangeSet& ranges, int threads = 1) {
    MaterializeOptions options;
    options.warehouse = (dir_ / warehouse).string();
    options.now_seconds = kNow;
    options.token_ranges = ranges;
    options.threads = threads;
    return options;
  }

  Result<TableReport> Run(catalog::SqlCatalog& catalog, const MaterializeOptions& options) {
    return MaterializeTable(LocalFileSystem(), catalog, table_dir_, options);
  }

  std::vector<std::string> Rows(catalog::SqlCatalog& catalog) {
    auto view = ReadTable(LocalFileSystem(), catalog);
    EXPECT_TRUE(view.ok()) << view.status().ToString();
    return view.ok() ? view->rows : std::vector<std::string>();
  }

  stdfs::path dir_;
  stdfs::path example_table_;
  std::string table_dir_;
};

TEST_F(TokenRangePartsTest, PartsRunOneAfterAnotherMakeTheWholeTable) {
  auto whole = Catalog("whole");
  auto parts = Catalog("parts");
  std::vector<Murmur3RangeSet> ranges = ThreeParts(table_dir_);
  ASSERT_EQ(ranges.size(), 3u);
  for (int generation : {1, 2}) {
    SCOPED_TRACE(StrCat("after generation ", generation));
    if (generation == 2) AddGeneration(2);
    auto all = Run(*whole, Options("whole", Murmur3RangeSet::WholeRing()));
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    EXPECT_FALSE(all->part_of_ring);
    int64_t rows = 0, appended = 0, deleted = 0;
    // In another order each time, with one and two threads.
    for (int k : generation == 1 ? std::vector<int>{2, 0, 1} : std::vector<int>{1, 2, 0}) {
      auto part = Run(*parts, Options("parts", ranges[k], generation));
      ASSERT_TRUE(part.ok()) << part.status().ToString();
      EXPECT_TRUE(part->committed) << part->message;
      EXPECT_TRUE(part->part_of_ring);
      EXPECT_GT(part->rows_total, 0) << "part " << k << " holds no row: the parts do not split the table";
      rows += part->rows_total;
      appended += part->rows_appended;
      deleted += part->rows_deleted;
    }
    EXPECT_EQ(rows, all->rows_total);
    EXPECT_EQ(appended, all->rows_appended);
    EXPECT_EQ(deleted, all->rows_deleted);
    std::vector<std::string> expected = Rows(*whole);
    ASSERT_FALSE(expected.empty());
    EXPECT_EQ(Rows(*parts), expected);
  }
  // Nothing new for any part.
  for (const Murmur3RangeSet& part : ranges) {
    auto again = Run(*parts, Options("parts", part));
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    EXPECT_FALSE(again->committed) << again->message;
    EXPECT_TRUE(StartsWith(again->message, "nothing new")) << again->message;
  }
}

TEST_F(TokenRangePartsTest, APartThatLosesTheRaceCommitsOnTopOfTheWinner) {
  auto parts = Catalog("parts");
  auto rival = Catalog("parts");  // another connection to the same catalog, as another process has
  std::vector<Murmur3RangeSet> ranges = ThreeParts(table_dir_);
  ASSERT_EQ(ranges.size(), 3u);
  ASSERT_TRUE(Run(*parts, Options("parts", ranges[0])).ok());
  AddGeneration(2);
  // Part 1 commits while part 2 is about to: part 2's compare-and-swap fails
  // and it goes on top of part 1's snapshot, without folding again.
  MaterializeOptions losing = Options("parts", ranges[2]);
  std::vector<std::string> lines;
  bool rival_ran = false;
  losing.progress = [&](const std::string& line) {
    lines.push_back(line);
    if (line == "committing" && !rival_ran) {
      rival_ran = true;
      auto winner = Run(*rival, Options("parts", ranges[1]));
      ASSERT_TRUE(winner.ok()) << winner.status().ToString();
      EXPECT_TRUE(winner->committed);
    }
  };
  auto lost = Run(*parts, losing);
  ASSERT_TRUE(lost.ok()) << lost.status().ToString();
  EXPECT_TRUE(lost->committed);
  EXPECT_EQ(lost->attempts, 1);
  EXPECT_EQ(std::count(lines.begin(), lines.end(), "committing"), 2);
  EXPECT_NE(std::find_if(lines.begin(), lines.end(),
                         [](const std::string& l) { return l.find("committing on top of its snapshot") != std::string::npos; }),
            lines.end());
  // Part 0 catches up with generation 2; then the table is the whole one.
  ASSERT_TRUE(Run(*parts, Options("parts", ranges[0])).ok());
  auto whole = Catalog("whole");
  ASSERT_TRUE(Run(*whole, Options("whole", Murmur3RangeSet::WholeRing())).ok());
  EXPECT_EQ(Rows(*parts), Rows(*whole));
  // The lost attempt's snapshot files are gone: every metadata file is one
  // the table's log or current pointer names.
  auto view = ReadTable(LocalFileSystem(), *parts);
  ASSERT_TRUE(view.ok());
  int metadata_files = 0;
  for (const auto& entry : stdfs::directory_iterator(dir_ / "parts" / "shop" / "orders" / "metadata")) {
    metadata_files += entry.path().string().ends_with(".metadata.json");
  }
  EXPECT_EQ(metadata_files, 4);  // one per committed snapshot
}

TEST_F(TokenRangePartsTest, WholeAndPartRunsDoNotMix) {
  std::vector<Murmur3RangeSet> ranges = ThreeParts(table_dir_);
  ASSERT_EQ(ranges.size(), 3u);
  auto whole = Catalog("whole");
  ASSERT_TRUE(Run(*whole, Options("whole", Murmur3RangeSet::WholeRing())).ok());
  auto refused = Run(*whole, Options("whole", ranges[0]));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().kind(), StatusKind::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("published whole"), std::string::npos) << refused.status().ToString();

  auto parts = Catalog("parts");
  ASSERT_TRUE(Run(*parts, Options("parts", ranges[0])).ok());
  refused = Run(*parts, Options("parts", Murmur3RangeSet::WholeRing()));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("published by token range (1 parts"), std::string::npos)
      << refused.status().ToString();
  // Ranges that overlap a part without being it: the ring changed.
  Murmur3RangeSet moved({{ranges[0].ranges()[0].first + 1000, ranges[0].ranges()[0].last}});
  refused = Run(*parts, Options("parts", moved));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("overlap"), std::string::npos) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find(table_dir_), std::string::npos) << refused.status().ToString();
}

}  // namespace
}  // namespace cqlite::materialize
