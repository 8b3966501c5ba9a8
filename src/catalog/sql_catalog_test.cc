#include "catalog/sql_catalog.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <latch>
#include <set>
#include <thread>

#include "catalog/postgres_db.h"
#include "catalog/postgres_server_testing.h"
#include "catalog/sqlite_db.h"
#include "util/strings.h"

namespace cqlite::catalog {
namespace {

namespace fs = std::filesystem;

enum class Backend { kSqlite, kPostgres };

// A fresh catalog database per test: a SQLite file in a fresh directory, or a
// database on a throwaway PostgreSQL server; removed afterwards.
class SqlCatalogTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = info->name();
    std::replace(name.begin(), name.end(), '/', '_');
    dir_ = fs::temp_directory_path() / StrCat("cqlite_catalog_", getpid(), "_", name);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "catalog.db").string();
    address_ = shown_ = path_;
    if (GetParam() == Backend::kPostgres) {
      auto server = PostgresServerForTesting::Start();
      if (server.status().kind() == StatusKind::kNotFound) GTEST_SKIP() << server.status().message();
      ASSERT_TRUE(server.ok()) << server.status().ToString();
      server_ = std::move(server).value();
      address_ = server_->uri();
      shown_ = RedactedPostgresUri(address_);
    }
  }
  void TearDown() override {
    server_.reset();
    fs::remove_all(dir_);
  }

  bool postgres() const { return GetParam() == Backend::kPostgres; }

  std::unique_ptr<SqlCatalog> OpenOk(const std::string& name = "cqlite") {
    auto catalog = SqlCatalog::Open(address_, name);
    EXPECT_TRUE(catalog.ok()) << catalog.status().ToString();
    return catalog.ok() ? std::move(catalog).value() : nullptr;
  }

  // The catalog's database, opened as another tool would.
  std::unique_ptr<SqlDb> RawDb(bool create = true) {
    if (postgres()) {
      auto opened = PostgresDb::Open(address_);
      EXPECT_TRUE(opened.ok()) << opened.status().ToString();
      return opened.ok() ? std::move(opened).value() : nullptr;
    }
    auto opened = SqliteDb::Open(path_, create, 1000);
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    return opened.ok() ? std::move(opened).value() : nullptr;
  }

  // Runs fixed SQL on the database, as another tool would.
  void RawExec(const char* sql) {
    auto db = RawDb();
    ASSERT_NE(db, nullptr);
    Status status = db->Exec(sql);
    ASSERT_TRUE(status.ok()) << status.ToString();
  }

  // Rows of a query on the database, each row's columns joined with '|' (NULL as "<null>").
  std::vector<std::string> RawQuery(const std::string& sql, int columns) {
    std::vector<std::string> rows;
    auto db = RawDb(/*create=*/false);
    if (db == nullptr) return rows;
    auto stmt = db->Prepare(sql);
    EXPECT_TRUE(stmt.ok()) << stmt.status().ToString();
    if (!stmt.ok()) return rows;
    while (true) {
      auto row = (*stmt)->Step();
      EXPECT_TRUE(row.ok()) << row.status().ToString();
      if (!row.ok() || !*row) break;
      std::string line;
      for (int i = 0; i < columns; ++i) {
        if (i > 0) line += "|";
        line += (*stmt)->ColumnText(i).value_or("<null>");
      }
      rows.push_back(line);
    }
    return rows;
  }

  // The columns of `table` in their order; with `key_only`, those of its
  // primary key, in the key's order.
  std::vector<std::string> ColumnNames(const std::string& table, bool key_only = false) {
    if (!postgres()) {
      return RawQuery(key_only ? StrCat("SELECT name FROM pragma_table_info('", table, "') WHERE pk > 0 ORDER BY pk")
                               : StrCat("SELECT name FROM pragma_table_info('", table, "') ORDER BY cid"),
                      1);
    }
    if (key_only) {
      return RawQuery(StrCat("SELECT k.column_name FROM information_schema.table_constraints c JOIN "
                             "information_schema.key_column_usage k ON k.constraint_name = c.constraint_name "
                             "AND k.table_name = c.table_name WHERE c.table_name = '",
                             table, "' AND c.constraint_type = 'PRIMARY KEY' ORDER BY k.ordinal_position"),
                      1);
    }
    return RawQuery(StrCat("SELECT column_name FROM information_schema.columns WHERE table_name = '", table,
                           "' ORDER BY ordinal_position"),
                    1);
  }

  bool TableExists(const std::string& table) {
    std::string sql = postgres() ? StrCat("SELECT count(*) FROM information_schema.tables WHERE table_name = '",
                                          table, "'")
                                 : StrCat("SELECT count(*) FROM sqlite_schema WHERE name = '", table, "'");
    return RawQuery(sql, 1) != std::vector<std::string>{"0"};
  }

  std::string ReadBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  void WriteBytes(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
  }

  fs::path dir_;
  std::string path_;     // the SQLite file
  std::string address_;  // what SqlCatalog::Open is given
  std::string shown_;    // what messages name the catalog by
  std::unique_ptr<PostgresServerForTesting> server_;
};

