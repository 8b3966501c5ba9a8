// For tests of runs on a real table: shop.orders from examples/README.md,
// two generations written by Cassandra 5.0.6 (the second adds, updates and
// deletes rows, so a run that consumes it after the first appends rows and
// deletes positions), laid out in a memory file system as a keyspace
// directory.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "io/file_system.h"
#include "materialize/table_view_testing.h"
#include "util/strings.h"
#include "test_paths.h"

namespace cqlite::materialize {

class ExampleOrders {
 public:
  static constexpr char kSourceKeyspace[] = "/cassandra/shop";  // where runs find it

  // Reads the example's files once; a test failure when they are missing.
  static void Load() {
    if (!table_dir_.empty()) return;
    constexpr char kExampleKeyspace[] = CQLITE_SOURCE_DIR "/examples/data/shop";
    FileSystem& local = LocalFileSystem();
    auto entries = local.ListDirectory(kExampleKeyspace);
    ASSERT_TRUE(entries.ok()) << entries.status().ToString();
    for (const DirectoryEntry& entry : *entries) {
      std::string path = JoinPath(kExampleKeyspace, entry.name);
      if (!entry.is_directory) {
        auto contents = local.ReadFileToString(path);
        ASSERT_TRUE(contents.ok()) << contents.status().ToString();
        files_[JoinPath(kSourceKeyspace, entry.name)] = *contents;
        continue;
      }
      if (!StartsWith(entry.name, "orders-")) continue;
      std::string table_dir = JoinPath(kSourceKeyspace, entry.name);
      for (const auto& [file, contents] : AllFiles(local, path)) files_[JoinPath(table_dir, BaseName(file))] = contents;
      table_dir_ = table_dir;
    }
    ASSERT_FALSE(table_dir_.empty()) << kExampleKeyspace << " holds no orders table";
  }

  // Adds the source as it is before the second flush (`generations` 1) or
  // after it (2).
  static void AddSource(MemoryFileSystem& fs, int generations) {
    for (const auto& [path, contents] : files_) {
      if (generations < 2 && StartsWith(BaseName(path), "oa-2-")) continue;
      fs.AddFile(path, contents);
    }
  }

  // The table's directory under kSourceKeyspace.
  static const std::string& table_dir() { return table_dir_; }

 private:
  static inline std::map<std::string, std::string> files_;
  static inline std::string table_dir_;
};

}  // namespace cqlite::materialize
