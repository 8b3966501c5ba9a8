// `cqlite maintain` on shop.orders (example_orders_testing.h) published by
// real materialize runs: the rows a table shows are the same before and
// after each step, the fold state's row index names every row's new place
// (the next run goes on from it as from any snapshot), races with a run
// are planned again, and a crash at any file operation loses nothing.
#include "maintain/maintainer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "catalog/sql_catalog.h"
#include "iceberg/manifest.h"
#include "iceberg/table_metadata.h"
#include "io/fault_injection_file_system.h"
#include "maintain/expire.h"
#include "maintain/table_files.h"
#include "materialize/example_orders_testing.h"
#include "fold_state/fold_state.h"
#include "materialize/materializer.h"
#include "materialize/snapshot.h"
#include "materialize/table_view_testing.h"
#include "parquet/reader.h"
#include "util/strings.h"

namespace cqlite::maintain {
namespace {

namespace stdfs = std::filesystem;
using materialize::ExampleOrders;
using materialize::MaterializeOptions;
using materialize::ReadTable;
using materialize::TableView;

constexpr char kWarehouse[] = "/warehouse";
constexpr char kTableDir[] = "/warehouse/shop/orders";
constexpr int64_t kNow = 1'800'000'000;

double WallClockSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// A catalog that runs `before_commit` (once) before it passes the first
// commit on: another writer committing first.
class RacingCatalog : public catalog::Catalog {
 public:
  RacingCatalog(catalog::Catalog& inner, std::function<void()> before_commit)
      : inner_(inner), before_commit_(std::move(before_commit)) {}
  Status CreateNamespace(const catalog::Namespace& ns, const std::map<std::string, std::string>& p) override {
    return inner_.CreateNamespace(ns, p);
  }
  Result<bool> NamespaceExists(const catalog::Namespace& ns) override { return inner_.NamespaceExists(ns); }
  Result<std::vector<catalog::Namespace>> ListNamespaces() override { return inner_.ListNamespaces(); }
  Result<std::vector<std::string>> ListTables(const catalog::Namespace& ns) override { return inner_.ListTables(ns); }
  Result<std::optional<catalog::LoadedTable>> LoadTableMetadata(FileSystem& fs, const catalog::Namespace& ns,
                                                                const std::string& table) override {
    return inner_.LoadTableMetadata(fs, ns, table);
  }
  Result<std::string> Commit(FileSystem& fs, const catalog::TableCommit& commit) override {
    ++commits_;
    if (before_commit_) {
      auto race = std::move(before_commit_);
      before_commit_ = nullptr;
      race();
    }
    return inner_.Commit(fs, commit);
  }
  std::string DisplayName() const override { return inner_.DisplayName(); }
  int commits() const { return commits_; }

