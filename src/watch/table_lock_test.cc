#include "watch/table_lock.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "io/temp_dir_testing.h"

namespace cqlite::watch {
namespace {

TEST(TableLockTest, SecondHolderIsRefusedWithThePidOfTheFirst) {
  TempDir temp("cqlite-lock-test");
  const std::string& dir = temp.path();
  std::string path = dir + "/ks.t.lock";
  auto first = TableLock::Acquire(path);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto second = TableLock::Acquire(path);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().kind(), StatusKind::kBusy);
  EXPECT_NE(second.status().message().find("held by process " + std::to_string(::getpid())), std::string::npos)
      << second.status().ToString();
  EXPECT_NE(second.status().message().find(path), std::string::npos);
  TableLock::Holder holder = TableLock::Probe(path);
  EXPECT_TRUE(holder.held);
  EXPECT_EQ(holder.pid, ::getpid());
  first->reset();
  EXPECT_FALSE(TableLock::Probe(path).held);
  EXPECT_TRUE(TableLock::Acquire(path).ok());
}

TEST(TableLockTest, AKilledHolderReleasesIt) {
  TempDir temp("cqlite-lock-test");
  const std::string& dir = temp.path();
  std::string path = dir + "/ks.t.lock";
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto lock = TableLock::Acquire(path);
    char byte = lock.ok() ? 1 : 0;
    if (::write(ready[1], &byte, 1) != 1) ::_exit(2);
    ::pause();
    ::_exit(0);
  }
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  ASSERT_EQ(byte, 1);
  auto refused = TableLock::Acquire(path);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("held by process " + std::to_string(child)), std::string::npos)
      << refused.status().ToString();
  ::kill(child, SIGKILL);
  int wstatus = 0;
  ::waitpid(child, &wstatus, 0);
  auto taken = TableLock::Acquire(path);
  EXPECT_TRUE(taken.ok()) << taken.status().ToString();
  ::close(ready[0]);
  ::close(ready[1]);
}

// Runs of `cqlite materialize` share the lock with one another, not with a
// watcher: neither may start while the other has the table.
TEST(TableLockTest, MaterializeRunsShareTheLockAndExcludeAWatcher) {
  TempDir temp("cqlite-lock-test");
  const std::string& dir = temp.path();
  std::string path = TableLockPath(dir + "/warehouse", "ks.t");
  EXPECT_EQ(path, dir + "/warehouse/.cqlite-watch/locks/ks.t.lock");
  auto run1 = TableLock::AcquireShared(LocalFileSystem(), path);  // creates the directory
  ASSERT_TRUE(run1.ok()) << run1.status().ToString();
  auto run2 = TableLock::AcquireShared(LocalFileSystem(), path);
  ASSERT_TRUE(run2.ok()) << run2.status().ToString();
  EXPECT_FALSE(TableLock::Probe(path).held) << "a run by hand is not a watcher";
  auto watcher = TableLock::Acquire(path);
  ASSERT_FALSE(watcher.ok());
  EXPECT_EQ(watcher.status().kind(), StatusKind::kBusy);
  EXPECT_NE(watcher.status().message().find("cqlite materialize run"), std::string::npos);
  run1->reset();
  run2->reset();
  watcher = TableLock::Acquire(path);
  ASSERT_TRUE(watcher.ok()) << watcher.status().ToString();
  auto run3 = TableLock::AcquireShared(LocalFileSystem(), path);
  ASSERT_FALSE(run3.ok());
  EXPECT_EQ(run3.status().kind(), StatusKind::kBusy);
  EXPECT_NE(run3.status().message().find("cqlite watch (process " + std::to_string(::getpid()) + ")"),
            std::string::npos)
      << run3.status().ToString();
}

}  // namespace
}  // namespace cqlite::watch
