// Staged runs of token ranges and their one commit (staged.h): parts staged
// by several processes, some twice and some killed midway, must give the
// table one run of the whole ring gives, in one snapshot per commit, and
// leave no file of a run that lost.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "catalog/sql_catalog.h"
#include "cassandra/token.h"
#include "iceberg/table_metadata.h"
#include "materialize/example_orders_testing.h"
#include "materialize/materializer.h"
#include "materialize/staged.h"
#include "materialize/table_view_testing.h"
#include "util/strings.h"

namespace cqlite::materialize {
namespace {

namespace stdfs = std::filesystem;

constexpr int64_t kNow = 1'800'000'000;

// Three parts covering every Murmur3 token.
std::vector<Murmur3RangeSet> ThreeParts() {
  std::vector<Murmur3RangeSet> parts;
  for (const Murmur3Range& range : SplitMurmur3Ring(3)) {
    parts.push_back(Murmur3RangeSet({{std::max(range.first, INT64_MIN + 1), range.last}}));
  }
  return parts;
}

class StagedTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ExampleOrders::Load(); }
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = stdfs::temp_directory_path() / StrCat("cqlite_staged_", getpid(), "_", info->name());
    stdfs::remove_all(dir_);
    stdfs::create_directories(dir_);
    ExampleOrders::AddSource(fs_, 1);
    catalog_ = Catalog("parts");
  }
  void TearDown() override { stdfs::remove_all(dir_); }

  void AddGeneration2() { ExampleOrders::AddSource(fs_, 2); }

  std::unique_ptr<catalog::SqlCatalog> Catalog(const std::string& name) {
    auto catalog = catalog::SqlCatalog::Open((dir_ / StrCat(name, ".db")).string());
    EXPECT_TRUE(catalog.ok()) << catalog.status().ToString();
    return catalog.ok() ? std::move(catalog).value() : nullptr;
  }

  static std::string Warehouse(const std::string& name) { return JoinPath("/warehouse", name); }
  static std::string StageDir(const std::string& job) { return JoinPath("/stage", job); }

  // The stage directory of `from` as it is now, again as `to`.
  void CopyStageDir(const std::string& from, const std::string& to) {
    for (const auto& [path, contents] : AllFiles(fs_, StageDir(from))) {
      fs_.AddFile(StageDir(to) + path.substr(StageDir(from).size()), contents);
    }
  }

  // A task of a job: one part staged; returns its report.
  TableReport Stage(const std::string& job, const Murmur3RangeSet& ranges, const MappingOptions& mapping = {}) {
    MaterializeOptions options;
    options.warehouse = Warehouse("parts");
    options.mapping = mapping;
    options.now_seconds = kNow;
    options.token_ranges = ranges;
    options.stage_dir = StageDir(job);
    auto report = MaterializeTable(fs_, *catalog_, ExampleOrders::table_dir(), options);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_TRUE(report.ok() && report->staged && !report->committed);
    return report.ok() ? *report : TableReport();
  }

  Result<std::vector<StagedTableReport>> Commit(const std::string& job, bool discard = false) {
    CommitStagedOptions options;
    options.warehouse = Warehouse("parts");
    options.discard = discard;
    return CommitStaged(fs_, *catalog_, {StageDir(job)}, options);
  }

  std::vector<std::string> WholeRows() {
    auto whole = Catalog("whole");
    MaterializeOptions options;
    options.warehouse = Warehouse("whole");
    options.now_seconds = kNow;
    auto report = MaterializeTable(fs_, *whole, ExampleOrders::table_dir(), options);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    auto view = ReadTable(fs_, *whole);
    EXPECT_TRUE(view.ok()) << view.status().ToString();
    return view.ok() ? view->rows : std::vector<std::string>();
  }

  std::vector<std::string> Rows() {
    auto view = ReadTable(fs_, *catalog_);
    EXPECT_TRUE(view.ok()) << view.status().ToString();
    return view.ok() ? view->rows : std::vector<std::string>();
  }

  int Snapshots() {
    auto loaded = catalog_->LoadTableMetadata(fs_, {"shop"}, "orders");
    EXPECT_TRUE(loaded.ok());
    return loaded.ok() && *loaded ? static_cast<int>((*loaded)->metadata.snapshots.size()) : 0;
  }

  // A property of the table, or "<none>".
  std::string Property(const std::string& name) {
    auto loaded = catalog_->LoadTableMetadata(fs_, {"shop"}, "orders");
    EXPECT_TRUE(loaded.ok() && *loaded);
    if (!loaded.ok() || !*loaded) return "<no table>";
    const auto& properties = (*loaded)->metadata.properties;
    auto it = properties.find(name);
    return it == properties.end() ? "<none>" : it->second;
  }

  // The run ids of the staged results and marks under a job's directory.
  std::set<std::string> RunsStaged(const std::string& job) {
    std::set<std::string> runs;
    for (const auto& [path, contents] : AllFiles(fs_, StageDir(job))) {
      std::string name = BaseName(path);
      runs.insert(name.substr(0, name.find('.')));
    }
    return runs;
  }

  // Files of the table whose names carry `run`.
  int FilesOfRun(const std::string& run) {
    int found = 0;
    for (const auto& [path, contents] : AllFiles(fs_, Warehouse("parts"))) {
      found += path.find(run) != std::string::npos;
    }
    return found;
  }

  stdfs::path dir_;  // the catalogs' SQLite files
  MemoryFileSystem fs_;  // the source, warehouses and stage directories
  std::unique_ptr<catalog::SqlCatalog> catalog_;
};

