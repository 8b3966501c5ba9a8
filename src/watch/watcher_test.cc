#include "watch/watcher.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "catalog/catalog.h"
#include "io/temp_dir_testing.h"
#include "util/strings.h"
#include "watch/staging.h"
#include "test_paths.h"

namespace cqlite::watch {
namespace {

namespace stdfs = std::filesystem;

// The local file system, where a read of a Data.db whose path has `blocked`
// in it waits until Release(): a table whose run takes as long as a test
// wants.
class BlockingFileSystem final : public FileSystem {
 public:
  explicit BlockingFileSystem(std::string blocked) : blocked_(std::move(blocked)) {}

  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
    cv_.notify_all();
  }
  bool Waited() {
    std::lock_guard<std::mutex> lock(mu_);
    return waited_;
  }

  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(const std::string& path) override {
    if (path.find(blocked_) != std::string::npos && EndsWith(path, "Data.db")) {
      std::unique_lock<std::mutex> lock(mu_);
      waited_ = true;
      cv_.wait(lock, [&] { return released_; });
    }
    return local_.OpenForRead(path);
  }
  Result<std::unique_ptr<WritableFile>> OpenForWrite(const std::string& path) override {
    return local_.OpenForWrite(path);
  }
  Result<std::vector<DirectoryEntry>> ListDirectory(const std::string& path) override {
    return local_.ListDirectory(path);
  }
  bool Exists(const std::string& path) override { return local_.Exists(path); }
  bool IsDirectory(const std::string& path) override { return local_.IsDirectory(path); }
  Status CreateDirectories(const std::string& path) override { return local_.CreateDirectories(path); }
  Status Rename(const std::string& from, const std::string& to) override { return local_.Rename(from, to); }
  Status Remove(const std::string& path) override { return local_.Remove(path); }
  Status SyncFile(const std::string& path) override { return local_.SyncFile(path); }
  Status LinkOrCopy(const std::string& from, const std::string& to) override { return local_.LinkOrCopy(from, to); }
  Result<double> ModifiedTime(const std::string& path) override { return local_.ModifiedTime(path); }

 private:
  FileSystem& local_ = LocalFileSystem();
  std::string blocked_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool released_ = false;
  bool waited_ = false;
};

// The example keyspace's two tables as a data directory of their own.
std::string CopyExampleData(const std::string& root) {
  std::string data = JoinPath(root, "data");
  stdfs::create_directories(data);
  stdfs::copy(CQLITE_SOURCE_DIR "/examples/data/shop", JoinPath(data, "shop"), stdfs::copy_options::recursive);
  return data;
}

// Whether the watcher's status file of `table` says it committed.
bool Committed(const std::string& warehouse, const std::string& table) {
  auto text = LocalFileSystem().ReadFileToString(JoinPath(WatchDirectory(warehouse), "status/" + table + ".json"));
  if (!text.ok()) return false;
  nlohmann::json status = nlohmann::json::parse(*text, nullptr, false);
  return status.is_object() && status.value("commits", 0) > 0;
}

TEST(WatcherTest, ATableWhoseRunTakesLongDoesNotHoldTheOthersBack) {
  TempDir dir("cqlite-watcher-test");
  std::string data = CopyExampleData(dir.path());
  std::string warehouse = JoinPath(dir.path(), "warehouse");
  // Every read of shop.orders' SSTables waits until the test lets it go.
  BlockingFileSystem fs("shop.orders/");
  WatchOptions options;
  options.data_dir = data;
  options.catalog_path = JoinPath(dir.path(), "catalog.db");
  options.interval_seconds = 0.2;
  options.rescan_seconds = 0.2;
  options.use_inotify = false;
  options.run.warehouse = warehouse;
  options.run.now_seconds = 1'800'000'000;
  options.run.threads = 2;
  std::mutex log_mu;
  std::string log;
  options.log = [&](const std::string& line) {
    std::lock_guard<std::mutex> lock(log_mu);
    log += line + "\n";
  };
  std::atomic<bool> stop{false};
  Status result;
  std::thread watcher([&] { result = RunWatcher(fs, options, stop, -1); });

  // shop.price_points commits while shop.orders' run waits for its reads.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!Committed(warehouse, "shop.price_points") && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(Committed(warehouse, "shop.price_points")) << log;
  EXPECT_TRUE(fs.Waited()) << "shop.orders' run never read its SSTables";
  EXPECT_FALSE(Committed(warehouse, "shop.orders")) << log;

  // Let go, it commits too; a stop waits for the runs under way.
  fs.Release();
  while (!Committed(warehouse, "shop.orders") && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(Committed(warehouse, "shop.orders")) << log;
  stop = true;
  watcher.join();
  EXPECT_TRUE(result.ok()) << result.ToString();
  EXPECT_NE(log.find("no run under way; exiting"), std::string::npos) << log;
}

// A watcher of the example keyspace copied into `dir`, running on its own
// thread until Stop().
class ExampleWatcher {
 public:
  explicit ExampleWatcher(const std::string& dir) : data_(CopyExampleData(dir)) {
    options_.data_dir = data_;
    options_.catalog_path = JoinPath(dir, "catalog.db");
    options_.interval_seconds = 0.2;
    options_.rescan_seconds = 0.2;
    options_.use_inotify = false;
    options_.run.warehouse = JoinPath(dir, "warehouse");
    options_.run.now_seconds = 1'800'000'000;
    options_.run.threads = 1;
    options_.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(log_mu_);
      log_ += line + "\n";
    };
    thread_ = std::thread([this] { result_ = RunWatcher(LocalFileSystem(), options_, stop_, -1); });
  }
  ~ExampleWatcher() { Stop(); }

  Status Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    return result_;
  }
  std::string Log() {
    std::lock_guard<std::mutex> lock(log_mu_);
    return log_;
  }
  // Waits up to a minute until `done` holds.
  bool WaitFor(const std::function<bool()>& done) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!done() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return done();
  }
  const std::string& data() const { return data_; }
  const WatchOptions& options() const { return options_; }

 private:
  std::string data_;
  WatchOptions options_;
  std::mutex log_mu_;
  std::string log_;
  std::atomic<bool> stop_{false};
  Status result_;
  std::thread thread_;
};