 private:
  catalog::Catalog& inner_;
  std::function<void()> before_commit_;
  int commits_ = 0;
};

class MaintainerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ExampleOrders::Load(); }

  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = stdfs::temp_directory_path() / StrCat("cqlite_maintainer_", getpid(), "_", info->name());
    stdfs::remove_all(dir_);
    stdfs::create_directories(dir_);
    maintain_.now_ms = kNow * 1000;
  }
  void TearDown() override { stdfs::remove_all(dir_); }

  std::unique_ptr<catalog::SqlCatalog> OpenCatalog(const std::string& name) {
    auto catalog = catalog::SqlCatalog::Open((dir_ / StrCat(name, ".db")).string());
    EXPECT_TRUE(catalog.ok()) << catalog.status().ToString();
    return catalog.ok() ? std::move(catalog).value() : nullptr;
  }

  // A materialize run of the example's first `generations` with `threads`.
  static materialize::TableReport Materialize(FileSystem& fs, catalog::Catalog& catalog, int threads,
                                              bool fold_touched_rows = true) {
    MaterializeOptions options;
    options.warehouse = kWarehouse;
    options.now_seconds = kNow;
    options.threads = threads;
    options.fold_touched_rows = fold_touched_rows;
    auto report = materialize::MaterializeTable(fs, catalog, ExampleOrders::table_dir(), options);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    return report.ok() ? *report : materialize::TableReport();
  }

  MaintainReport Maintain(FileSystem& fs, catalog::Catalog& catalog) {
    MaintainReport report;
    Status status = MaintainTable(fs, catalog, "shop", "orders", maintain_, &report);
    EXPECT_TRUE(status.ok()) << status.ToString();
    return report;
  }

  static TableView View(FileSystem& fs, catalog::SqlCatalog& catalog) {
    auto view = ReadTable(fs, catalog);
    EXPECT_TRUE(view.ok()) << view.status().ToString();
    return view.ok() ? *view : TableView();
  }

  // What the table shows after the example's generations 1 and 2, each
  // published by a run of `threads`, maintained by no one.
  TableView Unmaintained(int threads) {
    MemoryFileSystem fs;
    ExampleOrders::AddSource(fs, 1);
    auto catalog = OpenCatalog(StrCat("unmaintained-", threads));
    Materialize(fs, *catalog, threads);
    ExampleOrders::AddSource(fs, 2);
    Materialize(fs, *catalog, threads);
    return View(fs, *catalog);
  }

  // The current snapshot's live files, and the positions its deletes delete.
  struct Current {
    LiveFiles live;
    std::map<std::string, std::set<int64_t>> deleted;
    std::map<std::string, int> delete_files_of;
  };
  static Current ReadCurrent(FileSystem& fs, catalog::Catalog& catalog) {
    Current current;
    auto table = catalog.LoadTableMetadata(fs, {"shop"}, "orders");
    EXPECT_TRUE(table.ok() && *table) << table.status().ToString();
    if (!table.ok() || !*table) return current;
    auto live = ReadLiveFiles(fs, *(*table)->metadata.CurrentSnapshot());
    EXPECT_TRUE(live.ok()) << live.status().ToString();
    if (!live.ok()) return current;
    current.live = *live;
    for (const iceberg::ManifestEntry& e : current.live.deletes) {
      auto reader = parquet::ParquetReader::Open(fs, e.data_file.file_path);
      EXPECT_TRUE(reader.ok()) << reader.status().ToString();
      if (!reader.ok()) continue;
      auto rows = (*reader)->ReadAll();
      EXPECT_TRUE(rows.ok()) << rows.status().ToString();
      if (!rows.ok()) continue;
      for (const parquet::Value& row : *rows) current.deleted[row.fields()[0].bytes()].insert(row.fields()[1].int64_value());
      ++current.delete_files_of[e.data_file.referenced_data_file.value_or("")];
    }
    return current;
  }

  // The fold state's row index, its update layer applied, names every row
  // the table shows once: live positions of live data files, as many as
  // the table's rows.
  static void ExpectRowIndexNamesEveryRow(FileSystem& fs, catalog::SqlCatalog& catalog) {
    Current current = ReadCurrent(fs, catalog);
    std::map<std::string, int64_t> records;
    for (const iceberg::ManifestEntry& e : current.live.data) records[e.data_file.file_path] = e.data_file.record_count;
    auto table = catalog.LoadTableMetadata(fs, {"shop"}, "orders");
    ASSERT_TRUE(table.ok() && *table);
    auto states = materialize::ReadSnapshotFoldStates(fs, *(*table)->metadata.CurrentSnapshot(), "shop.orders");
    ASSERT_TRUE(states.ok()) << states.status().ToString();
    ASSERT_EQ(states->states.size(), 1u);
    const materialize::FoldState& state = states->states[0];
    std::map<std::string, std::pair<std::string, int64_t>> entries;  // key -> place
    for (const auto* layer : {&state.row_index, &state.row_index_updates}) {
      auto reader = materialize::RowIndexReader::Open(fs, *layer);
      ASSERT_TRUE(reader.ok()) << reader.status().ToString();
      materialize::RowIndexReader::EntryView e;
      while (true) {
        auto more = (*reader)->NextView(&e);
        ASSERT_TRUE(more.ok()) << more.status().ToString();
        if (!*more) break;
        std::string key = StrCat(e.partition_key.size(), ":", e.partition_key, e.clustering);
        if (e.removes()) {
          entries.erase(key);
        } else {
          entries[key] = {std::string(e.data_file), e.position};
        }
      }
    }
    std::set<std::pair<std::string, int64_t>> places;
    for (const auto& [key, place] : entries) {
      ASSERT_TRUE(records.count(place.first)) << place.first << " is not a live data file";
      EXPECT_LT(place.second, records[place.first]);
      EXPECT_FALSE(current.deleted[place.first].count(place.second))
          << place.first << " position " << place.second << " is deleted";
      EXPECT_TRUE(places.insert(place).second) << "two rows at " << place.first << " " << place.second;
    }
    TableView view = View(fs, catalog);
    EXPECT_EQ(static_cast<int64_t>(entries.size()), state.row_count);
    EXPECT_EQ(entries.size(), view.rows.size());
  }

  // Every file under the table's directory is one the table references.
  static void ExpectOnlyReferencedFiles(FileSystem& fs, catalog::Catalog& catalog) {
    auto table = catalog.LoadTableMetadata(fs, {"shop"}, "orders");
    ASSERT_TRUE(table.ok() && *table);
    auto keep = FilesReferencedBy(fs, (*table)->metadata.snapshots);
    ASSERT_TRUE(keep.ok()) << keep.status().ToString();
    keep->insert((*table)->metadata_location);
    for (const auto& [when, file] : (*table)->metadata.metadata_log) keep->insert(file);
    for (const auto& [file, contents] : materialize::AllFiles(fs, kTableDir)) {
      EXPECT_TRUE(keep->count(file)) << file << " is referenced by nothing";
    }
  }

  MaintainOptions maintain_;
  stdfs::path dir_;
};

