#include "io/fault_injection_file_system.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "util/strings.h"

namespace cqlite {
namespace {

// Creates `path` holding `synced` (synced) followed by `unsynced` (not).
void WriteFile(FileSystem& fs, const std::string& path, const std::string& synced,
               const std::string& unsynced) {
  auto file = fs.OpenForWrite(path);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  ASSERT_TRUE((*file)->Append(synced).ok());
  if (!synced.empty()) {
    ASSERT_TRUE((*file)->Sync().ok());
  }
  ASSERT_TRUE((*file)->Append(unsynced).ok());
  ASSERT_TRUE((*file)->Close().ok());
}

std::string Contents(FileSystem& fs, const std::string& path) {
  auto text = fs.ReadFileToString(path);
  return text.ok() ? *text : StrCat("<", text.status().ToString(), ">");
}

TEST(FaultInjectionFileSystemTest, PassesEverythingThroughAndCountsTheMutatingOperations) {
  MemoryFileSystem memory;
  memory.AddFile("/d/old", "before");
  FaultInjectionFileSystem fs(memory);
  ASSERT_TRUE(fs.CreateDirectories("/d/sub").ok());  // 0
  auto file = fs.OpenForWrite("/d/new");            // 1
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE((*file)->Append("abc").ok());  // 2
  ASSERT_TRUE((*file)->Sync().ok());         // 3
  ASSERT_TRUE((*file)->Close().ok());        // not counted
  ASSERT_TRUE(fs.SyncFile("/d/new").ok());   // 4
  ASSERT_TRUE(fs.Rename("/d/new", "/d/renamed").ok());  // 5
  ASSERT_TRUE(fs.Remove("/d/old").ok());                // 6
  // Reads are not counted.
  EXPECT_EQ(Contents(fs, "/d/renamed"), "abc");
  EXPECT_TRUE(fs.Exists("/d/renamed"));
  EXPECT_TRUE(fs.IsDirectory("/d/sub"));
  ASSERT_TRUE(fs.ListDirectory("/d").ok());

  EXPECT_EQ(fs.operation_count(), 7);
  EXPECT_EQ(fs.DescribeOperation(0), "CreateDirectories /d/sub");
  EXPECT_EQ(fs.DescribeOperation(1), "OpenForWrite /d/new");
  EXPECT_EQ(fs.DescribeOperation(2), "Append 3 bytes to /d/new");
  EXPECT_EQ(fs.DescribeOperation(3), "Sync /d/new");
  EXPECT_EQ(fs.DescribeOperation(4), "SyncFile /d/new");
  EXPECT_EQ(fs.DescribeOperation(5), "Rename /d/new to /d/renamed");
  EXPECT_EQ(fs.DescribeOperation(6), "Remove /d/old");
  EXPECT_EQ(Contents(memory, "/d/renamed"), "abc");
  EXPECT_FALSE(memory.Exists("/d/old"));
  EXPECT_FALSE(fs.crashed());
}

TEST(FaultInjectionFileSystemTest, AFailedOperationChangesNothingAndTheNextOnesSucceed) {
  MemoryFileSystem memory;
  FaultInjectionFileSystem fs(memory);
  auto file = fs.OpenForWrite("/f");  // 0
  ASSERT_TRUE(file.ok());
  fs.FailOperation(2);
  ASSERT_TRUE((*file)->Append("one ").ok());  // 1
  Status failed = (*file)->Append("two ");    // 2
  EXPECT_EQ(failed.kind(), StatusKind::kIOError);
  EXPECT_NE(failed.message().find("injected I/O error at operation 2"), std::string::npos)
      << failed.ToString();
  EXPECT_NE(failed.message().find("/f"), std::string::npos) << failed.ToString();
  ASSERT_TRUE((*file)->Append("three").ok());  // 3
  ASSERT_TRUE((*file)->Close().ok());
  EXPECT_EQ(Contents(memory, "/f"), "one three");
  EXPECT_FALSE(fs.crashed());

  // Each kind of operation can be the one that fails, and leaves the file system as it was.
  fs.FailOperation(fs.operation_count());
  EXPECT_FALSE(fs.Rename("/f", "/g").ok());
  EXPECT_TRUE(memory.Exists("/f"));
  EXPECT_FALSE(memory.Exists("/g"));
  fs.FailOperation(fs.operation_count());
  EXPECT_FALSE(fs.Remove("/f").ok());
  EXPECT_TRUE(memory.Exists("/f"));
  fs.FailOperation(fs.operation_count());
  EXPECT_FALSE(fs.OpenForWrite("/f").ok());
  EXPECT_EQ(Contents(memory, "/f"), "one three");
  fs.FailOperation(fs.operation_count());
  EXPECT_FALSE(fs.CreateDirectories("/dir").ok());
  EXPECT_FALSE(memory.Exists("/dir"));
  fs.FailOperation(fs.operation_count());
  EXPECT_FALSE(fs.SyncFile("/f").ok());
  EXPECT_TRUE(fs.Rename("/f", "/g").ok());
  EXPECT_EQ(Contents(memory, "/g"), "one three");
}

TEST(FaultInjectionFileSystemTest, AfterACrashEveryMutatingOperationFailsAndReadsGoOn) {
  MemoryFileSystem memory;
  FaultInjectionFileSystem fs(memory);
  ASSERT_TRUE(fs.WriteStringToFile("/a", "kept").ok());  // operations 0 to 2
  auto file = fs.OpenForWrite("/b");                     // 3
  ASSERT_TRUE(file.ok());
  fs.CrashAtOperation(5);
  ASSERT_TRUE((*file)->Append("x").ok());  // 4
  EXPECT_FALSE(fs.crashed());
  EXPECT_EQ((*file)->Append("y").kind(), StatusKind::kIOError);  // 5
  EXPECT_TRUE(fs.crashed());
  EXPECT_FALSE((*file)->Sync().ok());
  EXPECT_TRUE((*file)->Close().ok());  // the handle is released all the same
  EXPECT_FALSE(fs.OpenForWrite("/c").ok());
  EXPECT_FALSE(fs.Rename("/a", "/c").ok());
  EXPECT_FALSE(fs.Remove("/a").ok());
  EXPECT_FALSE(fs.CreateDirectories("/dir").ok());
  Status late = fs.SyncFile("/a");
  EXPECT_EQ(late.kind(), StatusKind::kIOError);
  EXPECT_NE(late.message().find("injected crash at operation 5"), std::string::npos) << late.ToString();
  EXPECT_EQ(fs.operation_count(), 12);  // the failed ones are numbered too

  EXPECT_EQ(Contents(fs, "/a"), "kept");
  EXPECT_EQ(Contents(fs, "/b"), "x");
  EXPECT_FALSE(memory.Exists("/c"));
  EXPECT_FALSE(memory.Exists("/dir"));

  fs.ClearFaults();
  EXPECT_FALSE(fs.crashed());
  EXPECT_TRUE(fs.Rename("/a", "/c").ok());
  EXPECT_EQ(Contents(memory, "/c"), "kept");
}

TEST(FaultInjectionFileSystemTest, APowerCutKeepsWhatWasSyncedAndNothingElse) {
  MemoryFileSystem memory;
  memory.AddFile("/before/untouched", "there before");
  memory.AddFile("/before/renamed", "also there before");
  memory.AddFile("/before/removed", "gone");
  memory.AddFile("/before/overwritten", "old contents");
  FaultInjectionFileSystem fs(memory);
  WriteFile(fs, "/w/synced-then-appended", "durable ", "lost");
  WriteFile(fs, "/w/never-synced", "", "lost");
  WriteFile(fs, "/w/synced-whole", "all durable", "");
  WriteFile(fs, "/w/synced-by-path", "", "synced after close");
  ASSERT_TRUE(fs.SyncFile("/w/synced-by-path").ok());
  WriteFile(fs, "/w/tmp-synced", "moved ", "and cut");
  ASSERT_TRUE(fs.Rename("/w/tmp-synced", "/w/published").ok());
  WriteFile(fs, "/w/tmp-unsynced", "", "never durable");
  ASSERT_TRUE(fs.Rename("/w/tmp-unsynced", "/w/published-unsynced").ok());
  WriteFile(fs, "/w/renamed-then-synced", "", "synced under its new name");
  ASSERT_TRUE(fs.Rename("/w/renamed-then-synced", "/w/new-name").ok());
  ASSERT_TRUE(fs.SyncFile("/w/new-name").ok());
  ASSERT_TRUE(fs.Rename("/before/renamed", "/w/moved-old").ok());
  ASSERT_TRUE(fs.Remove("/before/removed").ok());
  WriteFile(fs, "/before/overwritten", "", "new, not synced");
  WriteFile(fs, "/w/removed", "synced", "");
  ASSERT_TRUE(fs.Remove("/w/removed").ok());
  ASSERT_TRUE(fs.CreateDirectories("/w/empty").ok());

  fs.CrashAtOperation(fs.operation_count());
  ASSERT_TRUE(fs.DropUnsyncedData().ok());

  EXPECT_EQ(Contents(memory, "/w/synced-then-appended"), "durable ");
  EXPECT_FALSE(memory.Exists("/w/never-synced"));
  EXPECT_EQ(Contents(memory, "/w/synced-whole"), "all durable");
  EXPECT_EQ(Contents(memory, "/w/synced-by-path"), "synced after close");
  EXPECT_FALSE(memory.Exists("/w/tmp-synced"));
  EXPECT_EQ(Contents(memory, "/w/published"), "moved ");
  EXPECT_FALSE(memory.Exists("/w/tmp-unsynced"));
  EXPECT_FALSE(memory.Exists("/w/published-unsynced"));
  EXPECT_EQ(Contents(memory, "/w/new-name"), "synced under its new name");
  EXPECT_EQ(Contents(memory, "/before/untouched"), "there before");
  EXPECT_FALSE(memory.Exists("/before/renamed"));
  EXPECT_EQ(Contents(memory, "/w/moved-old"), "also there before");
  EXPECT_FALSE(memory.Exists("/before/removed"));
  // Truncated by OpenForWrite and not synced since: gone, old contents and new.
  EXPECT_FALSE(memory.Exists("/before/overwritten"));
  EXPECT_FALSE(memory.Exists("/w/removed"));
  EXPECT_TRUE(memory.IsDirectory("/w/empty"));

  // Everything left is durable now: a second cut changes nothing.
  fs.ClearFaults();
  ASSERT_TRUE(fs.DropUnsyncedData().ok());
  EXPECT_EQ(Contents(memory, "/w/synced-then-appended"), "durable ");
  EXPECT_EQ(Contents(memory, "/w/published"), "moved ");
}

TEST(FaultInjectionFileSystemTest, APowerCutWithAFileStillOpenIsRefused) {
  MemoryFileSystem memory;
  FaultInjectionFileSystem fs(memory);
  auto file = fs.OpenForWrite("/open");
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE((*file)->Append("data").ok());
  EXPECT_EQ(fs.DropUnsyncedData().kind(), StatusKind::kInvalidArgument);
  EXPECT_EQ(Contents(memory, "/open"), "data");
  file->reset();  // closed by its destructor
  ASSERT_TRUE(fs.DropUnsyncedData().ok());
  EXPECT_FALSE(memory.Exists("/open"));
}

// Publishes `contents` at `path` through a temporary file and a rename,
// syncing the temporary file first unless told not to.
Status Publish(FileSystem& fs, const std::string& path, const std::string& contents,
               bool sync_before_rename) {
  const std::string temporary = path + ".tmp";
  ASSIGN_OR_RETURN(auto file, fs.OpenForWrite(temporary));
  RETURN_IF_ERROR(file->Append(contents));
  if (sync_before_rename) RETURN_IF_ERROR(file->Sync());
  RETURN_IF_ERROR(file->Close());
  return fs.Rename(temporary, path);
}

// The sweep the file system is for: count the operations of a procedure,
// then crash it at each one, cut the power, and look at what is left.
// Returns, per crash point, what a reader finds at `path` afterwards.
std::vector<std::string> WhatACrashAtEachOperationLeaves(bool sync_before_rename) {
  std::vector<std::string> found;
  int64_t operations = 0;
  {
    MemoryFileSystem memory;
    memory.AddFile("/t/current", "old");
    FaultInjectionFileSystem fs(memory);
    EXPECT_TRUE(Publish(fs, "/t/current", "new", sync_before_rename).ok());
    operations = fs.operation_count();
  }
  for (int64_t n = 0; n <= operations; ++n) {
    MemoryFileSystem memory;
    memory.AddFile("/t/current", "old");
    FaultInjectionFileSystem fs(memory);
    fs.CrashAtOperation(n);
    Status status = Publish(fs, "/t/current", "new", sync_before_rename);
    EXPECT_EQ(status.ok(), n == operations) << n;
    EXPECT_TRUE(fs.DropUnsyncedData().ok());
    found.push_back(memory.Exists("/t/current") ? Contents(memory, "/t/current") : "<missing>");
  }
  return found;
}

TEST(FaultInjectionFileSystemTest, ASweepOfCrashPointsShowsWhetherPublishingIsAtomic) {
  // OpenForWrite, Append, Sync, Rename: the old contents until the rename, the new ones after.
  EXPECT_EQ(WhatACrashAtEachOperationLeaves(/*sync_before_rename=*/true),
            (std::vector<std::string>{"old", "old", "old", "old", "new"}));
  // Without the sync, a power cut after the rename leaves neither.
  EXPECT_EQ(WhatACrashAtEachOperationLeaves(/*sync_before_rename=*/false),
            (std::vector<std::string>{"old", "old", "old", "<missing>"}));
}

}  // namespace
}  // namespace cqlite