// Cases of a SQLite file only.
using SqliteCatalogTest = SqlCatalogTest;

#define ASSERT_OK(expr)                                     \
  do {                                                      \
    ::cqlite::Status _s = (expr);                           \
    ASSERT_TRUE(_s.ok()) << #expr << ": " << _s.ToString(); \
  } while (0)

TEST_P(SqlCatalogTest, CreatesTheV1TablesAndReopens) {
  {
    auto catalog = OpenOk();
    ASSERT_NE(catalog, nullptr);
    EXPECT_TRUE(catalog->has_iceberg_type());
    EXPECT_EQ(catalog->path(), shown_);
    EXPECT_EQ(catalog->catalog_name(), "cqlite");
  }
  EXPECT_EQ(ColumnNames("iceberg_tables"),
            (std::vector<std::string>{"catalog_name", "table_namespace", "table_name", "metadata_location",
                                      "previous_metadata_location", "iceberg_type"}));
  EXPECT_EQ(ColumnNames("iceberg_namespace_properties"),
            (std::vector<std::string>{"catalog_name", "namespace", "property_key", "property_value"}));
  EXPECT_EQ(ColumnNames("iceberg_tables", /*key_only=*/true),
            (std::vector<std::string>{"catalog_name", "table_namespace", "table_name"}));
  // Reopening keeps what is there and does not need to create anything.
  auto again = SqlCatalog::Open(address_, "cqlite", /*create_if_missing=*/false);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE((*again)->has_iceberg_type());
}

TEST_P(SqliteCatalogTest, MissingFileWithoutCreateIsNotFound) {
  auto catalog = SqlCatalog::Open(path_, "cqlite", /*create_if_missing=*/false);
  ASSERT_FALSE(catalog.ok());
  EXPECT_EQ(catalog.status().kind(), StatusKind::kNotFound);
  EXPECT_NE(catalog.status().message().find(path_), std::string::npos) << catalog.status().message();
  EXPECT_FALSE(fs::exists(path_));
}

TEST_P(SqliteCatalogTest, MissingDirectoryIsAnIOError) {
  auto catalog = SqlCatalog::Open((dir_ / "no" / "such" / "dir.db").string());
  ASSERT_FALSE(catalog.ok());
  EXPECT_EQ(catalog.status().kind(), StatusKind::kIOError) << catalog.status().ToString();
}

TEST_P(SqlCatalogTest, AddsTheMissingTableOfAPartialCatalog) {
  RawExec(
      "CREATE TABLE iceberg_tables (catalog_name VARCHAR(255) NOT NULL, table_namespace VARCHAR(255) NOT "
      "NULL, "
      "table_name VARCHAR(255) NOT NULL, metadata_location VARCHAR(1000), previous_metadata_location "
      "VARCHAR(1000), iceberg_type VARCHAR(5), PRIMARY KEY (catalog_name, table_namespace, table_name))");
  auto catalog = OpenOk();
  ASSERT_NE(catalog, nullptr);
  EXPECT_EQ(ColumnNames("iceberg_namespace_properties").size(), 4u);
}

TEST_P(SqlCatalogTest, Namespaces) {
  auto catalog = OpenOk();
  ASSERT_NE(catalog, nullptr);
  EXPECT_FALSE(*catalog->NamespaceExists({"ks"}));
  ASSERT_OK(catalog->CreateNamespace({"ks"}));
  ASSERT_OK(catalog->CreateNamespace({"ks"}));  // idempotent
  ASSERT_OK(catalog->CreateNamespace({"a", "b"}, {{"location", "file:///w/a/b"}, {"owner", "me"}}));
  ASSERT_OK(catalog->CreateNamespace({"a", "b"}, {{"owner", "someone else"}, {"comment", "x"}}));
  EXPECT_TRUE(*catalog->NamespaceExists({"ks"}));
  EXPECT_TRUE(*catalog->NamespaceExists({"a", "b"}));
  EXPECT_TRUE(*catalog->NamespaceExists({"a"}));   // a parent of a namespace exists
  EXPECT_FALSE(*catalog->NamespaceExists({"A"}));  // names are case-sensitive
  EXPECT_FALSE(*catalog->NamespaceExists({"k"}));  // a string prefix is no parent
  EXPECT_FALSE(*catalog->NamespaceExists({"a", "b", "c"}));
  EXPECT_EQ(*catalog->ListNamespaces(), (std::vector<Namespace>{{"a", "b"}, {"ks"}}));
  EXPECT_EQ(RawQuery("SELECT namespace, property_key, property_value FROM iceberg_namespace_properties "
                     "ORDER BY namespace, property_key",
                     3),
            (std::vector<std::string>{"a.b|comment|x", "a.b|exists|true", "a.b|location|file:///w/a/b",
                                      "a.b|owner|me", "ks|exists|true"}));
  EXPECT_EQ(catalog->ListTables({"nope"}).status().kind(), StatusKind::kNotFound);
  EXPECT_TRUE(catalog->ListTables({"ks"})->empty());
}

