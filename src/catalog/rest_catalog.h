// An Apache Iceberg catalog behind a server that speaks the Iceberg REST
// catalog protocol (https://iceberg.apache.org/spec/#iceberg-rest-catalog,
// open-api/rest-catalog-open-api.yaml): Apache Polaris, Nessie, Gravitino,
// Lakekeeper, Unity Catalog, AWS Glue's endpoint, Iceberg's own server.
//
// Address: http(s)://host[:port][/path][?warehouse=W&scope=S&oauth2-server-uri=U]
// (given to cqlite as rest:<address>). GET <base>/v1/config (with the
// warehouse, if given) supplies the server's `defaults` and `overrides`; of
// them the `prefix` shapes every later path, /v1/<prefix>/namespaces/...
// Credentials never appear in the address, so that no message or process
// listing shows them; they come from the environment:
//   CQLITE_REST_CREDENTIAL=<client id>:<client secret>  OAuth2 client
//       credentials, exchanged at <base>/v1/oauth/tokens (or the address's
//       oauth2-server-uri) for a bearer token, with `scope` (default
//       "catalog"; Polaris wants PRINCIPAL_ROLE:ALL); fetched again once
//       when the server answers 401;
//   CQLITE_REST_TOKEN=<token>  a bearer token, sent as it is.
// An https server is checked against the system's certificate authorities,
// or those of the PEM file CQLITE_REST_CA_FILE names.
//
// Creating a table registers the metadata file the committer wrote
// (POST .../namespaces/{ns}/register): one atomic step, which fails with 409
// when another writer created the table first (CommitConflict). A commit is
// POST .../namespaces/{ns}/tables/{t} with requirements (assert-table-uuid,
// assert-ref-snapshot-id of main at the base's snapshot, and
// assert-current-schema-id when the schema changes) and the updates that make
// the base the next version (add-snapshot, set-snapshot-ref, add-schema and
// set-current-schema, set-properties and remove-properties); the server
// writes the new metadata file. A 409 is CommitConflict. When the outcome
// is not known (a 500, 502, 503 or 504, a lost connection, a timeout), the
// table is loaded again: the commit took effect if the table holds the
// snapshot it added; it cannot take effect any more if main moved to another
// snapshot (CommitConflict); while main is still at the base's snapshot the
// request is sent again (its requirements make that safe), a few times,
// then the status is CommitUnknown.
//
// Messages name the endpoint (method and URL without query) and the
// server's error type and message; never a credential or token.
//
// Thread-compatible: one RestCatalog per thread.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "net/http_client.h"
#include "util/status.h"

namespace cqlite::catalog {

// The environment variables a REST catalog takes credentials from.
inline constexpr const char* kRestCredentialVariable = "CQLITE_REST_CREDENTIAL";
inline constexpr const char* kRestTokenVariable = "CQLITE_REST_TOKEN";
// A PEM file of the certificate authorities to trust for an https server
// (a catalog behind a private CA); unset: the system's.
inline constexpr const char* kRestCaFileVariable = "CQLITE_REST_CA_FILE";

struct RestCatalogOptions {
  std::string credential;  // client_id:client_secret (or a secret alone); empty: none
  std::string token;       // a bearer token; empty: none
  net::HttpClientOptions http;
  int commit_attempts = 4;  // sends of a commit whose outcome was unknown, first included
};

// The options from the environment (kRestCredentialVariable, kRestTokenVariable,
// kRestCaFileVariable).
RestCatalogOptions RestCatalogOptionsFromEnvironment();

class RestCatalog final : public Catalog {
 private:
  struct Key {};  // only Open() constructs a RestCatalog

 public:
  // Connects to the server at `address` (see above), fetching a token if a
  // credential is given and the server's configuration. InvalidArgument for
  // a malformed address or refused credentials, IOError when the server
  // cannot be reached; both naming the endpoint.
  static Result<std::unique_ptr<RestCatalog>> Open(const std::string& address,
                                                   RestCatalogOptions options = RestCatalogOptionsFromEnvironment());
  RestCatalog(Key, std::string base_url, std::map<std::string, std::string> query, RestCatalogOptions options);
  ~RestCatalog() override;
  RestCatalog(const RestCatalog&) = delete;
  RestCatalog& operator=(const RestCatalog&) = delete;

