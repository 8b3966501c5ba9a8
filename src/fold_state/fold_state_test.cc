#include "fold_state/fold_state.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>

#include "util/strings.h"

namespace cqlite::materialize {
namespace {

using parquet::Value;

FoldState SampleState() {
  FoldState state;
  state.generations = {{"0f3c/nb-1-big/12345", 1700000000000000},
                       {"0f3c/nb-2-big/99", 1600000000000000},
                       {"0f3c/nb-3-big/7", 1650000000000000}};
  state.facts = {{FactsForm::kEnvelope, {"state/facts-1-0.parquet", "state/facts-1-1.parquet"}, 1, 2048},
                 {FactsForm::kEnvelope, {"state/merge-0.parquet"}, 2, 4096},
                 {FactsForm::kSSTable,
                  {"state/facts/r-3/oa-3-big-Data.db", "state/facts/r-3/oa-3-big-Statistics.db"},
                  1,
                  8192}};
  // Sets that record the generations they hold (the first does not, as
  // those written before they did).
  state.facts[1].identities = {"0f3c/nb-1-big/12345", "0f3c/nb-2-big/99"};
  state.facts[2].identities = {"0f3c/nb-3-big/7"};
  state.row_index = {"state/rows-7-0.parquet", "state/rows-7-1.parquet"};
  state.row_index_updates = {"state/rows-9-updates-0.parquet"};
  state.row_index_update_count = 345;
  state.row_count = 123456;
  state.next_expiry = 1700000500;
  state.folded_at = 1700000100;
  return state;
}

void ExpectSameState(const FoldState& a, const FoldState& b) {
  ASSERT_EQ(a.generations.size(), b.generations.size());
  for (size_t i = 0; i < a.generations.size(); ++i) {
    EXPECT_EQ(a.generations[i].identity, b.generations[i].identity);
    EXPECT_EQ(a.generations[i].max_timestamp, b.generations[i].max_timestamp);
  }
  ASSERT_EQ(a.facts.size(), b.facts.size());
  for (size_t i = 0; i < a.facts.size(); ++i) {
    EXPECT_EQ(a.facts[i].form, b.facts[i].form);
    EXPECT_EQ(a.facts[i].files, b.facts[i].files);
    EXPECT_EQ(a.facts[i].generations, b.facts[i].generations);
    EXPECT_EQ(a.facts[i].bytes, b.facts[i].bytes);
    EXPECT_EQ(a.facts[i].identities, b.facts[i].identities);
  }
  EXPECT_EQ(a.row_index, b.row_index);
  EXPECT_EQ(a.row_index_updates, b.row_index_updates);
  EXPECT_EQ(a.row_index_update_count, b.row_index_update_count);
  EXPECT_EQ(a.row_count, b.row_count);
  EXPECT_EQ(a.next_expiry, b.next_expiry);
  EXPECT_EQ(a.folded_at, b.folded_at);
}

TEST(FoldStateTest, JsonRoundTrip) {
  FoldState state = SampleState();
  std::string text = FoldStateToJson(state);
  auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j.at("format"), 5);
  auto back = FoldStateFromJson(text, "state/fold-state-7.json");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectSameState(*back, state);
  EXPECT_EQ(FoldStateToJson(*back), text);
  EXPECT_FALSE(j.at("facts")[0].contains("identities"));
  EXPECT_EQ(j.at("facts")[1].at("identities").size(), 2u);