TEST_P(SqlCatalogTest, CreateLoadListAndCommitTables) {
  auto catalog = OpenOk();
  ASSERT_NE(catalog, nullptr);
  ASSERT_OK(catalog->CreateNamespace({"ks"}));
  EXPECT_EQ(*catalog->LoadTable({"ks"}, "t"), std::nullopt);

  Status no_ns = catalog->CreateTable({"other"}, "t", "file:///w/t/metadata/00000-a.metadata.json");
  EXPECT_EQ(no_ns.kind(), StatusKind::kNotFound) << no_ns.ToString();

  ASSERT_OK(catalog->CreateTable({"ks"}, "t", "file:///w/t/metadata/00000-a.metadata.json"));
  ASSERT_OK(catalog->CreateTable({"ks"}, "b_table", "file:///w/b/metadata/00000-b.metadata.json"));
  Status again = catalog->CreateTable({"ks"}, "t", "file:///w/t/metadata/00000-z.metadata.json");
  EXPECT_EQ(again.kind(), StatusKind::kCommitConflict) << again.ToString();
  EXPECT_NE(again.message().find(shown_), std::string::npos);
  EXPECT_EQ(*catalog->LoadTable({"ks"}, "t"), "file:///w/t/metadata/00000-a.metadata.json");
  EXPECT_EQ(*catalog->ListTables({"ks"}), (std::vector<std::string>{"b_table", "t"}));

  ASSERT_OK(catalog->CommitTable({"ks"}, "t", "file:///w/t/metadata/00000-a.metadata.json",
                                 "file:///w/t/metadata/00001-c.metadata.json"));
  EXPECT_EQ(*catalog->LoadTable({"ks"}, "t"), "file:///w/t/metadata/00001-c.metadata.json");

  // A commit based on a stale location changes nothing.
  Status stale = catalog->CommitTable({"ks"}, "t", "file:///w/t/metadata/00000-a.metadata.json",
                                      "file:///w/t/metadata/00001-d.metadata.json");
  EXPECT_EQ(stale.kind(), StatusKind::kCommitConflict) << stale.ToString();
  EXPECT_NE(stale.message().find("00001-c"), std::string::npos) << stale.message();
  Status missing = catalog->CommitTable({"ks"}, "nope", "a", "b");
  EXPECT_EQ(missing.kind(), StatusKind::kCommitConflict) << missing.ToString();

  EXPECT_EQ(
      RawQuery("SELECT catalog_name, table_namespace, table_name, metadata_location, "
               "previous_metadata_location, iceberg_type FROM iceberg_tables ORDER BY table_name",
               6),
      (std::vector<std::string>{"cqlite|ks|b_table|file:///w/b/metadata/00000-b.metadata.json|<null>|TABLE",
                                "cqlite|ks|t|file:///w/t/metadata/00001-c.metadata.json|file:///w/t/metadata/"
                                "00000-a.metadata.json|TABLE"}));
  // Tables make their namespace exist, even without properties.
  EXPECT_TRUE(*catalog->NamespaceExists({"ks"}));
}

