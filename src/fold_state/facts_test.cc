#include "fold_state/facts.h"

#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "fold/select_json.h"
#include "fold/sstable_source.h"
#include "io/temp_dir_testing.h"
#include "util/strings.h"
#include "test_paths.h"

namespace cqlite::materialize {
namespace {

// Real Cassandra 5.0 tables of two generations each, bundled with the project.
std::string ExampleTable(const std::string& name) {
  std::string keyspace = std::string(CQLITE_SOURCE_DIR) + "/examples/data/shop";
  for (const auto& entry : std::filesystem::directory_iterator(keyspace)) {
    if (entry.path().filename().string().rfind(name + "-", 0) == 0) return entry.path().string();
  }
  return "";
}

// SELECT JSON lines of folding `sources`.
std::vector<std::string> Fold(const TableSchema& schema, std::optional<Partitioner> partitioner,
                              std::vector<std::unique_ptr<FoldSource>> sources) {
  auto fold = TableFold::Make(schema, partitioner, std::move(sources), /*now_seconds=*/1800000000);
  EXPECT_TRUE(fold.ok()) << fold.status().ToString();
  if (!fold.ok()) return {};
  SelectJsonRenderer renderer(schema);
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

std::vector<std::string> FoldTableDirectly(const TableSSTables& table) {
  std::vector<std::unique_ptr<FoldSource>> sources;
  for (const auto& sstable : table.sstables) {
    auto source = OpenSSTableFoldSource(*sstable, table.schema.table);
    EXPECT_TRUE(source.ok()) << source.status().ToString();
    if (source.ok()) sources.push_back(std::move(*source));
  }
  return Fold(table.schema.table, table.partitioner, std::move(sources));
}

class FactsTest : public ::testing::TestWithParam<const char*> {};

TEST_P(FactsTest, KeptGenerationsFoldAsTheTable) {
  TempDir dir;
  FileSystem& fs = LocalFileSystem();
  auto table = OpenTableSSTables(fs, ExampleTable(GetParam()), "");
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  ASSERT_EQ(table->sstables.size(), 2u);
  std::vector<std::string> expected = FoldTableDirectly(*table);
  ASSERT_FALSE(expected.empty());

  std::vector<FactsSet> sets;
  {
    RunFiles files(fs, dir.path());
    for (size_t k = 0; k < table->sstables.size(); ++k) {
      auto set = KeepGeneration(fs, *table->sstables[k], k, files);
      ASSERT_TRUE(set.ok()) << set.status().ToString();
      EXPECT_EQ(set->form, FactsForm::kSSTable);
      EXPECT_GT(set->bytes, static_cast<int64_t>(table->sstables[k]->data_size()));
      for (const std::string& file : set->files) EXPECT_EQ(file.rfind(dir.path(), 0), 0u) << file;
      sets.push_back(*set);
    }
    files.Keep();
  }
  auto opened = OpenFacts(fs, sets, *table);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  EXPECT_EQ(opened->sources.size(), 2u);
  EXPECT_EQ(Fold(*opened->schema, opened->partitioner, std::move(opened->sources)), expected);

  // A kept SSTable passes over the rows a reader does not want, from their
  // clusterings: every partition comes, none of its rows.
  auto passing = OpenFacts(fs, sets, *table);
  ASSERT_TRUE(passing.ok()) << passing.status().ToString();
  int asked = 0;
  const FoldSource::RowTest none = [&](std::string_view, const Clustering&) {
    ++asked;
    return false;
  };
  for (auto& source : passing->sources) {
    source->PassOverRowsNotWanted(&none);
    FoldPartition partition;
    int partitions = 0;
    while (true) {
      auto more = source->Next(&partition);
      ASSERT_TRUE(more.ok()) << more.status().ToString();
      if (!*more) break;
      ++partitions;
      while (true) {
        EXPECT_TRUE(partition.rows.empty()) << source->name();
        if (partition.complete) break;
        ASSERT_TRUE(source->More(&partition).ok());
      }
    }
    EXPECT_GT(partitions, 0);
  }
  EXPECT_GT(asked, 0);

  // Three sets beyond a fan-in of two: the two smallest are merged into one
  // envelope set, and that set folded with the kept SSTable left gives the
  // same rows.
  MergeSettings settings;
  settings.fan_in = 2;
  settings.envelope_prefix = "__";
  std::vector<FactsSet> three = {sets[0], sets[1], sets[0]};  // a generation twice folds as once
  RunFiles merge_files(fs, dir.path());
  auto merged = MergeFactsSets(fs, three, *table, settings, merge_files);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  ASSERT_EQ(merged->size(), 2u);
  int envelope_sets = 0;
  for (const FactsSet& set : *merged) envelope_sets += set.form == FactsForm::kEnvelope;
  EXPECT_EQ(envelope_sets, 1);
  auto reopened = OpenFacts(fs, *merged, *table);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ(Fold(*reopened->schema, reopened->partitioner, std::move(reopened->sources)), expected);
}

INSTANTIATE_TEST_SUITE_P(ExampleTables, FactsTest, ::testing::Values("orders", "price_points"));

TEST(FactsTest, AKeptGenerationNotCommittedIsRemoved) {
  TempDir dir;
  FileSystem& fs = LocalFileSystem();
  auto table = OpenTableSSTables(fs, ExampleTable("orders"), "");
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  std::string kept_dir;
  {
    RunFiles files(fs, dir.path());
    auto set = KeepGeneration(fs, *table->sstables[0], 0, files);
    ASSERT_TRUE(set.ok()) << set.status().ToString();
    kept_dir = DirName(set->files.front());
    EXPECT_TRUE(fs.IsDirectory(kept_dir));
  }
  EXPECT_FALSE(fs.Exists(kept_dir));
  // The table's own files are untouched.
  EXPECT_TRUE(fs.Exists(table->sstables[0]->location().DataPath()));
}

TEST(FactsTest, AKeptSSTableThatIsGoneIsAnErrorNamingIt) {
  TempDir dir;
  FileSystem& fs = LocalFileSystem();
  auto table = OpenTableSSTables(fs, ExampleTable("orders"), "");
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  RunFiles files(fs, dir.path());
  auto set = KeepGeneration(fs, *table->sstables[0], 0, files);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  std::string statistics;
  for (const std::string& file : set->files) {
    if (file.size() > 13 && file.compare(file.size() - 13, 13, "Statistics.db") == 0) statistics = file;
  }
  ASSERT_FALSE(statistics.empty());
  ASSERT_TRUE(fs.Remove(statistics).ok());
  auto opened = OpenFacts(fs, {*set}, *table);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.status().message().find(statistics), std::string::npos) << opened.status().ToString();

  FactsSet no_data = *set;
  no_data.files = {statistics};
  auto refused = OpenFacts(fs, {no_data}, *table);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().kind(), StatusKind::kCorruption) << refused.status().ToString();
  // Merging it is refused alike.
  MergeSettings settings;
  settings.fan_in = 2;
  settings.envelope_prefix = "__";
  auto merged = MergeFactsSets(fs, {no_data, no_data, no_data}, *table, settings, files);
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.status().kind(), StatusKind::kCorruption) << merged.status().ToString();
}

}  // namespace
}  // namespace cqlite::materialize