  // A set whose identities do not count its generations is malformed.
  j["facts"][2]["identities"] = {"a", "b"};
  auto bad = FoldStateFromJson(j.dump(), "state/fold-state-8.json");
  EXPECT_FALSE(bad.ok());
}

// Format 1 kept one facts file per generation, named in the generation.
TEST(FoldStateTest, ReadsFormatOne) {
  const std::string text = R"({"format": 1, "generations": [
      {"identity": "t/nb-1-big/5", "facts-file": "facts/a.parquet", "max-timestamp": 10},
      {"identity": "t/nb-2-big/6", "facts-file": "facts/b.parquet", "max-timestamp": 20}],
      "row-index": "rows.parquet", "row-count": 3, "folded-at": 99})";
  auto state = FoldStateFromJson(text, "state.json");
  ASSERT_TRUE(state.ok()) << state.status().ToString();
  ASSERT_EQ(state->generations.size(), 2u);
  EXPECT_EQ(state->generations[1].identity, "t/nb-2-big/6");
  EXPECT_EQ(state->DeltaHorizonMicros(), 20);
  ASSERT_EQ(state->facts.size(), 2u);
  EXPECT_EQ(state->facts[0].files, std::vector<std::string>{"facts/a.parquet"});
  EXPECT_EQ(state->facts[1].files, std::vector<std::string>{"facts/b.parquet"});
  EXPECT_EQ(state->facts[1].generations, 1);
  EXPECT_EQ(state->row_index, std::vector<std::string>{"rows.parquet"});
  EXPECT_EQ(state->row_count, 3);
}

// Format 2 named one row index file, empty when there was no row.
TEST(FoldStateTest, ReadsFormatTwo) {
  for (const char* file : {"rows.parquet", ""}) {
    const std::string text = StrCat(R"({"format": 2, "generations": [{"identity": "t/nb-1-big/5", "max-timestamp": 10}],
        "facts": [{"files": ["facts/a.parquet"], "generations": 1, "bytes": 7}],
        "row-index": ")", file, R"(", "row-count": 3, "folded-at": 99})");
    auto state = FoldStateFromJson(text, "state.json");
    ASSERT_TRUE(state.ok()) << state.status().ToString();
    EXPECT_EQ(state->row_index.size(), *file ? 1u : 0u);
    if (*file) {
      EXPECT_EQ(state->row_index[0], file);
    }
  }
}

// Format 3 kept every generation's facts as envelope files.
TEST(FoldStateTest, ReadsFormatThreeAsEnvelopeFacts) {
  const std::string text = R"({"format": 3, "generations": [{"identity": "t/nb-1-big/5", "max-timestamp": 10}],
      "facts": [{"files": ["facts/a-0.parquet", "facts/a-1.parquet"], "generations": 1, "bytes": 7}],
      "row-index": ["rows-0.parquet"], "row-count": 3, "folded-at": 99})";
  auto state = FoldStateFromJson(text, "state.json");
  ASSERT_TRUE(state.ok()) << state.status().ToString();
  ASSERT_EQ(state->facts.size(), 1u);
  EXPECT_EQ(state->facts[0].form, FactsForm::kEnvelope);
  EXPECT_EQ(state->facts[0].files.size(), 2u);
}

TEST(FoldStateTest, EmptyStateRoundTrip) {
  FoldState state;
  EXPECT_EQ(state.next_expiry, INT64_MAX);
  auto back = FoldStateFromJson(FoldStateToJson(state), "p");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectSameState(*back, state);
  EXPECT_EQ(back->next_expiry, INT64_MAX);  // "nothing expires" survives
  EXPECT_TRUE(back->row_index.empty());
}

TEST(FoldStateTest, DeltaHorizonIsTheLatestGenerationTimestamp) {
  FoldState state;
  EXPECT_EQ(state.DeltaHorizonMicros(), 0);
  state = SampleState();
  EXPECT_EQ(state.DeltaHorizonMicros(), 1700000000000000);
  state.generations = {{"a", -5}};
  EXPECT_EQ(state.DeltaHorizonMicros(), -5);
}