TEST_P(SqlCatalogTest, RowsOfOtherCatalogsAndOtherTablesAreLeftAlone) {
  {
    auto catalog = OpenOk();
    ASSERT_NE(catalog, nullptr);
  }
  RawExec(
      "CREATE TABLE other_tool (k TEXT PRIMARY KEY, v TEXT);"
      "INSERT INTO other_tool VALUES ('iceberg_tables', 'x');"
      "INSERT INTO iceberg_namespace_properties VALUES ('other', 'ks', 'exists', 'true');"
      "INSERT INTO iceberg_tables VALUES ('other', 'ks', 't', 'file:///o/1.json', NULL, 'TABLE');");
  auto catalog = OpenOk();
  ASSERT_NE(catalog, nullptr);
  EXPECT_FALSE(*catalog->NamespaceExists({"ks"}));
  EXPECT_TRUE(catalog->ListNamespaces()->empty());
  EXPECT_EQ(*catalog->LoadTable({"ks"}, "t"), std::nullopt);
  ASSERT_OK(catalog->CreateNamespace({"ks"}));
  ASSERT_OK(catalog->CreateTable({"ks"}, "t", "file:///mine/1.json"));
  ASSERT_OK(catalog->CommitTable({"ks"}, "t", "file:///mine/1.json", "file:///mine/2.json"));
  EXPECT_EQ(catalog->CommitTable({"ks"}, "t", "file:///o/1.json", "file:///mine/3.json").kind(),
            StatusKind::kCommitConflict);

  auto other = OpenOk("other");
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(*other->LoadTable({"ks"}, "t"), "file:///o/1.json");
  EXPECT_EQ(RawQuery("SELECT * FROM other_tool", 2), std::vector<std::string>{"iceberg_tables|x"});
  EXPECT_EQ(RawQuery("SELECT catalog_name, metadata_location, previous_metadata_location FROM iceberg_tables "
                     "ORDER BY catalog_name",
                     3),
            (std::vector<std::string>{"cqlite|file:///mine/2.json|file:///mine/1.json",
                                      "other|file:///o/1.json|<null>"}));
}

TEST_P(SqlCatalogTest, ViewsAreNotTables) {
  {
    auto catalog = OpenOk();
    ASSERT_NE(catalog, nullptr);
  }
  RawExec(
      "INSERT INTO iceberg_tables VALUES ('cqlite', 'ks', 'v', 'file:///v/1.json', NULL, 'VIEW');"
      "INSERT INTO iceberg_tables VALUES ('cqlite', 'ks', 'old', 'file:///old/1.json', NULL, NULL);");
  auto catalog = OpenOk();
  ASSERT_NE(catalog, nullptr);
  EXPECT_TRUE(*catalog->NamespaceExists({"ks"}));
  EXPECT_EQ(*catalog->ListTables({"ks"}), std::vector<std::string>{"old"});
  EXPECT_EQ(*catalog->LoadTable({"ks"}, "v"), std::nullopt);
  EXPECT_EQ(*catalog->LoadTable({"ks"}, "old"), "file:///old/1.json");  // NULL type reads as a table
  EXPECT_EQ(catalog->CreateTable({"ks"}, "v", "file:///t/1.json").kind(), StatusKind::kCommitConflict);
  EXPECT_EQ(catalog->CommitTable({"ks"}, "v", "file:///v/1.json", "file:///v/2.json").kind(),
            StatusKind::kCommitConflict);
  ASSERT_OK(catalog->CommitTable({"ks"}, "old", "file:///old/1.json", "file:///old/2.json"));
  EXPECT_EQ(RawQuery("SELECT table_name, metadata_location FROM iceberg_tables ORDER BY table_name", 2),
            (std::vector<std::string>{"old|file:///old/2.json", "v|file:///v/1.json"}));
}

TEST_P(SqlCatalogTest, V0CatalogIsUsedAsIs) {
  // The DDL of Iceberg Java's V0 catalog: no iceberg_type column.
  RawExec(
      "CREATE TABLE iceberg_tables (catalog_name VARCHAR(255) NOT NULL, table_namespace VARCHAR(255) NOT "
      "NULL, "
      "table_name VARCHAR(255) NOT NULL, metadata_location VARCHAR(1000), previous_metadata_location "
      "VARCHAR(1000), PRIMARY KEY (catalog_name, table_namespace, table_name));"
      "CREATE TABLE iceberg_namespace_properties (catalog_name VARCHAR(255) NOT NULL, namespace VARCHAR(255) "
      "NOT NULL, property_key VARCHAR(255), property_value VARCHAR(1000), PRIMARY KEY (catalog_name, "
      "namespace, "
      "property_key));"
      "INSERT INTO iceberg_tables VALUES ('cqlite', 'ks', 'old', 'file:///old/1.json', NULL);");
  auto catalog = OpenOk();
  ASSERT_NE(catalog, nullptr);
  EXPECT_FALSE(catalog->has_iceberg_type());
  EXPECT_EQ(*catalog->ListTables({"ks"}), std::vector<std::string>{"old"});
  EXPECT_EQ(*catalog->LoadTable({"ks"}, "old"), "file:///old/1.json");
  ASSERT_OK(catalog->CreateNamespace({"ks"}));
  ASSERT_OK(catalog->CreateTable({"ks"}, "new", "file:///new/1.json"));
  EXPECT_EQ(catalog->CreateTable({"ks"}, "old", "file:///x.json").kind(), StatusKind::kCommitConflict);
  ASSERT_OK(catalog->CommitTable({"ks"}, "old", "file:///old/1.json", "file:///old/2.json"));
  EXPECT_EQ(catalog->CommitTable({"ks"}, "old", "file:///old/1.json", "file:///old/3.json").kind(),
            StatusKind::kCommitConflict);
  EXPECT_EQ(*catalog->ListTables({"ks"}), (std::vector<std::string>{"new", "old"}));
  // Still V0: no column was added.
  std::vector<std::string> columns = ColumnNames("iceberg_tables");
  EXPECT_EQ(std::count(columns.begin(), columns.end(), "iceberg_type"), 0);
  EXPECT_EQ(RawQuery("SELECT table_name, metadata_location, previous_metadata_location FROM iceberg_tables "
                     "ORDER BY table_name",
                     3),
            (std::vector<std::string>{"new|file:///new/1.json|<null>",
                                      "old|file:///old/2.json|file:///old/1.json"}));
}

