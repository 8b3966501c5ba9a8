#include "catalog/rest_catalog.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "io/file_system.h"
#include "net/loopback_http_server_testing.h"
#include "util/strings.h"

namespace cqlite::catalog {
namespace {

using net::LoopbackHttpServer;
using net::ReceivedRequest;
using net::ScriptedAnswer;
using nlohmann::json;

constexpr char kSecret[] = "s3cr3t-value";

iceberg::Schema TestSchema() {
  iceberg::Schema schema;
  schema.fields.push_back({1, "id", true, iceberg::Type::Primitive(iceberg::Type::Kind::kLong)});
  schema.fields.push_back({2, "name", false, iceberg::Type::Primitive(iceberg::Type::Kind::kString)});
  schema.identifier_field_ids = {1};
  return schema;
}

iceberg::Snapshot TestSnapshot(int64_t id, std::optional<int64_t> parent, int64_t sequence) {
  iceberg::Snapshot s;
  s.snapshot_id = id;
  s.parent_snapshot_id = parent;
  s.sequence_number = sequence;
  s.timestamp_ms = 1'700'000'000'000 + sequence;
  s.manifest_list = StrCat("/w/shop/orders/metadata/snap-", id, ".avro");
  s.summary = {{"operation", "append"}, {"cqlite.fold-state", "/w/state.json"}};
  s.schema_id = 0;
  return s;
}

// The table at its first snapshot, and the next version a run plans on it.
struct Versions {
  LoadedTable base;
  iceberg::TableMetadata next;
};

Versions TestVersions() {
  Versions v;
  v.base.metadata = iceberg::NewTableMetadata("/w/shop/orders", TestSchema(), {{"cqlite.source.table", "orders"}},
                                              1'700'000'000'000);
  iceberg::AddSnapshot(&v.base.metadata, TestSnapshot(11, std::nullopt, 1), "");
  v.base.metadata_location = "/w/shop/orders/metadata/00000-a.metadata.json";
  v.next = v.base.metadata;
  iceberg::AddSnapshot(&v.next, TestSnapshot(22, 11, 2), v.base.metadata_location);
  return v;
}

TEST(RestCatalogTest, ACommitRequestAssertsTheBaseAndAddsTheSnapshot) {
  Versions v = TestVersions();
  v.next.properties["write.parquet.compression-level"] = "3";
  v.next.properties.erase("cqlite.source.table");
  auto body = CommitRequestBody(v.base, v.next);
  ASSERT_TRUE(body.ok()) << body.status().ToString();
  json requirements = (*body)["requirements"];
  ASSERT_EQ(requirements.size(), 2u) << body->dump();
  EXPECT_EQ(requirements[0], json({{"type", "assert-table-uuid"}, {"uuid", v.base.metadata.table_uuid}}));
  EXPECT_EQ(requirements[1], json({{"type", "assert-ref-snapshot-id"}, {"ref", "main"}, {"snapshot-id", 11}}));
  json updates = (*body)["updates"];
  ASSERT_EQ(updates.size(), 4u) << body->dump();
  EXPECT_EQ(updates[0]["action"], "add-snapshot");
  EXPECT_EQ(updates[0]["snapshot"]["snapshot-id"], 22);
  EXPECT_EQ(updates[0]["snapshot"]["parent-snapshot-id"], 11);
  EXPECT_EQ(updates[0]["snapshot"]["sequence-number"], 2);
  EXPECT_EQ(updates[0]["snapshot"]["summary"]["cqlite.fold-state"], "/w/state.json");
  EXPECT_EQ(updates[1], json({{"action", "set-snapshot-ref"}, {"ref-name", "main"}, {"type", "branch"},
                              {"snapshot-id", 22}}));
  EXPECT_EQ(updates[2], json({{"action", "set-properties"}, {"updates", {{"write.parquet.compression-level", "3"}}}}));
  EXPECT_EQ(updates[3], json({{"action", "remove-properties"}, {"removals", {"cqlite.source.table"}}}));
}

TEST(RestCatalogTest, ASchemaChangeIsAddedAndMadeCurrentOnTheBaseSchema) {
  Versions v = TestVersions();
  iceberg::Schema relaxed = TestSchema();
  relaxed.schema_id = 1;
  relaxed.fields[0].required = false;
  relaxed.identifier_field_ids.clear();
  v.next.schemas.push_back(relaxed);
  v.next.current_schema_id = 1;
  auto body = CommitRequestBody(v.base, v.next);
  ASSERT_TRUE(body.ok());
  EXPECT_EQ((*body)["requirements"][2], json({{"type", "assert-current-schema-id"}, {"current-schema-id", 0}}));
  EXPECT_EQ((*body)["updates"][0]["action"], "add-schema");
  EXPECT_EQ((*body)["updates"][0]["schema"]["schema-id"], 1);
  EXPECT_EQ((*body)["updates"][0]["schema"]["fields"][0]["required"], false);
  EXPECT_EQ((*body)["updates"][1], json({{"action", "set-current-schema"}, {"schema-id", -1}}));
  EXPECT_EQ((*body)["updates"][2]["action"], "add-snapshot");
}

TEST(RestCatalogTest, SnapshotsTheNextVersionDropsAreRemoved) {
  Versions v = TestVersions();
  iceberg::TableMetadata expired = v.next;
  iceberg::RemoveSnapshots(&expired, {11}, 1'700'000'000'100, "/w/shop/orders/metadata/00001-b.metadata.json");
  LoadedTable base{"/w/shop/orders/metadata/00001-b.metadata.json", v.next};
  auto body = CommitRequestBody(base, expired);
  ASSERT_TRUE(body.ok()) << body.status().ToString();
  EXPECT_EQ((*body)["requirements"][1], json({{"type", "assert-ref-snapshot-id"}, {"ref", "main"}, {"snapshot-id", 22}}));
  ASSERT_EQ((*body)["updates"].size(), 1u) << body->dump();
  EXPECT_EQ((*body)["updates"][0], json({{"action", "remove-snapshots"}, {"snapshot-ids", {11}}}));
}

TEST(RestCatalogTest, ACommitThatMovesTheTableElsewhereIsRefused) {
  Versions v = TestVersions();
  v.next.location = "/elsewhere";
  auto body = CommitRequestBody(v.base, v.next);
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.status().kind(), StatusKind::kNotSupported);
}

TEST(RestCatalogTest, NamesArePercentEncodedAndLevelsJoinedByUnitSeparators) {
  EXPECT_EQ(EncodePathSegment("a b/c%"), "a%20b%2Fc%25");
  EXPECT_EQ(EncodeNamespace({"a", "b-c"}), "a%1Fb-c");
}

// A REST catalog server of one table, shop.orders, under the prefix the
// configuration gives, with OAuth2 client credentials. What it does with a
// commit is scripted per test.
class FakeRestServer {
 public:
  enum class OnCommit {
    kApply,              // 200
    kConflict,           // 409, nothing changed
    kFailBeforeApplying,  // 500, nothing changed (once; then apply)
    kFailAfterApplying,  // applied, then 500
    kDropBeforeApplying,  // connection closed, nothing changed (once; then apply)
    kAlways503,          // 503, nothing changed, every time
  };