TEST(FoldStateTest, BadFilesAreErrorsNamingThePath) {
  const std::string path = "/warehouse/t/cqlite/fold-state-3.json";
  nlohmann::json valid = nlohmann::json::parse(FoldStateToJson(SampleState()));
  auto expect_error = [&path](const std::string& text, StatusKind kind) {
    SCOPED_TRACE(text);
    Result<FoldState> state = Status::Corruption("not run");
    ASSERT_NO_THROW(state = FoldStateFromJson(text, path));
    ASSERT_FALSE(state.ok());
    EXPECT_EQ(state.status().kind(), kind) << state.status().ToString();
    EXPECT_NE(state.status().message().find(path), std::string::npos) << state.status().ToString();
  };
  expect_error("", StatusKind::kCorruption);
  expect_error("not json", StatusKind::kCorruption);
  expect_error("[1]", StatusKind::kCorruption);
  expect_error("{\"format\": 1", StatusKind::kCorruption);

  nlohmann::json future = valid;
  future["format"] = 6;
  expect_error(future.dump(), StatusKind::kNotSupported);

  for (const char* member : {"format", "generations", "facts", "row-index", "row-count", "folded-at"}) {
    SCOPED_TRACE(member);
    nlohmann::json missing = valid;
    missing.erase(member);
    expect_error(missing.dump(), StatusKind::kCorruption);
  }
  nlohmann::json uncounted_updates = valid;
  uncounted_updates.erase("row-index-update-count");
  expect_error(uncounted_updates.dump(), StatusKind::kCorruption);
  nlohmann::json bad_generation = valid;
  bad_generation["generations"][1].erase("identity");
  expect_error(bad_generation.dump(), StatusKind::kCorruption);
  nlohmann::json no_files = valid;
  no_files["facts"][0]["files"] = nlohmann::json::array();
  expect_error(no_files.dump(), StatusKind::kCorruption);
  nlohmann::json no_generations = valid;
  no_generations["facts"][1]["generations"] = 0;
  expect_error(no_generations.dump(), StatusKind::kCorruption);
  nlohmann::json unknown_form = valid;
  unknown_form["facts"][2]["form"] = "rumour";
  expect_error(unknown_form.dump(), StatusKind::kCorruption);
  nlohmann::json merged_sstable = valid;
  merged_sstable["facts"][2]["generations"] = 2;
  expect_error(merged_sstable.dump(), StatusKind::kCorruption);
  nlohmann::json no_form = valid;
  no_form["facts"][2].erase("form");
  expect_error(no_form.dump(), StatusKind::kCorruption);
  nlohmann::json wrong_type = valid;
  wrong_type["row-count"] = "many";
  expect_error(wrong_type.dump(), StatusKind::kCorruption);
  nlohmann::json wrong_expiry = valid;
  wrong_expiry["next-expiry"] = "soon";
  expect_error(wrong_expiry.dump(), StatusKind::kCorruption);
}

// ---------------------------------------------------------------------------
// Merge planning

TEST(PlanFactsMergesTest, NothingToMergeWithinTheFanIn) {
  EXPECT_TRUE(PlanFactsMerges({}, 8).empty());
  EXPECT_TRUE(PlanFactsMerges({5, 1, 9}, 3).empty());
}

TEST(PlanFactsMergesTest, OneOverMergesTheTwoSmallest) {
  auto merges = PlanFactsMerges({50, 3, 40, 7}, 3);
  ASSERT_EQ(merges.size(), 1u);
  EXPECT_EQ(merges[0], (std::vector<size_t>{1, 3}));
}

TEST(PlanFactsMergesTest, AMergeAbsorbsSetsNoLargerThanItsTotal) {
  // Two must go; 4 + 4 = 8 takes the next 5 (13 in all), then 20 > 13 stops.
  auto merges = PlanFactsMerges({20, 4, 100, 4, 5, 90}, 5);
  ASSERT_EQ(merges.size(), 1u);
  EXPECT_EQ(merges[0], (std::vector<size_t>{1, 3, 4}));
}

