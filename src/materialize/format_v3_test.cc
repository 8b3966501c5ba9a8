// Runs of shop.orders (example_orders_testing.h) into v3 tables: the table
// shows the rows a v2 table of the same runs shows, its deletes are
// deletion vectors (one live per data file, the replaced ones DELETED), its
// rows get ids (row lineage), and a v2 table is upgraded in place.
// Vectors merged run after run, over many generations, are read by Iceberg
// Java in tests/integration/test_materialize.py.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "catalog/sql_catalog.h"
#include "iceberg/manifest.h"
#include "iceberg/table_metadata.h"
#include "materialize/example_orders_testing.h"
#include "materialize/materializer.h"
#include "materialize/table_view_testing.h"
#include "util/strings.h"

namespace cqlite::materialize {
namespace {

namespace stdfs = std::filesystem;

constexpr int64_t kNow = 1'800'000'000;
// Past the expiry of frank's order (written with a one-year TTL).
constexpr int64_t kAfterTheTtl = 1'900'000'000;

class FormatV3Test : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ExampleOrders::Load(); }
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = stdfs::temp_directory_path() / StrCat("cqlite_format_v3_", getpid(), "_", info->name());
    stdfs::remove_all(dir_);
    stdfs::create_directories(dir_);
  }
  void TearDown() override { stdfs::remove_all(dir_); }

  std::unique_ptr<catalog::SqlCatalog> OpenCatalog(const std::string& name) {
    auto catalog = catalog::SqlCatalog::Open((dir_ / StrCat(name, ".db")).string());
    EXPECT_TRUE(catalog.ok()) << catalog.status().ToString();
    return catalog.ok() ? std::move(catalog).value() : nullptr;
  }

  static TableReport Run(FileSystem& fs, catalog::Catalog& catalog, int format_version, int64_t now,
                         int threads = 1) {
    MaterializeOptions options;
    options.warehouse = "/warehouse";
    options.now_seconds = now;
    options.format_version = format_version;
    options.threads = threads;
    auto report = MaterializeTable(fs, catalog, ExampleOrders::table_dir(), options);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    return report.ok() ? *report : TableReport();
  }

  // The rows after generation 1, generation 2 and a run past the TTL, each
  // run with the format version given for it.
  std::vector<std::vector<std::string>> ThreeRuns(const std::string& name, std::vector<int> versions,
                                                  MemoryFileSystem& fs, std::unique_ptr<catalog::SqlCatalog>* out,
                                                  int threads = 1) {
    std::vector<std::vector<std::string>> rows;
    ExampleOrders::AddSource(fs, 1);
    *out = OpenCatalog(name);
    catalog::SqlCatalog& catalog = **out;
    EXPECT_TRUE(Run(fs, catalog, versions[0], kNow, threads).committed);
    rows.push_back(View(fs, catalog));
    ExampleOrders::AddSource(fs, 2);
    EXPECT_TRUE(Run(fs, catalog, versions[1], kNow, threads).committed);
    rows.push_back(View(fs, catalog));
    EXPECT_TRUE(Run(fs, catalog, versions[2], kAfterTheTtl, threads).committed);
    rows.push_back(View(fs, catalog));
    return rows;
  }

  static std::vector<std::string> View(FileSystem& fs, catalog::SqlCatalog& catalog) {
    auto view = ReadTable(fs, catalog);
    EXPECT_TRUE(view.ok()) << view.status().ToString();
    return view.ok() ? view->rows : std::vector<std::string>();
  }

  static iceberg::TableMetadata Metadata(FileSystem& fs, catalog::Catalog& catalog) {
    auto table = catalog.LoadTableMetadata(fs, {"shop"}, "orders");
    EXPECT_TRUE(table.ok() && *table) << table.status().ToString();
    return table.ok() && *table ? (*table)->metadata : iceberg::TableMetadata();
  }

  // The current snapshot's manifests and their entries (inherited values filled).
  struct Current {
    std::vector<iceberg::ManifestFile> manifests;
    std::vector<iceberg::ManifestEntry> entries;
  };
  static Current ReadCurrent(FileSystem& fs, const iceberg::TableMetadata& metadata) {
    Current current;
    auto manifests = iceberg::ReadManifestList(fs, metadata.CurrentSnapshot()->manifest_list);
    EXPECT_TRUE(manifests.ok()) << manifests.status().ToString();
    if (!manifests.ok()) return current;
    current.manifests = *manifests;
    for (const iceberg::ManifestFile& m : current.manifests) {
      auto entries = iceberg::ReadManifest(fs, m);
      EXPECT_TRUE(entries.ok()) << entries.status().ToString();
      if (entries.ok()) current.entries.insert(current.entries.end(), entries->begin(), entries->end());
    }
    return current;
  }

  // One live deletion vector per data file at most, and no position delete file.
  static void ExpectOneVectorPerDataFile(const Current& current) {
    std::map<std::string, int> vectors;
    for (const iceberg::ManifestEntry& e : current.entries) {
      if (e.status == iceberg::ManifestEntryStatus::kDeleted || e.data_file.content == iceberg::FileContent::kData) {
        continue;
      }
      EXPECT_TRUE(iceberg::IsDeletionVector(e.data_file)) << e.data_file.file_path;
      ++vectors[e.data_file.referenced_data_file.value_or("")];
    }
    for (const auto& [file, count] : vectors) EXPECT_EQ(count, 1) << file;
  }

  stdfs::path dir_;
};

