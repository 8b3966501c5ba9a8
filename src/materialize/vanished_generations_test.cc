// A complete source whose consumed generations vanish (a compaction took
// them): the run drops their kept facts and folds again the rows they held,
// from the facts of the generations still there, and the table equals one
// made from those generations alone.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "catalog/sql_catalog.h"
#include "materialize/example_orders_testing.h"
#include "materialize/materializer.h"
#include "materialize/table_view_testing.h"
#include "util/strings.h"

namespace cqlite::materialize {
namespace {

namespace stdfs = std::filesystem;

constexpr int64_t kNow = 1'800'000'000;

class VanishedGenerationsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ExampleOrders::Load(); }
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = stdfs::temp_directory_path() / StrCat("cqlite_vanished_", getpid(), "_", info->name());
    stdfs::remove_all(dir_);
    stdfs::create_directories(dir_);
  }
  void TearDown() override { stdfs::remove_all(dir_); }

  std::unique_ptr<catalog::SqlCatalog> Catalog(const std::string& name) {
    auto catalog = catalog::SqlCatalog::Open((dir_ / StrCat(name, ".db")).string());
    EXPECT_TRUE(catalog.ok()) << catalog.status().ToString();
    return catalog.ok() ? std::move(catalog).value() : nullptr;
  }

  TableReport Materialize(MemoryFileSystem& fs, catalog::SqlCatalog& catalog, const std::string& warehouse,
                          bool fold_touched_rows) {
    MaterializeOptions options;
    options.warehouse = warehouse;
    options.now_seconds = kNow;
    options.complete_source = true;
    options.fold_touched_rows = fold_touched_rows;
    auto report = MaterializeTable(fs, catalog, ExampleOrders::table_dir(), options);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    return report.ok() ? *report : TableReport();
  }

  // Removes generation `n`'s SSTable from the source.
  static void RemoveGeneration(MemoryFileSystem& fs, int n) {
    for (const auto& [path, contents] : AllFiles(fs, ExampleOrders::table_dir())) {
      if (StartsWith(BaseName(path), StrCat("oa-", n, "-"))) ASSERT_TRUE(fs.Remove(path).ok()) << path;
    }
  }

  stdfs::path dir_;
};

TEST_F(VanishedGenerationsTest, TheRowsOfVanishedGenerationsAreFoldedAgainFromThoseLeft) {
  // What the two generations' table shows with the first gone, made from
  // the second alone.
  MemoryFileSystem only_second;
  ExampleOrders::AddSource(only_second, 2);
  RemoveGeneration(only_second, 1);
  auto expected_catalog = Catalog("expected");
  Materialize(only_second, *expected_catalog, "/warehouse/expected", true);
  auto expected = ReadTable(only_second, *expected_catalog);
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  ASSERT_FALSE(expected->rows.empty());

  for (bool fold_touched_rows : {true, false}) {
    SCOPED_TRACE(fold_touched_rows ? "folding the touched rows" : "folding everything");
    MemoryFileSystem fs;
    ExampleOrders::AddSource(fs, 2);
    auto catalog = Catalog(StrCat("runs-", fold_touched_rows));
    TableReport first = Materialize(fs, *catalog, "/warehouse/runs", fold_touched_rows);
    ASSERT_TRUE(first.committed);
    auto both = ReadTable(fs, *catalog);
    ASSERT_TRUE(both.ok()) << both.status().ToString();
    ASSERT_EQ(both->generations.size(), 2u);
    ASSERT_NE(both->rows, expected->rows) << "the first generation must show in the table";

    RemoveGeneration(fs, 1);
    TableReport next = Materialize(fs, *catalog, "/warehouse/runs", fold_touched_rows);
    EXPECT_TRUE(next.committed) << next.message;
    EXPECT_NE(next.message.find("compacted away: the rows they held folded again"), std::string::npos)
        << next.message;
    EXPECT_EQ(next.generations_consumed, 0);
    EXPECT_EQ(next.folded_touched_rows, fold_touched_rows) << next.folded_everything_because;
    auto after = ReadTable(fs, *catalog);
    ASSERT_TRUE(after.ok()) << after.status().ToString();
    EXPECT_EQ(after->rows, expected->rows);
    EXPECT_EQ(after->generations, expected->generations);
    EXPECT_EQ(after->fold_state_rows, static_cast<int64_t>(expected->rows.size()));

    // Nothing new since: nothing is committed.
    TableReport again = Materialize(fs, *catalog, "/warehouse/runs", fold_touched_rows);
    EXPECT_FALSE(again.committed) << again.message;

    // And every generation gone: an empty table.
    RemoveGeneration(fs, 2);
    TableReport empty = Materialize(fs, *catalog, "/warehouse/runs", fold_touched_rows);
    EXPECT_TRUE(empty.committed) << empty.message;
    auto none = ReadTable(fs, *catalog);
    ASSERT_TRUE(none.ok()) << none.status().ToString();
    EXPECT_TRUE(none->rows.empty());
    EXPECT_TRUE(none->generations.empty());
  }
}

}  // namespace
}  // namespace cqlite::materialize