// Simulates the plan: each merge takes sets that exist and are not yet
// merged, takes at most fan_in of them and the smallest there are, and the
// end leaves at most fan_in sets.
void CheckPlan(const std::vector<int64_t>& sizes, int fan_in) {
  SCOPED_TRACE(testing::Message() << sizes.size() << " sets, fan-in " << fan_in);
  auto merges = PlanFactsMerges(sizes, fan_in);
  std::map<size_t, int64_t> live;
  for (size_t i = 0; i < sizes.size(); ++i) live[i] = sizes[i];
  size_t next = sizes.size();
  for (const auto& merge : merges) {
    ASSERT_GE(merge.size(), 2u);
    ASSERT_LE(merge.size(), static_cast<size_t>(fan_in));
    int64_t total = 0, largest_taken = 0;
    for (size_t index : merge) {
      ASSERT_TRUE(live.count(index)) << index;
      total += live[index];
      largest_taken = std::max(largest_taken, live[index]);
    }
    for (size_t index : merge) live.erase(index);
    for (const auto& [index, size] : live) EXPECT_GE(size, largest_taken) << "a smaller set was left out";
    (void)total;
    live[next++] = total;
  }
  EXPECT_LE(live.size(), static_cast<size_t>(fan_in));
  int64_t sum = 0, sum_after = 0;
  for (int64_t size : sizes) sum += size;
  for (const auto& [index, size] : live) sum_after += size;
  EXPECT_EQ(sum_after, sum);
}

TEST(PlanFactsMergesTest, ManySetsMergeSmallestFirstWithinTheFanIn) {
  std::vector<int64_t> sizes;
  for (int i = 0; i < 100; ++i) sizes.push_back((i * 7919) % 1000 + 1);
  for (int fan_in : {2, 3, 8, 16}) CheckPlan(sizes, fan_in);
  CheckPlan(std::vector<int64_t>(9, 10), 8);
  // A fan-in below 2 is taken as 2.
  auto merges = PlanFactsMerges({1, 2, 3}, 1);
  ASSERT_EQ(merges.size(), 1u);
  EXPECT_EQ(merges[0], (std::vector<size_t>{0, 1}));
}

// Over many runs that each add one small set, the sets stay within the
// fan-in, the large sets a first run left are never merged, and each small
// set's bytes are merged only a few times (log of the number of runs).
TEST(PlanFactsMergesTest, IncrementalRunsMergeSmallSetsAmongThemselves) {
  const int fan_in = 16;
  const int64_t large = 1000000, small = 100;
  const int runs = 1000;
  std::vector<int64_t> sets(8, large);  // a table loaded as 8 large sets
  int64_t merged_bytes = 0;
  for (int run = 0; run < runs; ++run) {
    sets.push_back(small);
    auto merges = PlanFactsMerges(sets, fan_in);
    std::vector<int64_t> all = sets;
    std::vector<bool> gone(sets.size() + merges.size());
    for (const auto& merge : merges) {
      int64_t total = 0;
      for (size_t index : merge) {
        total += all[index];
        merged_bytes += all[index];
        gone[index] = true;
      }
      all.push_back(total);
    }
    sets.clear();
    for (size_t i = 0; i < all.size(); ++i) {
      if (!gone[i]) sets.push_back(all[i]);
    }
    ASSERT_LE(sets.size(), static_cast<size_t>(fan_in));
  }
  EXPECT_EQ(std::count(sets.begin(), sets.end(), large), 8);
  // 1000 small sets (100,000 bytes) merged: each byte about log2(1000) = 10 times at most.
  EXPECT_LE(merged_bytes, 10 * runs * small) << merged_bytes;
}

// ---------------------------------------------------------------------------
// Row index

std::string BE32(uint32_t v) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>(v >> (24 - 8 * i));
  return out;
}