TEST_P(SqliteCatalogTest, NotADatabaseIsRejectedAndLeftUntouched) {
  std::string bytes;
  for (int i = 0; i < 8192; ++i) bytes += static_cast<char>((i * 7919) % 251);
  WriteBytes(path_, bytes);
  auto catalog = SqlCatalog::Open(path_);
  ASSERT_FALSE(catalog.ok());
  EXPECT_EQ(catalog.status().kind(), StatusKind::kInvalidArgument) << catalog.status().ToString();
  EXPECT_NE(catalog.status().message().find(path_), std::string::npos) << catalog.status().message();
  EXPECT_EQ(ReadBytes(path_), bytes);
  // No journal or other file appeared beside it.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);

  std::string text = "catalog_name,table_namespace\nnot,a database\n";
  WriteBytes(path_, text);
  catalog = SqlCatalog::Open(path_);
  ASSERT_FALSE(catalog.ok());
  EXPECT_EQ(catalog.status().kind(), StatusKind::kInvalidArgument) << catalog.status().ToString();
  EXPECT_EQ(ReadBytes(path_), text);
}

TEST_P(SqlCatalogTest, TablesWithoutTheCatalogColumnsAreRejectedAndLeftUntouched) {
  RawExec(
      "CREATE TABLE iceberg_tables (catalog_name TEXT, name TEXT); INSERT INTO iceberg_tables VALUES ('a', "
      "'b')");
  std::string before = ReadBytes(path_);
  auto catalog = SqlCatalog::Open(address_);
  ASSERT_FALSE(catalog.ok());
  EXPECT_EQ(catalog.status().kind(), StatusKind::kCorruption) << catalog.status().ToString();
  EXPECT_NE(catalog.status().message().find(shown_), std::string::npos) << catalog.status().message();
  EXPECT_NE(catalog.status().message().find("table_namespace"), std::string::npos)
      << catalog.status().message();
  EXPECT_EQ(ReadBytes(path_), before);
  EXPECT_EQ(RawQuery("SELECT * FROM iceberg_tables", 2), std::vector<std::string>{"a|b"});
  EXPECT_FALSE(TableExists("iceberg_namespace_properties"));

  // The same for the namespace table.
  fs::remove(path_);
  if (postgres()) RawExec("DROP TABLE iceberg_tables");
  RawExec("CREATE TABLE iceberg_namespace_properties (catalog_name TEXT, namespace TEXT, k TEXT)");
  before = ReadBytes(path_);
  catalog = SqlCatalog::Open(address_);
  ASSERT_FALSE(catalog.ok());
  EXPECT_EQ(catalog.status().kind(), StatusKind::kCorruption) << catalog.status().ToString();
  EXPECT_EQ(ReadBytes(path_), before);
  EXPECT_FALSE(TableExists("iceberg_tables"));
}