TEST_F(MaintainerTest, ARewriteKeepsTheRowsAndTheNextRunGoesOnFromIt) {
  const TableView unmaintained = Unmaintained(3);
  for (bool fold_touched_rows : {true, false}) {
    SCOPED_TRACE(fold_touched_rows ? "the next run folds the new generation alone" : "it folds every one");
    MemoryFileSystem fs;
    ExampleOrders::AddSource(fs, 1);
    auto catalog = OpenCatalog(StrCat("rewrite-", fold_touched_rows));
    Materialize(fs, *catalog, /*threads=*/3);
    TableView before = View(fs, *catalog);
    ASSERT_GE(ReadCurrent(fs, *catalog).live.data.size(), 2u) << "the first run wrote one data file";

    MaintainReport report = Maintain(fs, *catalog);
    EXPECT_NE(report.rewrite_snapshot_id, 0);
    EXPECT_GE(report.rewrite.data_files_rewritten, 2);
    EXPECT_EQ(report.rewrite.data_files_written, 1);
    EXPECT_EQ(report.rewrite.rows_rewritten, 9);
    TableView after = View(fs, *catalog);
    EXPECT_EQ(after.rows, before.rows);
    EXPECT_EQ(ReadCurrent(fs, *catalog).live.data.size(), 1u);
    ExpectRowIndexNamesEveryRow(fs, *catalog);

    // The second generation updates and deletes rows that now live in the
    // rewritten file.
    ExampleOrders::AddSource(fs, 2);
    materialize::TableReport next = Materialize(fs, *catalog, 3, fold_touched_rows);
    EXPECT_TRUE(next.committed);
    EXPECT_EQ(next.rows_deleted, 6);
    EXPECT_EQ(View(fs, *catalog).rows, unmaintained.rows);
    ExpectRowIndexNamesEveryRow(fs, *catalog);
  }
}