TEST_F(FormatV3Test, AV3TableShowsWhatAV2TableShows) {
  for (int threads : {1, 3}) {
    SCOPED_TRACE(StrCat(threads, " thread(s)"));
    MemoryFileSystem v2_fs, v3_fs;
    std::unique_ptr<catalog::SqlCatalog> v2, v3;
    auto v2_rows = ThreeRuns(StrCat("v2-", threads), {2, 2, 2}, v2_fs, &v2, threads);
    auto v3_rows = ThreeRuns(StrCat("v3-", threads), {3, 3, 3}, v3_fs, &v3, threads);
    EXPECT_EQ(v3_rows, v2_rows);
    EXPECT_EQ(v3_rows[2].size(), 8u) << "frank's order expired";

    iceberg::TableMetadata metadata = Metadata(v3_fs, *v3);
    EXPECT_EQ(metadata.format_version, 3);
    Current current = ReadCurrent(v3_fs, metadata);
    ExpectOneVectorPerDataFile(current);
    // Row lineage: every data file's rows have ids, from 0 up, without overlap.
    int64_t data_rows = 0;
    std::set<std::pair<int64_t, int64_t>> id_ranges;
    for (const iceberg::ManifestEntry& e : current.entries) {
      if (e.data_file.content != iceberg::FileContent::kData || e.status == iceberg::ManifestEntryStatus::kDeleted) {
        continue;
      }
      ASSERT_TRUE(e.data_file.first_row_id.has_value()) << e.data_file.file_path;
      id_ranges.emplace(*e.data_file.first_row_id, *e.data_file.first_row_id + e.data_file.record_count);
      data_rows += e.data_file.record_count;
    }
    int64_t end = 0;
    for (const auto& [first, past] : id_ranges) {
      EXPECT_GE(first, end) << "row ids overlap";
      end = past;
    }
    EXPECT_EQ(metadata.next_row_id, end);
    EXPECT_EQ(data_rows, 9 + 6) << "generation 1's 9 rows, generation 2's 6";
    for (const iceberg::Snapshot& s : metadata.snapshots) EXPECT_TRUE(s.first_row_id.has_value());
  }
}

TEST_F(FormatV3Test, AV2TableIsUpgradedInPlace) {
  MemoryFileSystem v2_fs, fs;
  std::unique_ptr<catalog::SqlCatalog> v2, upgraded;
  auto v2_rows = ThreeRuns("v2", {2, 2, 2}, v2_fs, &v2);
  auto rows = ThreeRuns("upgraded", {2, 2, 3}, fs, &upgraded);
  EXPECT_EQ(rows, v2_rows);
  iceberg::TableMetadata metadata = Metadata(fs, *upgraded);
  EXPECT_EQ(metadata.format_version, 3);
  ASSERT_EQ(metadata.snapshots.size(), 3u);
  EXPECT_FALSE(metadata.snapshots[0].first_row_id.has_value()) << "committed while the table was v2";
  EXPECT_EQ(metadata.snapshots[2].first_row_id, 0);
  // Ids for every row of the table's v2 data manifests at once.
  EXPECT_EQ(metadata.snapshots[2].added_rows, 9 + 6);
  EXPECT_EQ(metadata.next_row_id, 9 + 6);
  // Generation 2's position delete file stays: its data file got no new delete.
  Current current = ReadCurrent(fs, metadata);
  int position_delete_files = 0, vectors = 0;
  for (const iceberg::ManifestEntry& e : current.entries) {
    if (e.data_file.content == iceberg::FileContent::kData || e.status == iceberg::ManifestEntryStatus::kDeleted) {
      continue;
    }
    (iceberg::IsDeletionVector(e.data_file) ? vectors : position_delete_files)++;
  }
  EXPECT_EQ(position_delete_files, 1);
  EXPECT_EQ(vectors, 1);
  // A v3 table stays v3 when a later run does not ask for it.
  EXPECT_FALSE(Run(fs, *upgraded, 2, kAfterTheTtl).committed);
  EXPECT_EQ(Metadata(fs, *upgraded).format_version, 3);
}

}  // namespace
}  // namespace cqlite::materialize
