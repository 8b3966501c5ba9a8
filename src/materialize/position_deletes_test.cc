#include "materialize/position_deletes.h"

#include <gtest/gtest.h>

#include <map>

#include "parquet/reader.h"
#include "util/strings.h"

namespace cqlite::materialize {
namespace {

// Every (data file, position) the delete files hold, checking that each file
// references one data file and holds its positions in ascending order.
std::map<std::string, std::vector<int64_t>> ReadDeletes(FileSystem& fs, const std::vector<iceberg::DataFile>& files) {
  std::map<std::string, std::vector<int64_t>> out;
  for (const iceberg::DataFile& file : files) {
    EXPECT_EQ(file.content, iceberg::FileContent::kPositionDeletes);
    auto reader = parquet::ParquetReader::Open(fs, file.file_path);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) continue;
    auto rows = (*reader)->ReadAll();
    EXPECT_TRUE(rows.ok());
    EXPECT_EQ(static_cast<int64_t>(rows->size()), file.record_count);
    int64_t previous = -1;
    for (const parquet::Value& row : *rows) {
      EXPECT_EQ(row.fields()[0].bytes(), file.referenced_data_file.value_or("(none)"));
      int64_t position = row.fields()[1].int64_value();
      EXPECT_GT(position, previous) << file.file_path;
      previous = position;
      out[file.referenced_data_file.value_or("(none)")].push_back(position);
    }
  }
  return out;
}

TEST(PositionDeleteWriterTest, OneFilePerDataFileWithinTheBuffer) {
  MemoryFileSystem fs;
  PositionDeleteWriter writer(fs, [](int i) { return StrCat("/t/data/d-", i, ".parquet"); },
                              parquet::CompressionCodec::kZstd);
  ASSERT_TRUE(writer.Add("/t/data/a.parquet", 3).ok());
  ASSERT_TRUE(writer.Add("/t/data/b.parquet", 0).ok());
  ASSERT_TRUE(writer.Add("/t/data/a.parquet", 9).ok());
  auto files = writer.Finish();
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  ASSERT_EQ(files->size(), 2u);
  EXPECT_EQ(writer.positions(), 3);
  auto deletes = ReadDeletes(fs, *files);
  EXPECT_EQ(deletes["/t/data/a.parquet"], (std::vector<int64_t>{3, 9}));
  EXPECT_EQ(deletes["/t/data/b.parquet"], (std::vector<int64_t>{0}));
}

// Past the buffer's limit what is buffered is written out, so a data file can
// get several delete files; together they hold every position once.
TEST(PositionDeleteWriterTest, AFullBufferIsWrittenOut) {
  MemoryFileSystem fs;
  PositionDeleteWriter writer(fs, [](int i) { return StrCat("/t/data/d-", i, ".parquet"); },
                              parquet::CompressionCodec::kZstd, /*max_buffered=*/4);
  std::map<std::string, std::vector<int64_t>> expected;
  for (int64_t i = 0; i < 30; ++i) {
    std::string data_file = StrCat("/t/data/f", i % 3, ".parquet");
    ASSERT_TRUE(writer.Add(data_file, 10 * i).ok());
    expected[data_file].push_back(10 * i);
  }
  auto files = writer.Finish();
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  EXPECT_GE(files->size(), 7u * 3u);  // 30 positions, 4 at a time, over 3 data files
  for (size_t i = 0; i < files->size(); ++i) EXPECT_EQ((*files)[i].file_path, StrCat("/t/data/d-", i, ".parquet"));
  EXPECT_EQ(ReadDeletes(fs, *files), expected);
  EXPECT_EQ(writer.positions(), 30);
}

TEST(PositionDeleteWriterTest, NothingDeletedWritesNothing) {
  MemoryFileSystem fs;
  PositionDeleteWriter writer(fs, [](int i) { return StrCat("/t/d-", i); }, parquet::CompressionCodec::kZstd);
  auto files = writer.Finish();
  ASSERT_TRUE(files.ok());
  EXPECT_TRUE(files->empty());
  EXPECT_FALSE(fs.Exists("/t/d-0"));
}

}  // namespace
}  // namespace cqlite::materialize