  explicit FakeRestServer(std::optional<LoadedTable> table)
      : table_(std::move(table)), server_([this](const ReceivedRequest& r) { return Handle(r); }) {}

  std::string Address() const { return server_.Url("/api/catalog"); }
  std::vector<ReceivedRequest> requests() { return server_.requests(); }
  void set_on_commit(OnCommit mode) { on_commit_ = mode; }
  void set_next(LoadedTable next) { next_ = std::move(next); }
  int commits_received() const { return commits_; }
  // The token issued last stops being accepted (it expired).
  void ExpireToken() {
    std::lock_guard<std::mutex> lock(mu_);
    accepted_token_.clear();
  }
  std::optional<LoadedTable> table() {
    std::lock_guard<std::mutex> lock(mu_);
    return table_;
  }

 private:
  static ScriptedAnswer Error(int code, const std::string& type, const std::string& message) {
    return {code, json{{"error", {{"message", message}, {"type", type}, {"code", code}}}}.dump()};
  }

  ScriptedAnswer Handle(const ReceivedRequest& r) {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string root = "/api/catalog/v1/";
    if (r.method == "POST" && r.target == root + "oauth/tokens") {
      if (r.body.find(StrCat("client_secret=", kSecret)) == std::string::npos ||
          r.body.find("client_id=cqlite-test") == std::string::npos ||
          r.body.find("grant_type=client_credentials") == std::string::npos) {
        return {401, R"({"error": "invalid_client", "error_description": "Credentials for the client are invalid"})"};
      }
      accepted_token_ = StrCat("tok-", ++tokens_issued_);
      return {200, json{{"access_token", accepted_token_}, {"token_type", "bearer"}, {"expires_in", 3600}}.dump()};
    }
    auto auth = r.headers.find("authorization");
    if (auth == r.headers.end() || accepted_token_.empty() || auth->second != "Bearer " + accepted_token_) {
      return Error(401, "NotAuthorizedException", "Not authorized");
    }
    if (r.method == "GET" && r.target == root + "config?warehouse=wh") {
      return {200, R"({"defaults": {"prefix": "ignored"}, "overrides": {"prefix": "p/cat"}})"};
    }
    const std::string table_path = root + "p/cat/namespaces/shop/tables/orders";
    if (r.method == "GET" && r.target == root + "p/cat/namespaces") {
      return {200, R"({"namespaces": [["shop"]]})"};
    }
    if (r.method == "GET" && r.target == root + "p/cat/namespaces?parent=shop") {
      return {200, R"({"namespaces": []})"};
    }
    if (r.method == "GET" && r.target == root + "p/cat/namespaces/shop/tables") {
      return {200, R"({"identifiers": [{"namespace": ["shop"], "name": "orders"}], "next-page-token": "2"})"};
    }
    if (r.method == "GET" && r.target == root + "p/cat/namespaces/shop/tables?pageToken=2") {
      return {200, R"({"identifiers": [{"namespace": ["shop"], "name": "items"}]})"};
    }
    if (r.method == "GET" && r.target == table_path) {
      if (!table_) return Error(404, "NoSuchTableException", "Table does not exist: shop.orders");
      return {200, Loaded(*table_).dump()};
    }
    if (r.method == "GET" && StartsWith(r.target, root + "p/cat/namespaces/shop/tables/")) {
      return Error(404, "NoSuchTableException", "Table does not exist");
    }
    if (r.method == "POST" && r.target == table_path) {
      ++commits_;
      last_commit_ = json::parse(r.body);
      switch (on_commit_) {
        case OnCommit::kApply:
          table_ = next_;
          return {200, Loaded(*table_).dump()};
        case OnCommit::kConflict:
          return Error(409, "CommitFailedException", "Requirement failed: branch main has changed");
        case OnCommit::kFailBeforeApplying:
          on_commit_ = OnCommit::kApply;
          return Error(500, "RuntimeException", "internal error");
        case OnCommit::kFailAfterApplying:
          table_ = next_;
          return Error(500, "CommitStateUnknownException", "lost track");
        case OnCommit::kDropBeforeApplying: {
          on_commit_ = OnCommit::kApply;
          ScriptedAnswer drop;
          drop.drop = true;
          return drop;
        }
        case OnCommit::kAlways503:
          return Error(503, "ServiceUnavailable", "try later");
      }
    }
    return Error(400, "BadRequestException", StrCat("No route for request: ", r.method, " ", r.target));
  }