// Entry i of a sample index: partition keys in order, clusterings of several
// shapes (none, all present, with absent components, empty values).
RowIndexEntry SampleEntry(int64_t i) {
  RowIndexEntry e;
  e.partition_key = BE32(static_cast<uint32_t>(i / 3));
  switch (i % 5) {
    case 0: break;  // no clustering (a table without clustering columns)
    case 1: e.clustering.values = {BE32(static_cast<uint32_t>(i)), "text"}; break;
    case 2:
      e.clustering.values = {BE32(static_cast<uint32_t>(i)), ""};
      e.clustering.present = {true, false};  // a component absent (legacy tables)
      break;
    case 3: e.clustering.values = {"", ""}; break;  // empty values, present
    case 4:
      e.clustering.values = {"", std::string(1, '\0'), std::string("a\0b", 3)};
      e.clustering.present = {false, true, true};
      break;
  }
  if (i % 7 == 0) e.partition_key.clear();  // an empty key value
  e.data_file = "s3://bucket/t/data/0000" + std::to_string(i % 4) + ".parquet";
  e.position = i * 2 + 1;
  e.hash = static_cast<uint64_t>(i) * 0x9e3779b97f4a7c15ULL;  // the top bit set for many
  e.expires = i % 11 == 0 ? 1'700'000'000 + i : INT64_MAX;  // most rows never expire
  return e;
}

// What a clustering reads back as: `present` empty when every value is present.
void ExpectSameClustering(const FoldClustering& got, const FoldClustering& want) {
  ASSERT_EQ(got.values.size(), want.values.size());
  for (size_t i = 0; i < want.values.size(); ++i) {
    bool present = want.present.empty() || want.present[i];
    bool got_present = got.present.empty() || got.present[i];
    EXPECT_EQ(got_present, present) << i;
    if (present) {
      EXPECT_EQ(got.values[i], want.values[i]) << i;
    }
  }
  EXPECT_TRUE(got.present.empty() || got.present.size() == got.values.size());
}

// A row index file written before entries had an expiry reads with every
// entry's expiry unknown: the row may expire at any time.
TEST(RowIndexTest, FilesWithoutExpiryReadAsUnknown) {
  MemoryFileSystem fs;
  parquet::Schema schema;
  schema.root_name = "cqlite_row_index";
  schema.fields = {parquet::Field::Binary("partition_key", parquet::Repetition::kRequired, 1),
                   parquet::Field::Binary("clustering", parquet::Repetition::kRequired, 2),
                   parquet::Field::String("data_file", parquet::Repetition::kRequired, 3),
                   parquet::Field::Int64("position", parquet::Repetition::kRequired, 4),
                   parquet::Field::Int64("hash", parquet::Repetition::kRequired, 5)};
  {
    auto writer = parquet::ParquetWriter::Open(fs, "/old-rows.parquet", schema, parquet::WriterOptions());
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    parquet::RowBatch batch(schema);
    batch.column(0).AppendBytes("k");
    batch.column(1).AppendBytes("");
    batch.column(2).AppendBytes("/data/a.parquet");
    batch.column(3).AppendInt64(3);
    batch.column(4).AppendInt64(42);
    batch.EndRows(1);
    ASSERT_TRUE((*writer)->WriteBatch(batch).ok());
    ASSERT_TRUE((*writer)->Close().ok());
  }
  auto reader = RowIndexReader::Open(fs, {"/old-rows.parquet"});
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  RowIndexEntry entry;
  auto more = (*reader)->Next(&entry);
  ASSERT_TRUE(more.ok() && *more) << more.status().ToString();
  EXPECT_EQ(entry.position, 3);
  EXPECT_EQ(entry.hash, 42u);
  EXPECT_EQ(entry.expires, kExpiryUnknown);
}