TEST_F(MaintainerTest, ARewriteDropsDeletedRowsAndTheirDeleteFiles) {
  MemoryFileSystem fs;
  ExampleOrders::AddSource(fs, 1);
  auto catalog = OpenCatalog("drops");
  Materialize(fs, *catalog, 1);
  ExampleOrders::AddSource(fs, 2);
  Materialize(fs, *catalog, 1);
  TableView before = View(fs, *catalog);
  ASSERT_FALSE(ReadCurrent(fs, *catalog).live.deletes.empty());

  MaintainReport report = Maintain(fs, *catalog);
  EXPECT_EQ(report.rewrite.data_files_rewritten, 2);
  EXPECT_EQ(report.rewrite.data_files_written, 1);
  EXPECT_EQ(report.rewrite.delete_files_removed, 1);
  EXPECT_EQ(report.rewrite.rows_rewritten, 9);
  EXPECT_EQ(View(fs, *catalog).rows, before.rows);
  Current current = ReadCurrent(fs, *catalog);
  EXPECT_EQ(current.live.data.size(), 1u);
  EXPECT_TRUE(current.live.deletes.empty());
  ExpectRowIndexNamesEveryRow(fs, *catalog);

  // Nothing left to do, for maintain or for a run.
  MaintainReport again = Maintain(fs, *catalog);
  EXPECT_EQ(again.rewrite_snapshot_id, 0);
  EXPECT_FALSE(Materialize(fs, *catalog, 1).committed);

  // The snapshot before the rewrite still reads as it did (time travel).
  auto table = catalog->LoadTableMetadata(fs, {"shop"}, "orders");
  ASSERT_TRUE(table.ok() && *table);
  EXPECT_EQ((*table)->metadata.snapshots.size(), 3u);
  EXPECT_EQ((*table)->metadata.CurrentSnapshot()->summary.at("operation"), "replace");
  EXPECT_EQ((*table)->metadata.CurrentSnapshot()->summary.at("total-delete-files"), "0");
  EXPECT_EQ((*table)->metadata.CurrentSnapshot()->summary.at("total-records"), "9");
}

TEST_F(MaintainerTest, ADataFileBelowTheThresholdKeepsItsPlace) {
  MemoryFileSystem fs;
  ExampleOrders::AddSource(fs, 1);
  auto catalog = OpenCatalog("threshold");
  Materialize(fs, *catalog, 1);
  ExampleOrders::AddSource(fs, 2);
  Materialize(fs, *catalog, 1);
  maintain_.rewrite.small_file_bytes = 0;
  maintain_.rewrite.delete_threshold = 0.99;
  MaintainReport report = Maintain(fs, *catalog);
  EXPECT_EQ(report.rewrite_snapshot_id, 0) << "one delete file per data file: nothing to do";
  maintain_.rewrite.delete_threshold = 0.2;  // generation 2 deleted 6 of the first file's 9 rows
  TableView before = View(fs, *catalog);
  report = Maintain(fs, *catalog);
  EXPECT_EQ(report.rewrite.data_files_rewritten, 1);
  EXPECT_EQ(report.rewrite.rows_rewritten, 3);
  EXPECT_EQ(View(fs, *catalog).rows, before.rows);
  ExpectRowIndexNamesEveryRow(fs, *catalog);
}

TEST_F(MaintainerTest, ExpiryRemovesOldSnapshotsAndOnlyTheFilesNoKeptOneReferences) {
  MemoryFileSystem fs;
  ExampleOrders::AddSource(fs, 1);
  auto catalog = OpenCatalog("expire");
  Materialize(fs, *catalog, 2);
  ExampleOrders::AddSource(fs, 2);
  Materialize(fs, *catalog, 2);
  maintain_.expire_snapshots = false;
  Maintain(fs, *catalog);  // a third snapshot, the rewrite
  TableView before = View(fs, *catalog);

  // Young snapshots stay, however many.
  maintain_.rewrite_data_files = false;
  maintain_.expire_snapshots = true;
  maintain_.retain_last = 1;
  maintain_.now_ms = static_cast<int64_t>(WallClockSeconds() * 1000);
  EXPECT_EQ(Maintain(fs, *catalog).snapshots_expired, 0);

  maintain_.retention_ms = 0;
  MaintainReport report = Maintain(fs, *catalog);
  EXPECT_EQ(report.snapshots_expired, 2);
  EXPECT_GT(report.files_removed, 0);
  auto table = catalog->LoadTableMetadata(fs, {"shop"}, "orders");
  ASSERT_TRUE(table.ok() && *table);
  EXPECT_EQ((*table)->metadata.snapshots.size(), 1u);
  EXPECT_EQ((*table)->metadata.snapshot_log.size(), 1u);
  EXPECT_EQ(View(fs, *catalog).rows, before.rows);
  ExpectOnlyReferencedFiles(fs, *catalog);
  ExpectRowIndexNamesEveryRow(fs, *catalog);
  EXPECT_FALSE(Materialize(fs, *catalog, 2).committed);
}