  static json Loaded(const LoadedTable& t) {
    return {{"metadata-location", t.metadata_location},
            {"metadata", json::parse(iceberg::TableMetadataToJson(t.metadata))}};
  }

  std::mutex mu_;
  std::optional<LoadedTable> table_;
  LoadedTable next_;
  OnCommit on_commit_ = OnCommit::kApply;
  std::atomic<int> commits_{0};
  int tokens_issued_ = 0;
  std::string accepted_token_;
  json last_commit_;

 public:
  json last_commit() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_commit_;
  }

 private:
  LoopbackHttpServer server_;
};

RestCatalogOptions TestOptions(const std::string& secret = kSecret) {
  RestCatalogOptions options;
  options.credential = StrCat("cqlite-test:", secret);
  options.http.connect_timeout_ms = 2'000;
  options.http.request_timeout_ms = 2'000;
  options.http.initial_backoff_ms = 1;
  options.http.max_backoff_ms = 2;
  options.http.sleep = [](int) {};
  options.commit_attempts = 3;
  return options;
}

class RestCatalogServerTest : public ::testing::Test {
 protected:
  RestCatalogServerTest() : versions_(TestVersions()), server_(versions_.base) {
    LoadedTable next;
    next.metadata = versions_.next;
    next.metadata_location = "/w/shop/orders/metadata/00001-server.metadata.json";
    server_.set_next(next);
  }