TEST(RowIndexTest, RoundTripAcrossRowGroupsAndFiles) {
  MemoryFileSystem fs;
  constexpr int64_t kEntries = 65536 * 2 + 1000;
  constexpr int64_t kPerFile = 65536 + 7;
  std::vector<std::string> files;
  {
    RowIndexWriter writer(fs, [](int i) { return StrCat("/warehouse/t/cqlite/rows-1-", i, ".parquet"); }, kPerFile);
    for (int64_t i = 0; i < kEntries; ++i) {
      Status st = writer.Add(SampleEntry(i));
      ASSERT_TRUE(st.ok()) << st.ToString();
    }
    EXPECT_EQ(writer.count(), kEntries);
    auto closed = writer.Close();
    ASSERT_TRUE(closed.ok()) << closed.status().ToString();
    files = *closed;
  }
  ASSERT_EQ(files.size(), 3u);
  for (size_t f = 0; f < files.size(); ++f) {
    EXPECT_EQ(files[f], StrCat("/warehouse/t/cqlite/rows-1-", f, ".parquet"));
    auto parquet_reader = parquet::ParquetReader::Open(fs, files[f]);
    ASSERT_TRUE(parquet_reader.ok()) << parquet_reader.status().ToString();
    EXPECT_EQ((*parquet_reader)->num_rows(), f < 2 ? kPerFile : kEntries - 2 * kPerFile);
    if (f == 0) {
      EXPECT_GE((*parquet_reader)->num_row_groups(), 2);
    }
  }
  auto reader = RowIndexReader::Open(fs, files);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  RowIndexEntry entry;
  for (int64_t i = 0; i < kEntries; ++i) {
    auto more = (*reader)->Next(&entry);
    ASSERT_TRUE(more.ok()) << more.status().ToString();
    ASSERT_TRUE(*more) << "ended at " << i;
    RowIndexEntry want = SampleEntry(i);
    ASSERT_EQ(entry.partition_key, want.partition_key) << i;
    ASSERT_NO_FATAL_FAILURE(ExpectSameClustering(entry.clustering, want.clustering)) << i;
    ASSERT_EQ(entry.data_file, want.data_file) << i;
    ASSERT_EQ(entry.position, want.position) << i;
    ASSERT_EQ(entry.hash, want.hash) << i;
    ASSERT_EQ(entry.expires, want.expires) << i;
  }
  auto more = (*reader)->Next(&entry);
  ASSERT_TRUE(more.ok()) << more.status().ToString();
  EXPECT_FALSE(*more);
  more = (*reader)->Next(&entry);  // and stays at the end
  ASSERT_TRUE(more.ok());
  EXPECT_FALSE(*more);

  // Column by column, after a few entries one by one: the same entries, each once.
  reader = RowIndexReader::Open(fs, files);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  int64_t next = 0;
  for (; next < 10; ++next) ASSERT_TRUE(*(*reader)->Next(&entry));
  RowIndexReader::EntryColumns columns;
  int calls = 0;
  while (true) {
    auto got = (*reader)->NextEntries(&columns);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    if (!*got) break;
    ++calls;
    ASSERT_LT(columns.begin, columns.end);
    EXPECT_EQ(columns.begin, calls == 1 ? 10u : 0u);
    for (size_t r = columns.begin; r < columns.end; ++r, ++next) {
      RowIndexEntry want = SampleEntry(next);
      std::string clustering;
      EncodeRowIndexClustering(want.clustering, &clustering);
      ASSERT_EQ(columns.partition_key->Bytes(r), want.partition_key) << next;
      ASSERT_EQ(columns.clustering->Bytes(r), clustering) << next;
      ASSERT_EQ(columns.data_file->Bytes(r), want.data_file) << next;
      ASSERT_FALSE(columns.removes(r));
      ASSERT_EQ(columns.position->ints[r], want.position) << next;
      ASSERT_EQ(static_cast<uint64_t>(columns.hash->ints[r]), want.hash) << next;
      ASSERT_EQ(columns.expiry(r), want.expires) << next;
    }
  }
  EXPECT_EQ(next, kEntries);
  EXPECT_GE(calls, 4);  // every row group of the three files
}