TEST_F(MaintainerTest, OrphanFilesGoOnceOldEnough) {
  MemoryFileSystem fs;
  ExampleOrders::AddSource(fs, 1);
  auto catalog = OpenCatalog("orphans");
  Materialize(fs, *catalog, 1);
  TableView before = View(fs, *catalog);
  const double now = WallClockSeconds();
  const std::string old_data = StrCat(kTableDir, "/data/killed-run-0.parquet");
  const std::string old_facts_dir = StrCat(kTableDir, "/cqlite/facts/killed-run-0");
  const std::string old_facts = StrCat(old_facts_dir, "/nb-1-big-Data.db");
  const std::string young = StrCat(kTableDir, "/metadata/running-run-m0.avro");
  for (const std::string& path : {old_data, old_facts, young}) fs.AddFile(path, "x");
  for (const std::string& path : {old_data, old_facts, old_facts_dir}) fs.SetModifiedTime(path, now - 7200);

  MaintainReport report;
  ASSERT_TRUE(RemoveTableOrphans(fs, *catalog, "shop", "orders", now - 3600, &report).ok());
  EXPECT_EQ(report.orphans_removed, 2);
  EXPECT_FALSE(fs.Exists(old_data));
  EXPECT_FALSE(fs.Exists(old_facts));
  EXPECT_FALSE(fs.IsDirectory(old_facts_dir));
  EXPECT_TRUE(fs.Exists(young));
  EXPECT_EQ(View(fs, *catalog).rows, before.rows);

  ASSERT_TRUE(RemoveTableOrphans(fs, *catalog, "shop", "orders", now + 1, &report).ok());
  EXPECT_FALSE(fs.Exists(young));
  ExpectOnlyReferencedFiles(fs, *catalog);
  ExampleOrders::AddSource(fs, 2);
  EXPECT_TRUE(Materialize(fs, *catalog, 1).committed);
  EXPECT_EQ(View(fs, *catalog).rows, Unmaintained(1).rows);
}

// A run commits between the rewrite's plan and its commit: the rewrite's
// commit loses, and it is planned again on the run's snapshot.
TEST_F(MaintainerTest, ARunCommittingFirstMakesTheRewritePlanAgain) {
  MemoryFileSystem fs;
  ExampleOrders::AddSource(fs, 1);
  auto catalog = OpenCatalog("run-first");
  Materialize(fs, *catalog, 2);
  RacingCatalog racing(*catalog, [&] {
    ExampleOrders::AddSource(fs, 2);
    EXPECT_TRUE(Materialize(fs, *catalog, 2).committed);
  });
  MaintainReport report = Maintain(fs, racing);
  EXPECT_EQ(racing.commits(), 2);
  EXPECT_NE(report.rewrite_snapshot_id, 0);
  EXPECT_EQ(report.rewrite.rows_rewritten, 9);
  EXPECT_EQ(View(fs, *catalog).rows, Unmaintained(2).rows);
  ExpectRowIndexNamesEveryRow(fs, *catalog);
  EXPECT_FALSE(Materialize(fs, *catalog, 2).committed);
  // The lost attempt's files are gone: after expiry and with no orphan
  // step, every file is referenced.
  maintain_.rewrite_data_files = false;
  maintain_.retain_last = 1;
  maintain_.retention_ms = 0;
  maintain_.now_ms = static_cast<int64_t>(WallClockSeconds() * 1000) + 1000;
  Maintain(fs, *catalog);
  ExpectOnlyReferencedFiles(fs, *catalog);
}

// A rewrite commits between a run's fold and its commit: the run's commit
// loses, and it folds again on the rewritten table.
TEST_F(MaintainerTest, ARewriteCommittingFirstMakesTheRunFoldAgain) {
  MemoryFileSystem fs;
  ExampleOrders::AddSource(fs, 1);
  auto catalog = OpenCatalog("rewrite-first");
  Materialize(fs, *catalog, 2);
  ExampleOrders::AddSource(fs, 2);
  RacingCatalog racing(*catalog, [&] { EXPECT_NE(Maintain(fs, *catalog).rewrite_snapshot_id, 0); });
  EXPECT_TRUE(Materialize(fs, racing, 2).committed);
  EXPECT_EQ(racing.commits(), 2);
  EXPECT_EQ(View(fs, *catalog).rows, Unmaintained(2).rows);
  ExpectRowIndexNamesEveryRow(fs, *catalog);
}