  std::unique_ptr<RestCatalog> Open() {
    auto catalog = RestCatalog::Open(server_.Address() + "?warehouse=wh", TestOptions());
    EXPECT_TRUE(catalog.ok()) << catalog.status().ToString();
    return catalog.ok() ? std::move(*catalog) : nullptr;
  }

  Result<std::string> CommitNext(RestCatalog& catalog) {
    TableCommit commit;
    commit.ns = {"shop"};
    commit.table = "orders";
    commit.base = &versions_.base;
    commit.next = &versions_.next;
    return catalog.Commit(LocalFileSystem(), commit);
  }

  Versions versions_;
  FakeRestServer server_;
};

TEST_F(RestCatalogServerTest, OpensWithClientCredentialsAndUsesTheConfiguredPrefix) {
  auto catalog = Open();
  ASSERT_TRUE(catalog);
  EXPECT_EQ(catalog->prefix(), "p/cat");
  auto namespaces = catalog->ListNamespaces();
  ASSERT_TRUE(namespaces.ok()) << namespaces.status().ToString();
  EXPECT_EQ(*namespaces, std::vector<Namespace>({{"shop"}}));
  auto tables = catalog->ListTables({"shop"});
  ASSERT_TRUE(tables.ok()) << tables.status().ToString();
  EXPECT_EQ(*tables, std::vector<std::string>({"items", "orders"}));  // both pages, sorted
  auto loaded = catalog->LoadTableMetadata(LocalFileSystem(), {"shop"}, "orders");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  ASSERT_TRUE(loaded->has_value());
  EXPECT_EQ((*loaded)->metadata_location, versions_.base.metadata_location);
  EXPECT_EQ((*loaded)->metadata.current_snapshot_id, 11);
  auto missing = catalog->LoadTableMetadata(LocalFileSystem(), {"shop"}, "nothing");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
  EXPECT_EQ(catalog->DisplayName(), StrCat("rest:", server_.Address()));
  for (const ReceivedRequest& r : server_.requests()) {
    EXPECT_EQ(r.target.find(kSecret), std::string::npos);
    if (r.target.find("oauth/tokens") == std::string::npos) {
      EXPECT_EQ(r.headers.at("authorization"), "Bearer tok-1");
    }
  }
}

TEST_F(RestCatalogServerTest, TheAddressGivesTheWarehouseAndTheOAuthScope) {
  auto catalog = RestCatalog::Open(server_.Address() + "/?warehouse=w%68&scope=PRINCIPAL_ROLE%3AALL", TestOptions());
  ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
  std::vector<ReceivedRequest> requests = server_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].target, "/api/catalog/v1/oauth/tokens");
  EXPECT_EQ(requests[0].headers.at("content-type"), "application/x-www-form-urlencoded");
  EXPECT_NE(requests[0].body.find("scope=PRINCIPAL_ROLE%3AALL"), std::string::npos) << requests[0].body;
  EXPECT_EQ(requests[1].target, "/api/catalog/v1/config?warehouse=wh");
}