// The table directory of shop.`table` in `data`.
std::string ExampleTableDir(const std::string& data, const std::string& table) {
  for (const auto& entry : stdfs::directory_iterator(JoinPath(data, "shop"))) {
    if (entry.is_directory() && StartsWith(entry.path().filename().string(), table + "-")) {
      return entry.path().string();
    }
  }
  return "";
}

TEST(WatcherTest, AStagedRunPublishesTheSchemaTheDataDirectoryDeclares) {
  TempDir dir("cqlite-watcher-test");
  ExampleWatcher watcher(dir.path());
  const std::string warehouse = watcher.options().run.warehouse;
  EXPECT_TRUE(watcher.WaitFor([&] { return Committed(warehouse, "shop.orders") && Committed(warehouse, "shop.price_points"); }))
      << watcher.Log();
  Status stopped = watcher.Stop();
  ASSERT_TRUE(stopped.ok()) << stopped.ToString();

  // shop/schema.cql declares both tables: a run over the data directory
  // itself resolves the schema the watcher's staged runs published, so it
  // finds nothing to change (it failed when they had published the
  // serialization header's key, column1 and column2).
  auto catalog = catalog::OpenCatalog(watcher.options().catalog_path, "cqlite", false);
  ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
  for (const char* table : {"orders", "price_points"}) {
    auto report = materialize::MaterializeTable(LocalFileSystem(), **catalog, ExampleTableDir(watcher.data(), table),
                                                watcher.options().run);
    ASSERT_TRUE(report.ok()) << table << ": " << report.status().ToString() << "\n" << watcher.Log();
    EXPECT_FALSE(report->committed) << table;
  }
}

TEST(WatcherTest, ASchemaChangeIsLoggedOnceAtTheNextRun) {
  TempDir dir("cqlite-watcher-test");
  ExampleWatcher watcher(dir.path());
  const std::string warehouse = watcher.options().run.warehouse;
  EXPECT_TRUE(watcher.WaitFor([&] { return Committed(warehouse, "shop.orders"); })) << watcher.Log();

  // ALTER TABLE shop.orders ADD note text; ALTER TYPE shop.address ADD zone text.
  std::string schema_path = JoinPath(watcher.data(), "shop/schema.cql");
  auto schema = LocalFileSystem().ReadFileToString(schema_path);
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  std::string text = *schema;
  size_t fields = text.find("    country text\n");
  ASSERT_NE(fields, std::string::npos);
  text.insert(fields + std::string("    country text").size(), ",\n    zone text");
  size_t columns = text.find("    tags set<text>,\n");
  ASSERT_NE(columns, std::string::npos);
  text.insert(columns, "    note text,\n");
  ASSERT_TRUE(LocalFileSystem().WriteStringToFile(schema_path + ".tmp", text).ok());
  ASSERT_TRUE(LocalFileSystem().Rename(schema_path + ".tmp", schema_path).ok());

  const std::string change =
      "shop.orders: schema changed: column note (text) added, user type shop.address: field zone (text) added";
  EXPECT_TRUE(watcher.WaitFor([&] { return watcher.Log().find(change) != std::string::npos; })) << watcher.Log();
  // The runs after it resolve the same schema: nothing more to say.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  Status stopped = watcher.Stop();
  EXPECT_TRUE(stopped.ok()) << stopped.ToString();
  std::string log = watcher.Log();
  EXPECT_EQ(log.find(change), log.rfind(change)) << log;
  EXPECT_EQ(log.find("shop.price_points: schema changed"), std::string::npos) << log;
}

}  // namespace
}  // namespace cqlite::watch
