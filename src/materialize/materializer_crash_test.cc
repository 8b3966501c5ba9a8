// MaterializeTable over a file system that crashes, loses power or fails
// one write: at every mutating file operation of a run, the table must stay
// at its previous snapshot, and the next run must publish what a run that
// never failed publishes.
//
// The SQLite catalog writes its own file, not through the FileSystem: as far
// as the catalog goes, every crash below happens before the commit (or, for
// a crash after the run's last file operation, just after it).
#include "materialize/materializer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "catalog/sql_catalog.h"
#include "iceberg/manifest.h"
#include "iceberg/table_metadata.h"
#include "io/fault_injection_file_system.h"
#include "io/file_system.h"
#include "fold_state/fold_state.h"
#include "materialize/example_orders_testing.h"
#include "materialize/table_view_testing.h"
#include "parquet/reader.h"
#include "util/strings.h"

namespace cqlite::materialize {
namespace {

namespace stdfs = std::filesystem;

// The runs read shop.orders (example_orders_testing.h).
constexpr char kWarehouse[] = "/warehouse";
constexpr int64_t kNow = 1'800'000'000;  // TTLs evaluated at a fixed time

// The counts a run reports that do not depend on random names.
std::string Summary(const TableReport& report) {
  return StrCat("committed=", report.committed, " consumed=", report.generations_consumed, " appended=",
                report.rows_appended, " deleted=", report.rows_deleted, " total=", report.rows_total,
                " data_files=", report.data_files, " delete_files=", report.delete_files);
}

// Runs of shop.orders in a memory file system; the catalog files go to a
// fresh directory per test, removed afterwards.
class MaterializerCrashTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ExampleOrders::Load(); }

  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = stdfs::temp_directory_path() / StrCat("cqlite_materializer_crash_", getpid(), "_", info->name());
    stdfs::remove_all(dir_);
    stdfs::create_directories(dir_);
    options_.warehouse = kWarehouse;
    options_.now_seconds = kNow;
  }
  void TearDown() override { stdfs::remove_all(dir_); }

  static void AddSource(MemoryFileSystem& fs, int generations) { ExampleOrders::AddSource(fs, generations); }

  std::string CatalogPath(const std::string& name) const { return (dir_ / StrCat(name, ".db")).string(); }

  std::unique_ptr<catalog::SqlCatalog> OpenCatalog(const std::string& path) {
    auto catalog = catalog::SqlCatalog::Open(path);
    EXPECT_TRUE(catalog.ok()) << catalog.status().ToString();
    return catalog.ok() ? std::move(catalog).value() : nullptr;
  }

  // Where the runs start from: the warehouse and catalog as they are before
  // the run under test, and what a run that never fails then gives.
  struct Start {
    std::map<std::string, std::string> files;  // the memory file system
    std::string catalog_path;                  // closed
    TableView before;                          // the table before the run
    TableView after;                           // and after a run that does not fail
    std::string after_summary;                 // that run's report
    int64_t operations = 0;                    // that run's mutating file operations
    std::vector<std::string> described;        // and what each was
  };

  // `later_run`: the table holds generation 1 and generation 2 has been
  // flushed since; otherwise the table does not exist yet.
  Start MakeStart(bool later_run) {
    Start start;
    MemoryFileSystem memory;
    AddSource(memory, 1);
    start.catalog_path = CatalogPath("start");
    {
      auto catalog = OpenCatalog(start.catalog_path);
      if (later_run) {
        auto first = MaterializeTable(memory, *catalog, table_dir_, options_);
        EXPECT_TRUE(first.ok() && first->committed) << first.status().ToString();
        AddSource(memory, 2);
      }
      auto before = ReadTable(memory, *catalog);
      EXPECT_TRUE(before.ok()) << before.status().ToString();
      if (before.ok()) start.before = *before;
    }
    start.files = AllFiles(memory, "/");

    // The run under test, once without faults, on a copy.
    std::string path = CatalogPath("clean");
    stdfs::copy_file(start.catalog_path, path, stdfs::copy_options::overwrite_existing);
    MemoryFileSystem copy;
    for (const auto& [file, contents] : start.files) copy.AddFile(file, contents);
    FaultInjectionFileSystem counting(copy);
    auto catalog = OpenCatalog(path);
    auto report = MaterializeTable(counting, *catalog, table_dir_, options_);
    EXPECT_TRUE(report.ok() && report->committed) << report.status().ToString();
    if (report.ok()) start.after_summary = Summary(*report);
    auto after = ReadTable(copy, *catalog);
    EXPECT_TRUE(after.ok()) << after.status().ToString();
    if (after.ok()) start.after = *after;
    start.operations = counting.operation_count();
    for (int64_t n = 0; n < start.operations; ++n) start.described.push_back(counting.DescribeOperation(n));
    return start;
  }

  // The warehouse as `start` has it, in `memory`, and a copy of its catalog.
  std::unique_ptr<catalog::SqlCatalog> Restore(const Start& start, MemoryFileSystem& memory,
                                               const std::string& name) {
    for (const auto& [file, contents] : start.files) memory.AddFile(file, contents);
    std::string path = CatalogPath(name);
    stdfs::copy_file(start.catalog_path, path, stdfs::copy_options::overwrite_existing);
    return OpenCatalog(path);
  }

  // The table is still as it was before the failed run: the catalog names the
  // same metadata file (or no table) and every file it leads to reads back
  // the same rows.
  static void ExpectPreviousSnapshot(const Start& start, FileSystem& fs, catalog::SqlCatalog& catalog) {
    auto view = ReadTable(fs, catalog);
    ASSERT_TRUE(view.ok()) << view.status().ToString();
    EXPECT_EQ(view->metadata_location, start.before.metadata_location);
    EXPECT_EQ(view->rows, start.before.rows);
    EXPECT_EQ(view->generations, start.before.generations);
  }

  // The table is what the run that never failed gave (under other file names).
  static void ExpectTheCleanRunsTable(const Start& start, FileSystem& fs, catalog::SqlCatalog& catalog) {
    auto view = ReadTable(fs, catalog);
    ASSERT_TRUE(view.ok()) << view.status().ToString();
    ASSERT_TRUE(view->metadata_location.has_value());
    EXPECT_NE(view->metadata_location, start.before.metadata_location);
    EXPECT_EQ(view->rows, start.after.rows);
    EXPECT_EQ(view->generations, start.after.generations);
    EXPECT_EQ(view->fold_state_rows, start.after.fold_state_rows);
  }

  // A run crashed at each of its file operations in turn, the power cut, and
  // a run after the restart.
  void SweepCrashes(bool later_run) {
    Start start = MakeStart(later_run);
    ASSERT_GT(start.operations, 0);
    ASSERT_NE(start.before.rows, start.after.rows) << "the run under test changes nothing";
    for (int64_t n = 0; n <= start.operations; ++n) {
      const bool after_the_last = n == start.operations;
      SCOPED_TRACE(after_the_last ? StrCat("crash after the last of ", n, " operations (after the commit)")
                                  : StrCat("crash at operation ", n, " of ", start.operations, ": ",
                                           start.described[static_cast<size_t>(n)]));
      MemoryFileSystem memory;
      auto catalog = Restore(start, memory, StrCat("crash-", n));
      ASSERT_NE(catalog, nullptr);
      FaultInjectionFileSystem fs(memory);
      fs.CrashAtOperation(n);
      auto crashed = MaterializeTable(fs, *catalog, table_dir_, options_);
      if (after_the_last) {
        ASSERT_TRUE(crashed.ok()) << crashed.status().ToString();
        EXPECT_TRUE(crashed->committed);
        EXPECT_FALSE(fs.crashed());
      } else {
        EXPECT_FALSE(crashed.ok()) << "a run that could not write committed: " << Summary(*crashed);
        EXPECT_TRUE(fs.crashed());
      }
      // The power cut: what was not synced is gone.
      ASSERT_TRUE(fs.DropUnsyncedData().ok());
      fs.ClearFaults();
      if (after_the_last) {
        // Everything the committed snapshot names was durable before the commit.
        ExpectTheCleanRunsTable(start, memory, *catalog);
      } else {
        ExpectPreviousSnapshot(start, memory, *catalog);
      }

      // After the restart, with the faults off.
      auto next = MaterializeTable(fs, *catalog, table_dir_, options_);
      ASSERT_TRUE(next.ok()) << next.status().ToString();
      if (after_the_last) {
        EXPECT_FALSE(next->committed) << "nothing was left to do";
      } else {
        EXPECT_EQ(Summary(*next), start.after_summary);
      }
      ExpectTheCleanRunsTable(start, memory, *catalog);
      if (HasFailure()) break;  // the first crash point that fails is enough to read
    }
  }

  // A run whose operation n alone fails, at each n in turn. With
  // `check_cleanup`, the failed run must also have removed every file it
  // wrote (materializer.h promises no more than that they are unreferenced).
  void SweepFailedOperations(bool later_run, bool check_cleanup = false) {
    Start start = MakeStart(later_run);
    ASSERT_GT(start.operations, 0);
    for (int64_t n = 0; n < start.operations; ++n) {
      SCOPED_TRACE(StrCat("operation ", n, " of ", start.operations, " fails: ",
                          start.described[static_cast<size_t>(n)]));
      MemoryFileSystem memory;
      auto catalog = Restore(start, memory, StrCat("fail-", n));
      ASSERT_NE(catalog, nullptr);
      FaultInjectionFileSystem fs(memory);
      fs.FailOperation(n);
      auto failed = MaterializeTable(fs, *catalog, table_dir_, options_);
      ASSERT_FALSE(failed.ok()) << "a run whose write failed succeeded: " << Summary(*failed);
      EXPECT_EQ(failed.status().kind(), StatusKind::kIOError) << failed.status().ToString();
      EXPECT_NE(failed.status().message().find("injected I/O error"), std::string::npos)
          << failed.status().ToString();
      EXPECT_FALSE(fs.crashed());
      ExpectPreviousSnapshot(start, memory, *catalog);
      if (check_cleanup) {
        std::vector<std::string> left, was;
        for (const auto& [file, contents] : AllFiles(memory, "/")) left.push_back(file);
        for (const auto& [file, contents] : start.files) was.push_back(file);
        EXPECT_EQ(left, was) << "the failed run left files behind";
      }

      fs.ClearFaults();
      auto next = MaterializeTable(fs, *catalog, table_dir_, options_);
      ASSERT_TRUE(next.ok()) << next.status().ToString();
      EXPECT_EQ(Summary(*next), start.after_summary);
      ExpectTheCleanRunsTable(start, memory, *catalog);
      if (HasFailure()) break;  // the first operation whose failure goes wrong is enough to read
    }
  }

  const std::string& table_dir_ = ExampleOrders::table_dir();
  stdfs::path dir_;
  MaterializeOptions options_;
};