TEST(RowIndexTest, RowGroupsTheKeyFilterTurnsDownAreNotRead) {
  MemoryFileSystem fs;
  // Three row groups and a bit: partition i / 3 of entry i.
  constexpr int64_t kEntries = 65536 * 3 + 100;
  std::vector<std::string> files;
  {
    RowIndexWriter writer(fs, [](int i) { return StrCat("/warehouse/t/cqlite/rows-2-", i, ".parquet"); });
    for (int64_t i = 0; i < kEntries; ++i) ASSERT_TRUE(writer.Add(SampleEntry(i)).ok());
    auto closed = writer.Close();
    ASSERT_TRUE(closed.ok()) << closed.status().ToString();
    files = *closed;
  }
  // Only the partition of entry 65536 + 10, in the second row group.
  const std::string wanted_key = SampleEntry(65536 + 10).partition_key;
  int groups_offered = 0;
  auto wanted = [&](const parquet::FlatColumn& keys) {
    ++groups_offered;
    for (size_t r = 0; r < keys.size(); ++r) {
      if (keys.Bytes(r) == wanted_key) return RowIndexReader::Wanted::kYes;
    }
    return RowIndexReader::Wanted::kNo;
  };
  auto reader = RowIndexReader::Open(fs, files);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  RowIndexReader::EntryColumns columns;
  std::vector<int64_t> positions;
  while (true) {
    auto got = (*reader)->NextEntries(&columns, wanted);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    if (!*got) break;
    for (size_t r = columns.begin; r < columns.end; ++r) {
      if (columns.partition_key->Bytes(r) == wanted_key) positions.push_back(columns.position->ints[r]);
    }
    // Only the row group holding the key comes back, whole.
    EXPECT_EQ(columns.end - columns.begin, 65536u);
    EXPECT_EQ(columns.clustering->size(), 65536u);
  }
  EXPECT_EQ(groups_offered, 4);
  // The key's three entries, with the positions they were written with.
  const int64_t first = (65536 + 10) / 3 * 3;
  EXPECT_EQ(positions, (std::vector<int64_t>{first * 2 + 1, first * 2 + 3, first * 2 + 5}));
}

TEST(RowIndexTest, AReaderFromATokenReadsEveryEntryFromThereAndStopsWhereTheFilterSays) {
  MemoryFileSystem fs;
  // Four row groups over two files of entries in token order (one per
  // partition key, as the row index of a Murmur3 table holds them).
  constexpr int64_t kEntries = 65536 * 3 + 500;
  std::vector<std::pair<int64_t, std::string>> keys;
  for (int64_t i = 0; i < kEntries; ++i) {
    std::string key = BE32(static_cast<uint32_t>(i));
    keys.emplace_back(Murmur3Token(key), key);
  }
  std::sort(keys.begin(), keys.end());
  std::vector<std::string> files;
  {
    RowIndexWriter writer(fs, [](int i) { return StrCat("/warehouse/t/cqlite/rows-4-", i, ".parquet"); },
                          65536 * 2 + 100);
    for (int64_t i = 0; i < kEntries; ++i) {
      ASSERT_TRUE(writer.Add(keys[i].second, FoldClustering{}, "data.parquet", i, 0, INT64_MAX).ok());
    }
    auto closed = writer.Close();
    ASSERT_TRUE(closed.ok()) << closed.status().ToString();
    files = *closed;
  }
  ASSERT_EQ(files.size(), 2u);
  // Tokens at the start, in each row group, on a row group's first entry,
  // and past the last entry.
  for (int64_t from : {int64_t{0}, int64_t{1}, kEntries / 3, int64_t{65536}, int64_t{65536 * 2 + 100},
                       int64_t{65536 * 2 + 101}, kEntries - 1, kEntries}) {
    const int64_t token = from == kEntries ? keys.back().first + 1 : from == 0 ? INT64_MIN : keys[from].first;
    auto reader = RowIndexReader::OpenFromToken(fs, files, token);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    RowIndexReader::EntryColumns columns;
    int64_t first = -1, last = -1;
    while (true) {
      auto got = (*reader)->NextEntries(&columns);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      if (!*got) break;
      for (size_t r = columns.begin; r < columns.end; ++r) {
        int64_t position = columns.position->ints[r];
        if (first < 0) first = position;
        if (last >= 0) ASSERT_EQ(position, last + 1) << from;  // none skipped after the first
        last = position;
      }
    }
    // Every entry from the token on, and at most a row group before it.
    ASSERT_EQ(last, kEntries - 1) << from;
    EXPECT_LE(first, std::min(from, kEntries - 1)) << from;
    EXPECT_GT(first + 65536 + 100, std::min(from, kEntries - 1)) << from;
  }
  // A filter that wants no row group from the second on ends the reading there.
  auto reader = RowIndexReader::Open(fs, files);
  ASSERT_TRUE(reader.ok());
  int offered = 0;
  auto first_only = [&](const parquet::FlatColumn&) {
    return ++offered == 1 ? RowIndexReader::Wanted::kYes : RowIndexReader::Wanted::kNoneFromHere;
  };
  RowIndexReader::EntryColumns columns;
  int64_t read = 0;
  while (true) {
    auto got = (*reader)->NextEntries(&columns, first_only);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    if (!*got) break;
    read += static_cast<int64_t>(columns.end - columns.begin);
  }
  EXPECT_EQ(read, 65536);
  EXPECT_EQ(offered, 2);
}