TEST_P(SqlCatalogTest, BadNamesAreInvalidArguments) {
  auto catalog = OpenOk();
  ASSERT_NE(catalog, nullptr);
  const std::vector<std::string> bad = {"",     "a.b",
                                        "a/b",  "a\\b",
                                        "a'b",  "a\"b",
                                        "a`b",  std::string("a\0b", 3),
                                        "a\nb", std::string(256, 'x'),
                                        "\xff"};
  for (const std::string& name : bad) {
    SCOPED_TRACE(name);
    Status create_ns = catalog->CreateNamespace({"ok", name});
    EXPECT_EQ(create_ns.kind(), StatusKind::kInvalidArgument) << create_ns.ToString();
    EXPECT_EQ(catalog->NamespaceExists({name}).status().kind(), StatusKind::kInvalidArgument);
    EXPECT_EQ(catalog->ListTables({name}).status().kind(), StatusKind::kInvalidArgument);
    EXPECT_EQ(catalog->LoadTable({"ok"}, name).status().kind(), StatusKind::kInvalidArgument);
    Status create_table = catalog->CreateTable({"ok"}, name, "file:///x.json");
    EXPECT_EQ(create_table.kind(), StatusKind::kInvalidArgument) << create_table.ToString();
    EXPECT_EQ(catalog->CommitTable({"ok"}, name, "a", "b").kind(), StatusKind::kInvalidArgument);
  }
  Status named = catalog->CreateNamespace({"ks", "a/b"});
  EXPECT_NE(named.message().find("\"a/b\""), std::string::npos) << named.message();
  Status table_named = catalog->CreateTable({"ks"}, "x'y", "file:///x.json");
  EXPECT_NE(table_named.message().find("x'y"), std::string::npos) << table_named.message();
  EXPECT_EQ(catalog->CreateNamespace({}).kind(), StatusKind::kInvalidArgument);
  EXPECT_EQ(catalog->CreateNamespace({std::string(128, 'a'), std::string(128, 'b')}).kind(),
            StatusKind::kInvalidArgument);  // 257 bytes joined
  ASSERT_OK(catalog->CreateNamespace({"ks"}));
  EXPECT_EQ(catalog->CreateTable({"ks"}, "t", "").kind(), StatusKind::kInvalidArgument);
  EXPECT_EQ(catalog->CreateNamespace({"ks"}, {{"", "v"}}).kind(), StatusKind::kInvalidArgument);
  EXPECT_EQ(SqlCatalog::Open(address_, "").status().kind(), StatusKind::kInvalidArgument);
  // Nothing was written by the rejected calls.
  EXPECT_EQ(*catalog->ListNamespaces(), std::vector<Namespace>{{"ks"}});
  EXPECT_EQ(RawQuery("SELECT count(*) FROM iceberg_tables", 1), std::vector<std::string>{"0"});

  EXPECT_EQ(*ParseNamespace("a.b"), (Namespace{"a", "b"}));
  EXPECT_EQ(ParseNamespace("a..b").status().kind(), StatusKind::kInvalidArgument);
  EXPECT_EQ(ParseNamespace("").status().kind(), StatusKind::kInvalidArgument);
}

TEST_P(SqlCatalogTest, RacingCommitsHaveOneWinnerPerRound) {
  {
    auto setup = OpenOk();
    ASSERT_NE(setup, nullptr);
    ASSERT_OK(setup->CreateNamespace({"ks"}));
    ASSERT_OK(setup->CreateTable({"ks"}, "t", "loc-0"));
  }
  constexpr int kRounds = 40;
  constexpr int kWriters = 2;
  std::vector<std::unique_ptr<SqlCatalog>> catalogs;
  for (int i = 0; i < kWriters; ++i) {
    catalogs.push_back(OpenOk());
    ASSERT_NE(catalogs.back(), nullptr);
  }
  std::string current = "loc-0";
  for (int round = 1; round <= kRounds; ++round) {
    std::latch start(kWriters);
    std::vector<Status> results(kWriters);
    std::vector<std::thread> threads;
    for (int w = 0; w < kWriters; ++w) {
      threads.emplace_back([&, w] {
        start.arrive_and_wait();
        results[w] = catalogs[w]->CommitTable({"ks"}, "t", current, StrCat("loc-", round, "-", w));
      });
    }
    for (auto& thread : threads) thread.join();
    int winner = -1;
    for (int w = 0; w < kWriters; ++w) {
      if (results[w].ok()) {
        EXPECT_EQ(winner, -1) << "two winners in round " << round;
        winner = w;
      } else {
        EXPECT_EQ(results[w].kind(), StatusKind::kCommitConflict) << results[w].ToString();
      }
    }
    ASSERT_NE(winner, -1) << "no winner in round " << round;
    std::string next = StrCat("loc-", round, "-", winner);
    for (auto& catalog : catalogs) EXPECT_EQ(*catalog->LoadTable({"ks"}, "t"), next);
    EXPECT_EQ(RawQuery("SELECT previous_metadata_location FROM iceberg_tables", 1),
              std::vector<std::string>{current});
    current = next;
  }
}