TEST_F(RestCatalogServerTest, AnExpiredTokenIsFetchedAgainOnce) {
  auto catalog = Open();
  ASSERT_TRUE(catalog);
  server_.ExpireToken();
  auto loaded = catalog->LoadTableMetadata(LocalFileSystem(), {"shop"}, "orders");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  ASSERT_TRUE(loaded->has_value());
  std::vector<ReceivedRequest> requests = server_.requests();
  ASSERT_GE(requests.size(), 3u);
  EXPECT_EQ(requests.back().headers.at("authorization"), "Bearer tok-2");
  EXPECT_EQ(requests[requests.size() - 2].target, "/api/catalog/v1/oauth/tokens");
  EXPECT_EQ(requests[requests.size() - 3].headers.at("authorization"), "Bearer tok-1");
}

TEST_F(RestCatalogServerTest, WrongCredentialsAreAClearErrorThatNamesTheEndpointButNoSecret) {
  auto catalog = RestCatalog::Open(server_.Address(), TestOptions("wrong-secret"));
  ASSERT_FALSE(catalog.ok());
  const std::string& message = catalog.status().message();
  EXPECT_EQ(catalog.status().kind(), StatusKind::kInvalidArgument);
  EXPECT_NE(message.find(StrCat("POST ", server_.Address(), "/v1/oauth/tokens")), std::string::npos) << message;
  EXPECT_NE(message.find("HTTP 401"), std::string::npos) << message;
  EXPECT_NE(message.find("invalid_client: Credentials for the client are invalid"), std::string::npos) << message;
  EXPECT_NE(message.find(kRestCredentialVariable), std::string::npos) << message;
  EXPECT_EQ(message.find("wrong-secret"), std::string::npos) << message;
}

TEST_F(RestCatalogServerTest, NoCredentialIsRefusedByAServerThatWantsOne) {
  RestCatalogOptions options = TestOptions();
  options.credential.clear();
  options.token = "not-the-token";
  auto catalog = RestCatalog::Open(server_.Address() + "?warehouse=wh", options);
  ASSERT_FALSE(catalog.ok());
  EXPECT_NE(catalog.status().message().find("GET " + server_.Address() + "/v1/config: "), std::string::npos)
      << catalog.status().message();
  EXPECT_NE(catalog.status().message().find("HTTP 401 (NotAuthorizedException: Not authorized)"), std::string::npos)
      << catalog.status().message();
  EXPECT_EQ(catalog.status().message().find("not-the-token"), std::string::npos);
}

TEST_F(RestCatalogServerTest, AddressesWithCredentialsOrUnknownParametersAreRefused) {
  for (const std::string& address : {StrCat("http://user:", kSecret, "@127.0.0.1:1/x"),
                                    std::string("http://127.0.0.1:1/x?credential=abc"),
                                    std::string("ftp://127.0.0.1/x")}) {
    auto catalog = RestCatalog::Open(address, TestOptions());
    ASSERT_FALSE(catalog.ok()) << address;
    EXPECT_EQ(catalog.status().kind(), StatusKind::kInvalidArgument) << address;
    EXPECT_EQ(catalog.status().message().find(kSecret), std::string::npos) << catalog.status().message();
  }
}

TEST_F(RestCatalogServerTest, ACommitSendsRequirementsAndUpdatesAndReturnsTheServersLocation) {
  auto catalog = Open();
  ASSERT_TRUE(catalog);
  auto location = CommitNext(*catalog);
  ASSERT_TRUE(location.ok()) << location.status().ToString();
  EXPECT_EQ(*location, "/w/shop/orders/metadata/00001-server.metadata.json");
  json sent = server_.last_commit();
  EXPECT_EQ(sent["identifier"], json({{"namespace", {"shop"}}, {"name", "orders"}}));
  EXPECT_EQ(sent["requirements"][1]["snapshot-id"], 11);
  EXPECT_EQ(sent["updates"][0]["snapshot"]["snapshot-id"], 22);
  EXPECT_EQ(server_.commits_received(), 1);
}