// Maintenance crashed at each of its file operations in turn, the power
// cut: the table shows the same rows, and a maintenance after the restart
// leaves it as one that never crashed (and, with the orphan step, no file
// the table does not reference).
TEST_F(MaintainerTest, ACrashAtAnyOperationLosesNothing) {
  MemoryFileSystem start_fs;
  ExampleOrders::AddSource(start_fs, 1);
  const std::string start_catalog = (dir_ / "start.db").string();
  {
    auto catalog = OpenCatalog("start");
    Materialize(start_fs, *catalog, 2);
    ExampleOrders::AddSource(start_fs, 2);
    Materialize(start_fs, *catalog, 2);
  }
  const std::map<std::string, std::string> start_files = materialize::AllFiles(start_fs, "/");
  maintain_.retain_last = 1;
  maintain_.retention_ms = 0;
  maintain_.now_ms = static_cast<int64_t>(WallClockSeconds() * 1000) + 60'000;
  auto restore = [&](MemoryFileSystem& memory, const std::string& name) {
    for (const auto& [file, contents] : start_files) memory.AddFile(file, contents);
    stdfs::copy_file(start_catalog, dir_ / StrCat(name, ".db"), stdfs::copy_options::overwrite_existing);
    return OpenCatalog(name);
  };

  // Once without faults, counting the operations.
  MemoryFileSystem clean_fs;
  auto clean_catalog = restore(clean_fs, "clean");
  const TableView before = View(clean_fs, *clean_catalog);
  FaultInjectionFileSystem counting(clean_fs);
  MaintainReport clean = Maintain(counting, *clean_catalog);
  ASSERT_EQ(clean.rewrite.rows_rewritten, 9);
  ASSERT_EQ(clean.snapshots_expired, 2);
  const int64_t operations = counting.operation_count();
  ASSERT_GT(operations, 10);

  for (int64_t n = 0; n < operations; ++n) {
    SCOPED_TRACE(StrCat("crash at operation ", n, " of ", operations, ": ", counting.DescribeOperation(n)));
    MemoryFileSystem memory;
    auto catalog = restore(memory, StrCat("crash-", n));
    FaultInjectionFileSystem fs(memory);
    fs.CrashAtOperation(n);
    MaintainReport crashed;
    EXPECT_FALSE(MaintainTable(fs, *catalog, "shop", "orders", maintain_, &crashed).ok());
    ASSERT_TRUE(fs.DropUnsyncedData().ok());
    fs.ClearFaults();
    EXPECT_EQ(View(memory, *catalog).rows, before.rows);

    MaintainReport after;
    ASSERT_TRUE(MaintainTable(memory, *catalog, "shop", "orders", maintain_, &after).ok());
    ASSERT_TRUE(RemoveTableOrphans(memory, *catalog, "shop", "orders", WallClockSeconds() + 1, &after).ok());
    EXPECT_EQ(View(memory, *catalog).rows, before.rows);
    ExpectRowIndexNamesEveryRow(memory, *catalog);
    ExpectOnlyReferencedFiles(memory, *catalog);
    Current current = ReadCurrent(memory, *catalog);
    EXPECT_EQ(current.live.data.size(), 1u);
    EXPECT_TRUE(current.live.deletes.empty());
    EXPECT_FALSE(Materialize(memory, *catalog, 2).committed);
    if (HasFailure()) break;  // the first crash point that fails is enough to read
  }
}

TEST_F(MaintainerTest, ATableThatIsNotThereIsNotFound) {
  MemoryFileSystem fs;
  auto catalog = OpenCatalog("empty");
  MaintainReport report;
  Status status = MaintainTable(fs, *catalog, "shop", "orders", maintain_, &report);
  EXPECT_EQ(status.kind(), StatusKind::kNotFound) << status.ToString();
  EXPECT_NE(status.message().find("shop.orders"), std::string::npos) << status.ToString();
}

}  // namespace
}  // namespace cqlite::maintain