TEST_P(SqlCatalogTest, ConcurrentOpensOfANewCatalogAgree) {
  constexpr int kOpeners = 4;
  std::latch start(kOpeners);
  std::vector<Status> results(kOpeners);
  std::vector<std::thread> threads;
  for (int i = 0; i < kOpeners; ++i) {
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      auto catalog = SqlCatalog::Open(address_);
      results[i] = catalog.status();
      if (catalog.ok()) results[i] = (*catalog)->CreateNamespace({"ks"});
    });
  }
  for (auto& thread : threads) thread.join();
  for (const Status& status : results) EXPECT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(RawQuery("SELECT namespace, property_key FROM iceberg_namespace_properties", 2),
            std::vector<std::string>{"ks|exists"});
}

INSTANTIATE_TEST_SUITE_P(Backends, SqlCatalogTest, ::testing::Values(Backend::kSqlite, Backend::kPostgres),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return info.param == Backend::kSqlite ? "Sqlite" : "Postgres";
                         });
INSTANTIATE_TEST_SUITE_P(Backends, SqliteCatalogTest, ::testing::Values(Backend::kSqlite),
                         [](const ::testing::TestParamInfo<Backend>&) { return "Sqlite"; });

// A SQLite catalog whose COMMITs fail as over a connection lost while they
// ran: before the server committed, or after (the answer lost), and whose
// reconnection may fail too.
class LosingCommitDb final : public SqlDb {
 public:
  enum class Loss { kNone, kBeforeCommit, kAfterCommit };
  LosingCommitDb(std::unique_ptr<SqlDb> db, Loss* loss, bool* reachable)
      : db_(std::move(db)), loss_(loss), reachable_(reachable) {}

  Status Exec(const char* sql) override {
    if (std::string_view(sql) != "COMMIT" || *loss_ == Loss::kNone) return db_->Exec(sql);
    if (*loss_ == Loss::kAfterCommit) RETURN_IF_ERROR(db_->Exec(sql));
    return Status::IOError("server: connection lost during COMMIT");
  }
  Result<std::unique_ptr<SqlStatement>> Prepare(std::string_view sql) override { return db_->Prepare(sql); }
  int64_t Changes() const override { return db_->Changes(); }
  Status BeginWrite() override { return db_->BeginWrite(); }
  const std::string& name() const override { return db_->name(); }
  Status Reconnect() override {
    if (!*reachable_) return Status::IOError("server: cannot connect again");
    *loss_ = Loss::kNone;
    return Status::OK();
  }

 protected:
  const char* TableColumnsSql() const override { return "SELECT name FROM pragma_table_info(?1)"; }

 private:
  std::unique_ptr<SqlDb> db_;
  Loss* loss_;
  bool* reachable_;
};

TEST_P(SqliteCatalogTest, ACommitWhoseAnswerWasLostIsLearnedFromTheRow) {
  using Loss = LosingCommitDb::Loss;
  Loss loss = Loss::kNone;
  bool reachable = true;
  auto sqlite = SqliteDb::Open(path_, true, 1000);
  ASSERT_TRUE(sqlite.ok()) << sqlite.status().ToString();
  auto opened = SqlCatalog::OpenOn(std::make_unique<LosingCommitDb>(std::move(sqlite).value(), &loss, &reachable),
                                   "cqlite");
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  SqlCatalog& catalog = **opened;
  ASSERT_OK(catalog.CreateNamespace({"ks"}));

  // Lost after the commit: the row names the new location, so it is a success.
  loss = Loss::kAfterCommit;
  ASSERT_OK(catalog.CreateTable({"ks"}, "t", "loc-1"));
  loss = Loss::kAfterCommit;
  ASSERT_OK(catalog.CommitTable({"ks"}, "t", "loc-1", "loc-2"));
  EXPECT_EQ(*catalog.LoadTable({"ks"}, "t"), "loc-2");

  // Lost before: the row still names the old location, and the error stays.
  loss = Loss::kBeforeCommit;
  Status before = catalog.CommitTable({"ks"}, "t", "loc-2", "loc-3");
  EXPECT_EQ(before.kind(), StatusKind::kIOError) << before.ToString();
  EXPECT_EQ(*catalog.LoadTable({"ks"}, "t"), "loc-2");
  loss = Loss::kBeforeCommit;
  EXPECT_EQ(catalog.CreateTable({"ks"}, "u", "loc-u").kind(), StatusKind::kIOError);
  EXPECT_EQ(*catalog.LoadTable({"ks"}, "u"), std::nullopt);

  // Not reachable again: nobody can say, and the caller must keep its files.
  for (Loss lost : {Loss::kBeforeCommit, Loss::kAfterCommit}) {
    loss = lost;
    reachable = false;
    Status unknown = catalog.CommitTable({"ks"}, "t", *catalog.LoadTable({"ks"}, "t").value(), "loc-x");
    EXPECT_EQ(unknown.kind(), StatusKind::kCommitUnknown) << unknown.ToString();
    EXPECT_NE(unknown.message().find("loc-x"), std::string::npos) << unknown.message();
    reachable = true;
    loss = Loss::kNone;
    // Whichever it was, the catalog is usable again.
    ASSERT_OK(catalog.CommitTable({"ks"}, "t", *catalog.LoadTable({"ks"}, "t").value(), "loc-y"));
    ASSERT_OK(catalog.CommitTable({"ks"}, "t", "loc-y", "loc-2"));
  }
}

