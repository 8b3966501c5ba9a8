#include "watch/generation_scan.h"

#include <gtest/gtest.h>

#include "watch/staging.h"

namespace cqlite::watch {
namespace {

constexpr char kDir[] = "/data/ks/t-0123456789abcdef0123456789abcdef";
constexpr char kToc[] = "Data.db\nStatistics.db\nDigest.crc32\nTOC.txt\n";

void AddGeneration(MemoryFileSystem& fs, int generation, bool with_toc = true) {
  std::string prefix = std::string(kDir) + "/oa-" + std::to_string(generation) + "-big-";
  fs.AddFile(prefix + "Data.db", "data");
  fs.AddFile(prefix + "Statistics.db", "stats");
  fs.AddFile(prefix + "Digest.crc32", "1");
  if (with_toc) fs.AddFile(prefix + "TOC.txt", kToc);
}

std::vector<std::string> Prefixes(const TableDirectoryScan& scan) {
  std::vector<std::string> out;
  for (const GenerationFiles& g : scan.complete) out.push_back(g.prefix);
  return out;
}

TEST(GenerationScanTest, CompleteGenerationsInGenerationOrder) {
  MemoryFileSystem fs;
  for (int g : {10, 2, 9}) AddGeneration(fs, g);
  auto scan = ScanTableDirectory(fs, kDir);
  ASSERT_TRUE(scan.ok()) << scan.status().ToString();
  EXPECT_EQ(Prefixes(*scan), (std::vector<std::string>{"oa-2-big-", "oa-9-big-", "oa-10-big-"}));
  EXPECT_EQ(scan->complete[0].files,
            (std::vector<std::string>{"oa-2-big-Data.db", "oa-2-big-Digest.crc32", "oa-2-big-Statistics.db",
                                      "oa-2-big-TOC.txt"}));
  EXPECT_TRUE(scan->held_back.empty());
}

TEST(GenerationScanTest, WithoutTocOrWithAMissingListedComponentItWaits) {
  MemoryFileSystem fs;
  AddGeneration(fs, 1);
  AddGeneration(fs, 2, /*with_toc=*/false);
  std::string three = std::string(kDir) + "/oa-3-big-";
  fs.AddFile(three + "Data.db", "data");
  fs.AddFile(three + "TOC.txt", kToc);  // lists Statistics.db and Digest.crc32, not written yet
  auto scan = ScanTableDirectory(fs, kDir);
  ASSERT_TRUE(scan.ok());
  EXPECT_EQ(Prefixes(*scan), (std::vector<std::string>{"oa-1-big-"}));
  ASSERT_EQ(scan->held_back.size(), 2u);
  EXPECT_NE(scan->held_back[0].find("oa-2-big-: no TOC.txt"), std::string::npos) << scan->held_back[0];
  EXPECT_NE(scan->held_back[1].find("oa-3-big-: no Statistics.db"), std::string::npos) << scan->held_back[1];
  fs.AddFile(three + "Statistics.db", "stats");
  scan = ScanTableDirectory(fs, kDir);
  ASSERT_TRUE(scan.ok());
  ASSERT_EQ(scan->held_back.size(), 2u);
  EXPECT_NE(scan->held_back[1].find("lists Digest.crc32"), std::string::npos) << scan->held_back[1];
}

TEST(GenerationScanTest, TransactionLogsDecide) {
  MemoryFileSystem fs;
  for (int g = 1; g <= 6; ++g) AddGeneration(fs, g);
  std::string d = kDir;
  // A compaction of 1 and 2 into 3, committed but its inputs not yet deleted.
  fs.AddFile(d + "/oa_txn_compaction_11111111-1111-1111-1111-111111111111.log",
             "ADD:[" + d + "/oa-3-big-,0,8][123]\nREMOVE:[" + d + "/oa-1-big-,1700000000000,8][456]\nREMOVE:[" + d +
                 "/oa-2-big-,1700000000000,8][789]\nCOMMIT:[,0,0][1]\n");
  // A flush still writing 4 (its line with the path ending without '-').
  fs.AddFile(d + "/oa_txn_flush_22222222-2222-2222-2222-222222222222.log", "ADD:[" + d + "/oa-4-big,0,8][5]\n");
  // An aborted compaction that had added 5 and would have removed 6.
  fs.AddFile(d + "/oa_txn_compaction_33333333-3333-3333-3333-333333333333.log",
             "ADD:[" + d + "/oa-5-big-,0,8][1]\nREMOVE:[" + d + "/oa-6-big-,0,8][2]\nABORT:[,0,0][3]\n");
  auto scan = ScanTableDirectory(fs, kDir);
  ASSERT_TRUE(scan.ok());
  EXPECT_EQ(Prefixes(*scan), (std::vector<std::string>{"oa-3-big-", "oa-6-big-"}));
  ASSERT_EQ(scan->held_back.size(), 4u);
  EXPECT_NE(scan->held_back[0].find("oa-1-big-: removed by committed oa_txn_compaction_1111"), std::string::npos);
  EXPECT_NE(scan->held_back[2].find("oa-4-big-: added by unfinished oa_txn_flush_2222"), std::string::npos);
  EXPECT_NE(scan->held_back[3].find("oa-5-big-: added by aborted"), std::string::npos);
}

TEST(GenerationScanTest, TemporaryFilesAndSubdirectoriesAreNotPartOfTheTable) {
  MemoryFileSystem fs;
  AddGeneration(fs, 1);
  std::string d = kDir;
  fs.AddFile(d + "/tmp-oa-7-big-Data.db", "x");
  fs.AddFile(d + "/tmplink-oa-8-big-Data.db", "x");
  fs.AddFile(d + "/ks-t-tmp-ka-9-Data.db", "x");
  fs.AddFile(d + "/snapshots/s1/oa-5-big-Data.db", "x");
  fs.AddFile(d + "/snapshots/s1/oa-5-big-TOC.txt", "Data.db\n");
  fs.AddFile(d + "/backups/oa-6-big-Data.db", "x");
  auto scan = ScanTableDirectory(fs, kDir);
  ASSERT_TRUE(scan.ok());
  EXPECT_EQ(Prefixes(*scan), (std::vector<std::string>{"oa-1-big-"}));
}

TEST(GenerationScanTest, EmptyDirectoryIsNoGeneration) {
  MemoryFileSystem fs;
  ASSERT_TRUE(fs.CreateDirectories(kDir).ok());
  auto scan = ScanTableDirectory(fs, kDir);
  ASSERT_TRUE(scan.ok()) << scan.status().ToString();
  EXPECT_TRUE(scan->complete.empty());
}

TEST(TransactionLogTest, LinesCutShortAreSkipped) {
  TransactionLog log = ParseTransactionLog("ADD:[/d/nb-3-big-,0,8][1]\nREMOVE:[/d/nb-1-big-,5,8][2]\nCOMMIT:[,0");
  EXPECT_EQ(log.added, (std::vector<std::string>{"nb-3-big-"}));
  EXPECT_EQ(log.removed, (std::vector<std::string>{"nb-1-big-"}));
  EXPECT_FALSE(log.committed);
  EXPECT_FALSE(log.aborted);
  EXPECT_TRUE(IsTransactionLogName("nb_txn_flush_6c7a2e40-0000-0000-0000-000000000000.log"));
  EXPECT_FALSE(IsTransactionLogName("nb-1-big-Data.db"));
}

TEST(StagingTest, LinksEveryFileAndRemovesTheTree) {
  MemoryFileSystem fs;
  AddGeneration(fs, 1);
  AddGeneration(fs, 2);
  auto scan = ScanTableDirectory(fs, kDir);
  ASSERT_TRUE(scan.ok());
  std::string staged = "/wh/.cqlite-watch/staging/ks.t/ks/t-0123456789abcdef0123456789abcdef";
  ASSERT_TRUE(StageGenerations(fs, kDir, scan->complete, staged).ok());
  EXPECT_EQ(*fs.ReadFileToString(staged + "/oa-2-big-TOC.txt"), kToc);
  auto again = ScanTableDirectory(fs, staged);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(Prefixes(*again), Prefixes(*scan));
  // A file compaction removed after the scan: NotFound, naming it.
  ASSERT_TRUE(RemoveTree(fs, "/wh/.cqlite-watch/staging/ks.t").ok());
  EXPECT_FALSE(fs.Exists(staged + "/oa-1-big-Data.db"));
  ASSERT_TRUE(fs.Remove(std::string(kDir) + "/oa-2-big-Statistics.db").ok());
  Status s = StageGenerations(fs, kDir, scan->complete, staged);
  EXPECT_EQ(s.kind(), StatusKind::kNotFound) << s.ToString();
  EXPECT_NE(s.message().find("oa-2-big-Statistics.db"), std::string::npos) << s.ToString();
  EXPECT_TRUE(RemoveTree(fs, "/nowhere").ok());
}

}  // namespace
}  // namespace cqlite::watch