  Status CreateNamespace(const Namespace& ns, const std::map<std::string, std::string>& properties) override;
  Result<bool> NamespaceExists(const Namespace& ns) override;
  Result<std::vector<Namespace>> ListNamespaces() override;
  Result<std::vector<std::string>> ListTables(const Namespace& ns) override;
  Result<std::optional<LoadedTable>> LoadTableMetadata(FileSystem& fs, const Namespace& ns,
                                                       const std::string& table) override;
  Result<std::string> Commit(FileSystem& fs, const TableCommit& commit) override;
  std::string DisplayName() const override;

  // The path prefix the server's configuration gave ("" when none).
  const std::string& prefix() const { return prefix_; }

 private:
  struct Reply {
    int status = 0;
    nlohmann::json body;  // null when the body was empty or not JSON
    std::string endpoint;  // "POST http://host/v1/...", for messages
  };

  // Sends a request to <base>/v1/<path> (path after the prefix, already
  // encoded), with the bearer token; fetches a new token once on 401 when
  // a credential is set. Idempotent requests are retried on 5xx and lost
  // connections. IOError when no response came.
  Result<Reply> Call(const std::string& method, const std::string& path, const nlohmann::json* body,
                     const std::vector<std::pair<std::string, std::string>>& query = {});
  Status FetchToken();
  Status LoadConfig();
  // "v1/<prefix>/" + rest.
  std::string Url(const std::string& path, const std::vector<std::pair<std::string, std::string>>& query) const;
  // The error a reply that is not a success stands for.
  Status ErrorOf(const Reply& reply, const std::string& what) const;

  Result<std::optional<LoadedTable>> LoadTable(const Namespace& ns, const std::string& table);
  Result<std::string> CreateTable(FileSystem& fs, const TableCommit& commit);
  Result<std::string> UpdateTable(const TableCommit& commit);
  // A request that commits a table version: sent again while its outcome is
  // unknown (an answer of 5xx, or none), up to options_.commit_attempts
  // times, each outcome learned from the table (LearnOutcome).
  struct CommitRequest {
    std::string path;
    const nlohmann::json* body = nullptr;
    std::string what;  // what failed, for messages
    int64_t snapshot_id = 0;
    std::optional<int64_t> base_snapshot;  // none for a create
    std::vector<int> conflicts;            // the statuses that mean another writer came first
    // The location a success names when the answer names none (a
    // registration: the file registered).
    std::optional<std::string> location_when_unnamed;
    std::string still_unknown;  // what is known when the attempts run out
  };
  // The new metadata location, CommitConflict, CommitUnknown or the error.
  Result<std::string> SendCommit(const Namespace& ns, const std::string& table, const CommitRequest& request);
  // After a commit whose outcome is unknown: OK with the location when the
  // table holds `snapshot_id`; CommitConflict when it moved elsewhere;
  // nullopt when it is still at `base_snapshot` (or absent, for a create).
  Result<std::optional<std::string>> LearnOutcome(const Namespace& ns, const std::string& table,
                                                  int64_t snapshot_id, std::optional<int64_t> base_snapshot,
                                                  const std::string& why);

  std::string base_url_;  // without a trailing slash
  std::map<std::string, std::string> query_;  // the address's parameters
  RestCatalogOptions options_;
  std::string prefix_;
  std::string bearer_;
  std::unique_ptr<net::HttpClient> http_;
};

// One level of a namespace, or a table name, as a path segment: every byte
// but RFC 3986's unreserved characters percent-encoded.
std::string EncodePathSegment(std::string_view text);
// A namespace as a path segment: its levels encoded and joined by %1F, the
// protocol's separator.
std::string EncodeNamespace(const Namespace& ns);

// The requirements and updates that make `base` into `next` (see above):
// {"requirements": [...], "updates": [...]}. NotSupported when `next`
// differs from `base` in a way these updates cannot say.
Result<nlohmann::json> CommitRequestBody(const LoadedTable& base, const iceberg::TableMetadata& next);

}  // namespace cqlite::catalog