TEST(RowIndexTest, ReusedEntryIsOverwritten) {
  MemoryFileSystem fs;
  auto writer = std::make_unique<RowIndexWriter>(fs, [](int i) { return StrCat("ri-", i, ".parquet"); });
  RowIndexEntry a;
  a.partition_key = "k1";
  a.clustering.values = {"x", ""};
  a.clustering.present = {true, false};
  a.data_file = "d1";
  RowIndexEntry b;
  b.partition_key = "k2";
  b.clustering.values = {"y"};
  b.data_file = "d2";
  b.position = 4;
  ASSERT_TRUE(writer->Add(a).ok());
  ASSERT_TRUE(writer->Add(b).ok());
  auto files = writer->Close();
  ASSERT_TRUE(files.ok());
  EXPECT_EQ(*files, std::vector<std::string>{"ri-0.parquet"});

  auto reader = RowIndexReader::Open(fs, *files);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  RowIndexEntry entry;
  ASSERT_TRUE(*(*reader)->Next(&entry));
  EXPECT_EQ(entry.clustering.present, (std::vector<bool>{true, false}));
  ASSERT_TRUE(*(*reader)->Next(&entry));
  EXPECT_EQ(entry.partition_key, "k2");
  EXPECT_EQ(entry.clustering.values, (std::vector<std::string>{"y"}));
  EXPECT_TRUE(entry.clustering.present.empty());
  EXPECT_EQ(entry.data_file, "d2");
  EXPECT_EQ(entry.position, 4);
  EXPECT_FALSE(*(*reader)->Next(&entry));
}

TEST(RowIndexTest, EmptyIndexes) {
  MemoryFileSystem fs;
  // No file, no entries.
  auto reader = RowIndexReader::Open(fs, {});
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  RowIndexEntry entry;
  auto more = (*reader)->Next(&entry);
  ASSERT_TRUE(more.ok());
  EXPECT_FALSE(*more);

  // An index without entries writes no file.
  RowIndexWriter writer(fs, [](int i) { return StrCat("empty-", i, ".parquet"); });
  auto files = writer.Close();
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  EXPECT_TRUE(files->empty());
  EXPECT_FALSE(fs.Exists("empty-0.parquet"));
}

TEST(RowIndexTest, OtherFilesAreNotRowIndexes) {
  MemoryFileSystem fs;
  EXPECT_FALSE(RowIndexReader::Open(fs, {"missing.parquet"}).ok());

  parquet::Schema other;
  other.fields = {parquet::Field::Int64("x", parquet::Repetition::kRequired, 1)};
  auto writer = parquet::ParquetWriter::Open(fs, "other.parquet", other);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->WriteRow(Value::Struct({Value::Int64(1)})).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  auto reader = RowIndexReader::Open(fs, {"other.parquet"});
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().kind(), StatusKind::kCorruption);
  EXPECT_NE(reader.status().message().find("other.parquet"), std::string::npos);
}

}  // namespace
}  // namespace cqlite::materialize