TEST_F(StagedTest, StagedPartsCommitAsOneSnapshotEqualToTheWholeRing) {
  const std::vector<Murmur3RangeSet> parts = ThreeParts();
  for (const Murmur3RangeSet& part : parts) Stage("job1", part);
  // Part 1 staged twice (a task run again by speculation), and part 2 begun
  // by a run that was killed before it staged: its mark and files remain.
  TableReport duplicate = Stage("job1", parts[1]);
  TableReport killed = Stage("job1", parts[2]);
  std::string killed_result;
  std::set<std::string> runs = RunsStaged("job1");
  ASSERT_EQ(runs.size(), 5u);
  for (const std::string& run : runs) {
    if (killed.message.find(run) != std::string::npos) {
      killed_result = JoinPath(JoinPath(StageDir("job1"), "shop.orders"), StrCat(run, ".staged.json"));
    }
  }
  ASSERT_FALSE(killed_result.empty()) << killed.message;
  ASSERT_TRUE(fs_.Remove(killed_result).ok());

  auto committed = Commit("job1");
  ASSERT_TRUE(committed.ok()) << committed.status().ToString();
  ASSERT_EQ(committed->size(), 1u);
  const StagedTableReport& report = committed->front();
  EXPECT_TRUE(report.committed) << report.message;
  EXPECT_EQ(report.parts_staged, 3);
  EXPECT_EQ(report.parts_changed, 3);
  EXPECT_EQ(report.runs_discarded, 2);  // the duplicate's loser and the killed run
  EXPECT_EQ(Snapshots(), 1);
  const std::vector<std::string> expected = WholeRows();
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(Rows(), expected);
  // Of the five runs, only the three winners' files remain, and no stage file.
  int runs_with_files = 0;
  for (const std::string& run : runs) runs_with_files += FilesOfRun(run) > 0;
  EXPECT_EQ(runs_with_files, 3);
  EXPECT_TRUE(AllFiles(fs_, StageDir("job1")).empty());
  (void)duplicate;
}

TEST_F(StagedTest, ALaterJobCommitsOnlyTheChangeAndNothingWhenNothingIsNew) {
  const std::vector<Murmur3RangeSet> parts = ThreeParts();
  for (const Murmur3RangeSet& part : parts) Stage("job1", part);
  ASSERT_TRUE(Commit("job1").ok());
  AddGeneration2();
  for (const Murmur3RangeSet& part : parts) Stage("job2", part);
  auto second = Commit("job2");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_TRUE(second->front().committed) << second->front().message;
  EXPECT_EQ(second->front().generations_consumed, 1);  // generation 2 only
  EXPECT_EQ(Snapshots(), 2);
  EXPECT_EQ(Rows(), WholeRows());
  for (const Murmur3RangeSet& part : parts) {
    TableReport again = Stage("job3", part);
    EXPECT_NE(again.message.find("nothing new"), std::string::npos) << again.message;
  }
  auto third = Commit("job3");
  ASSERT_TRUE(third.ok()) << third.status().ToString();
  EXPECT_FALSE(third->front().committed);
  EXPECT_NE(third->front().message.find("nothing new"), std::string::npos) << third->front().message;
  EXPECT_EQ(Snapshots(), 2);
}

TEST_F(StagedTest, ACommitRunAgainIsRecognisedAndOnlyCleansUp) {
  const std::vector<Murmur3RangeSet> parts = ThreeParts();
  for (const Murmur3RangeSet& part : parts) Stage("job1", part);
  Stage("job1", parts[0]);  // a duplicate, whose files the second commit must remove
  // The driver commits, and dies before the stage files are gone: the same
  // files are there for the job run again.
  CopyStageDir("job1", "copy");
  CopyStageDir("job1", "copy2");
  ASSERT_TRUE(Commit("job1").ok());
  const std::vector<std::string> rows = Rows();
  auto again = Commit("copy");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_FALSE(again->front().committed);
  EXPECT_TRUE(again->front().already_committed) << again->front().message;
  EXPECT_EQ(Snapshots(), 1);
  EXPECT_EQ(Rows(), rows);
  // Discarding it removes nothing the table has either.
  ASSERT_TRUE(Commit("copy2", /*discard=*/true).ok());
  EXPECT_EQ(Rows(), rows);
}

