#include "io/file_system.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "io/temp_dir_testing.h"

namespace cqlite {
namespace {

TEST(FileSystemTest, LinkOrCopyOnTheLocalDiskLinksAndOutlivesTheSource) {
  TempDir dir;
  FileSystem& fs = LocalFileSystem();
  std::string from = JoinPath(dir.path(), "nb-1-big-Data.db");
  std::string to = JoinPath(dir.path(), "kept-Data.db");
  ASSERT_TRUE(fs.WriteStringToFile(from, "immutable bytes").ok());
  ASSERT_TRUE(fs.LinkOrCopy(from, to).ok());
  struct stat a, b;
  ASSERT_EQ(::stat(from.c_str(), &a), 0);
  ASSERT_EQ(::stat(to.c_str(), &b), 0);
  EXPECT_EQ(a.st_ino, b.st_ino);  // a link: no byte copied
  ASSERT_TRUE(fs.Remove(from).ok());
  auto kept = fs.ReadFileToString(to);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(*kept, "immutable bytes");
}

TEST(FileSystemTest, LinkOrCopyRefusesToReplaceAFile) {
  TempDir dir;
  FileSystem& fs = LocalFileSystem();
  std::string from = JoinPath(dir.path(), "a"), to = JoinPath(dir.path(), "b");
  ASSERT_TRUE(fs.WriteStringToFile(from, "new").ok());
  ASSERT_TRUE(fs.WriteStringToFile(to, "old").ok());
  Status status = fs.LinkOrCopy(from, to);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find(to), std::string::npos) << status.message();
  EXPECT_EQ(*fs.ReadFileToString(to), "old");

  MemoryFileSystem memory;
  memory.AddFile("/m/a", "new");
  memory.AddFile("/m/b", "old");
  EXPECT_FALSE(memory.LinkOrCopy("/m/a", "/m/b").ok());
  EXPECT_EQ(*memory.ReadFileToString("/m/b"), "old");
}

TEST(FileSystemTest, LinkOrCopyInMemoryCopies) {
  MemoryFileSystem fs;
  std::string big(5 << 20, 'x');  // more than one copy buffer
  big[123] = 'y';
  fs.AddFile("/t/from", big);
  ASSERT_TRUE(fs.LinkOrCopy("/t/from", "/t/to").ok());
  ASSERT_TRUE(fs.Remove("/t/from").ok());
  EXPECT_EQ(*fs.ReadFileToString("/t/to"), big);
  EXPECT_EQ(fs.LinkOrCopy("/t/missing", "/t/other").kind(), StatusKind::kNotFound);
}

TEST(FileSystemTest, LinkOrCopyOfAMissingFileNamesIt) {
  TempDir dir;
  std::string missing = JoinPath(dir.path(), "missing");
  Status status = LocalFileSystem().LinkOrCopy(missing, JoinPath(dir.path(), "to"));
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find(missing), std::string::npos) << status.message();
}

}  // namespace
}  // namespace cqlite