TEST(PostgresUriTest, IsPostgresUri) {
  EXPECT_TRUE(IsPostgresUri("postgresql://h/db"));
  EXPECT_TRUE(IsPostgresUri("postgres://h/db"));
  EXPECT_FALSE(IsPostgresUri("sqlite:/w/catalog.db"));
  EXPECT_FALSE(IsPostgresUri("/w/postgresql://x"));
}

TEST(PostgresUriTest, PasswordsAreLeftOut) {
  EXPECT_EQ(RedactedPostgresUri("postgresql://me:secret@db.example:5432/cat"), "postgresql://me@db.example:5432/cat");
  EXPECT_EQ(RedactedPostgresUri("postgresql://me:p%40ss@h/cat?sslmode=require"),
            "postgresql://me@h/cat?sslmode=require");
  EXPECT_EQ(RedactedPostgresUri("postgresql://me@h/cat"), "postgresql://me@h/cat");
  EXPECT_EQ(RedactedPostgresUri("postgresql://h:5432/cat"), "postgresql://h:5432/cat");
  EXPECT_EQ(RedactedPostgresUri("postgresql://me:x@h"), "postgresql://me@h");
  // A password in the query leaves the whole query out.
  EXPECT_EQ(RedactedPostgresUri("postgresql://me:x@h/cat?password=y&sslmode=require"), "postgresql://me@h/cat");
}

TEST(PostgresUriTest, ParametersAreNumberedTheirWay) {
  EXPECT_EQ(ToPostgresParameters("SELECT 1 WHERE a = ?1 AND b = ?2 OR c = ?1"),
            "SELECT 1 WHERE a = $1 AND b = $2 OR c = $1");
  EXPECT_EQ(ToPostgresParameters("SELECT '?1', \"a?\" FROM t WHERE x = ?3 AND y = 'it''s ?'"),
            "SELECT '?1', \"a?\" FROM t WHERE x = $3 AND y = 'it''s ?'");
}

TEST(PostgresCatalogTest, AServerThatIsNotThereIsAnIOErrorNamingIt) {
  // A port nothing listens on (one this process holds no server on); the
  // password must not be shown.
  auto catalog = SqlCatalog::Open("postgresql://me:hunter2@127.0.0.1:1/cat");
  ASSERT_FALSE(catalog.ok());
  EXPECT_EQ(catalog.status().kind(), StatusKind::kIOError) << catalog.status().ToString();
  EXPECT_NE(catalog.status().message().find("postgresql://me@127.0.0.1:1/cat"), std::string::npos)
      << catalog.status().message();
  EXPECT_EQ(catalog.status().message().find("hunter2"), std::string::npos) << catalog.status().message();
}

TEST(PostgresCatalogTest, AWrongPasswordIsRefusedWithoutShowingIt) {
  auto server = PostgresServerForTesting::Start();
  if (server.status().kind() == StatusKind::kNotFound) GTEST_SKIP() << server.status().message();
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  std::string uri = (*server)->uri();
  size_t colon = uri.find(':', uri.find("://") + 3);
  size_t at = uri.find('@');
  std::string wrong = uri.substr(0, colon + 1) + "not-the-password" + uri.substr(at);
  auto catalog = SqlCatalog::Open(wrong);
  ASSERT_FALSE(catalog.ok());
  EXPECT_EQ(catalog.status().kind(), StatusKind::kIOError) << catalog.status().ToString();
  EXPECT_NE(catalog.status().message().find(RedactedPostgresUri(uri)), std::string::npos)
      << catalog.status().message();
  EXPECT_NE(catalog.status().message().find("password authentication failed"), std::string::npos)
      << catalog.status().message();
  EXPECT_EQ(catalog.status().message().find("not-the-password"), std::string::npos) << catalog.status().message();
  // A database that does not exist.
  std::string other = uri.substr(0, uri.rfind('/') + 1) + "no_such_db";
  auto missing = SqlCatalog::Open(other);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("no_such_db"), std::string::npos) << missing.status().message();
}

}  // namespace
}  // namespace cqlite::catalog