TEST_F(StagedTest, AnAbandonedJobIsDiscardedAndAStaleOneRefused) {
  const std::vector<Murmur3RangeSet> parts = ThreeParts();
  for (const Murmur3RangeSet& part : parts) Stage("job1", part);
  ASSERT_TRUE(Commit("job1").ok());
  const std::vector<std::string> rows = Rows();
  AddGeneration2();
  // Two jobs stage part 0 against the same state; the first to commit wins.
  Stage("jobA", parts[0]);
  Stage("jobB", parts[0]);
  const std::set<std::string> stale = RunsStaged("jobB");
  ASSERT_TRUE(Commit("jobA").ok());
  auto refused = Commit("jobB");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().kind(), StatusKind::kCommitConflict) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("discard"), std::string::npos) << refused.status().ToString();
  EXPECT_EQ(Snapshots(), 2);
  // Discarded: none of its runs' files remains.
  auto discarded = Commit("jobB", /*discard=*/true);
  ASSERT_TRUE(discarded.ok()) << discarded.status().ToString();
  EXPECT_EQ(discarded->front().runs_discarded, 1);
  for (const std::string& run : stale) EXPECT_EQ(FilesOfRun(run), 0) << run;
  EXPECT_TRUE(AllFiles(fs_, StageDir("jobB")).empty());
  EXPECT_NE(Rows(), rows);
}

TEST_F(StagedTest, OverlappingStagedRangesAreRefused) {
  const std::vector<Murmur3RangeSet> parts = ThreeParts();
  Stage("job1", parts[0]);
  Murmur3RangeSet wider({{parts[0].ranges()[0].first, parts[1].ranges()[0].last}});
  Stage("job1", wider);
  auto refused = Commit("job1");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("overlap"), std::string::npos) << refused.status().ToString();
  EXPECT_EQ(Snapshots(), 0);
}

MappingOptions TimeAsGiven(TimeAs time_as) {
  MappingOptions mapping;
  mapping.time_as = time_as;
  mapping.time_as_given = true;
  return mapping;
}

// A table records the time mapping it was made with; a later run without
// --time-as keeps it, and one asking for another is refused before it writes.
TEST_F(StagedTest, ATableKeepsTheTimeMappingItWasMadeWith) {
  const std::vector<Murmur3RangeSet> parts = ThreeParts();
  for (const Murmur3RangeSet& part : parts) Stage("job1", part, TimeAsGiven(TimeAs::kLong));
  auto committed = Commit("job1");
  ASSERT_TRUE(committed.ok()) << committed.status().ToString();
  EXPECT_EQ(Property(kTimeAsProperty), "long");

  AddGeneration2();
  MaterializeOptions options;
  options.warehouse = Warehouse("parts");
  options.now_seconds = kNow;
  options.token_ranges = parts[0];
  options.stage_dir = StageDir("job2");
  options.mapping = TimeAsGiven(TimeAs::kTime);
  auto refused = MaterializeTable(fs_, *catalog_, ExampleOrders::table_dir(), options);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().kind(), StatusKind::kInvalidArgument);
  for (const char* says : {"shop.orders", "published as long", "--time-as time"}) {
    EXPECT_NE(refused.status().message().find(says), std::string::npos) << says << ": " << refused.status().ToString();
  }
  EXPECT_TRUE(AllFiles(fs_, StageDir("job2")).empty());

  Stage("job2", parts[0]);
  Stage("job2", parts[1], TimeAsGiven(TimeAs::kLong));
  Stage("job2", parts[2]);
  auto second = Commit("job2");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_TRUE(second->front().committed) << second->front().message;
  EXPECT_EQ(Snapshots(), 2);
  EXPECT_EQ(Property(kTimeAsProperty), "long");
}

TEST_F(StagedTest, PartsStagedWithOtherTimeMappingsAreRefused) {
  const std::vector<Murmur3RangeSet> parts = ThreeParts();
  Stage("job1", parts[0], TimeAsGiven(TimeAs::kString));
  Stage("job1", parts[1]);
  Stage("job1", parts[2]);
  auto refused = Commit("job1");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("--time-as string"), std::string::npos) << refused.status().ToString();
  EXPECT_EQ(Snapshots(), 0);
}

}  // namespace
}  // namespace cqlite::materialize