TEST_F(RestCatalogServerTest, A409IsACommitConflictWithTheServersMessage) {
  auto catalog = Open();
  ASSERT_TRUE(catalog);
  server_.set_on_commit(FakeRestServer::OnCommit::kConflict);
  auto location = CommitNext(*catalog);
  ASSERT_FALSE(location.ok());
  EXPECT_EQ(location.status().kind(), StatusKind::kCommitConflict);
  EXPECT_NE(location.status().message().find("POST " + server_.Address() + "/v1/p/cat/namespaces/shop/tables/orders"),
            std::string::npos)
      << location.status().message();
  EXPECT_NE(location.status().message().find("CommitFailedException: Requirement failed"), std::string::npos)
      << location.status().message();
  EXPECT_EQ(server_.table()->metadata.current_snapshot_id, 11);
}

TEST_F(RestCatalogServerTest, A500BeforeTheCommitTookEffectIsSentAgain) {
  auto catalog = Open();
  ASSERT_TRUE(catalog);
  server_.set_on_commit(FakeRestServer::OnCommit::kFailBeforeApplying);
  auto location = CommitNext(*catalog);
  ASSERT_TRUE(location.ok()) << location.status().ToString();
  EXPECT_EQ(server_.commits_received(), 2);
  EXPECT_EQ(server_.table()->metadata.current_snapshot_id, 22);
}

TEST_F(RestCatalogServerTest, A500AfterTheCommitTookEffectIsLearnedFromTheTable) {
  auto catalog = Open();
  ASSERT_TRUE(catalog);
  server_.set_on_commit(FakeRestServer::OnCommit::kFailAfterApplying);
  auto location = CommitNext(*catalog);
  ASSERT_TRUE(location.ok()) << location.status().ToString();
  EXPECT_EQ(*location, "/w/shop/orders/metadata/00001-server.metadata.json");
  EXPECT_EQ(server_.commits_received(), 1);  // not sent twice
}

TEST_F(RestCatalogServerTest, ALostConnectionBeforeTheCommitTookEffectIsSentAgain) {
  auto catalog = Open();
  ASSERT_TRUE(catalog);
  server_.set_on_commit(FakeRestServer::OnCommit::kDropBeforeApplying);
  auto location = CommitNext(*catalog);
  ASSERT_TRUE(location.ok()) << location.status().ToString();
  EXPECT_EQ(server_.commits_received(), 2);
}

TEST_F(RestCatalogServerTest, AnOutcomeNeverLearnedIsCommitUnknown) {
  auto catalog = Open();
  ASSERT_TRUE(catalog);
  server_.set_on_commit(FakeRestServer::OnCommit::kAlways503);
  auto location = CommitNext(*catalog);
  ASSERT_FALSE(location.ok());
  EXPECT_EQ(location.status().kind(), StatusKind::kCommitUnknown) << location.status().ToString();
  EXPECT_EQ(server_.commits_received(), 3);  // commit_attempts
}

TEST_F(RestCatalogServerTest, AnUnknownOutcomeWhileAnotherWriterMovedTheTableIsAConflict) {
  auto catalog = Open();
  ASSERT_TRUE(catalog);
  // Another writer's snapshot 33 is current when the catalog looks again.
  LoadedTable theirs;
  theirs.metadata = versions_.base.metadata;
  iceberg::AddSnapshot(&theirs.metadata, TestSnapshot(33, 11, 2), versions_.base.metadata_location);
  theirs.metadata_location = "/w/shop/orders/metadata/00001-theirs.metadata.json";
  server_.set_next(theirs);
  server_.set_on_commit(FakeRestServer::OnCommit::kFailAfterApplying);
  auto location = CommitNext(*catalog);
  ASSERT_FALSE(location.ok());
  EXPECT_EQ(location.status().kind(), StatusKind::kCommitConflict) << location.status().ToString();
  EXPECT_EQ(server_.commits_received(), 1);
}

}  // namespace
}  // namespace cqlite::catalog