TEST_F(MaterializerCrashTest, TheRunsUnderTestWriteAndChangeTheTable) {
  Start first = MakeStart(/*later_run=*/false);
  EXPECT_FALSE(first.before.metadata_location.has_value());
  EXPECT_EQ(first.after.rows.size(), 9u);  // generation 1: 9 orders
  Start later = MakeStart(/*later_run=*/true);
  EXPECT_EQ(later.before.rows, first.after.rows);
  EXPECT_EQ(later.after.rows.size(), 9u);  // 3 new, 2 eve's and 1 of bob's deleted
  EXPECT_EQ(later.after.generations.size(), 2u);
  EXPECT_EQ(first.after_summary,
            "committed=1 consumed=1 appended=9 deleted=0 total=9 data_files=1 delete_files=0");
  // 3 new orders and 3 changed ones (alice's, chloé's, dmitri's) written; the changed ones' old
  // positions deleted, and eve's two rows and bob's cancelled one.
  EXPECT_EQ(later.after_summary,
            "committed=1 consumed=1 appended=6 deleted=6 total=9 data_files=1 delete_files=1");
  EXPECT_GT(first.operations, 0);
  EXPECT_GT(later.operations, 0);
}

TEST_F(MaterializerCrashTest, AFirstRunCrashedAtAnyOperationLeavesNoTable) {
  SweepCrashes(/*later_run=*/false);
}

TEST_F(MaterializerCrashTest, ALaterRunCrashedAtAnyOperationLeavesThePreviousSnapshot) {
  SweepCrashes(/*later_run=*/true);
}

TEST_F(MaterializerCrashTest, AFirstRunWithAnyOneFailedOperationIsAnErrorAndLeavesNoTable) {
  SweepFailedOperations(/*later_run=*/false);
}

TEST_F(MaterializerCrashTest, ALaterRunWithAnyOneFailedOperationIsAnErrorAndLeavesThePreviousSnapshot) {
  SweepFailedOperations(/*later_run=*/true);
}

// Every file a run writes is named by its RunFiles before it is created, so
// that a run failing at any operation, a sync included, leaves none behind.
TEST_F(MaterializerCrashTest, ARunWithAnyOneFailedOperationRemovesTheFilesItWrote) {
  SweepFailedOperations(/*later_run=*/true, /*check_cleanup=*/true);
}

}  // namespace
}  // namespace cqlite::materialize
