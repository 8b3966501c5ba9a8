#include "catalog/rest_catalog.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <set>
#include <thread>

#include "util/json_integer.h"
#include "util/strings.h"

namespace cqlite::catalog {

namespace {

using nlohmann::json;

constexpr const char* kMainBranch = "main";
constexpr const char* kDefaultScope = "catalog";
// The address parameters a REST catalog takes.
const std::set<std::string>& KnownParameters() {
  static const std::set<std::string> names = {"warehouse", "scope", "oauth2-server-uri"};
  return names;
}

bool IsUnreserved(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~';
}

std::string PercentEncode(std::string_view text) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    if (IsUnreserved(c)) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    }
  }
  return out;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<std::string> PercentDecode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%') {
      int hi = i + 2 < text.size() ? HexValue(text[i + 1]) : -1;
      int lo = i + 2 < text.size() ? HexValue(text[i + 2]) : -1;
      if (hi < 0 || lo < 0) return Status::InvalidArgument("bad % escape");
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string FormEncode(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out;
  for (const auto& [key, value] : fields) {
    if (!out.empty()) out += '&';
    out += PercentEncode(key) + "=" + PercentEncode(value);
  }
  return out;
}

// The server's error message in a reply: the protocol's ErrorModel
// ({"error": {"message", "type", "code"}}) or OAuth2's
// ({"error": "invalid_client", "error_description": ...}).
std::string ServerMessage(const json& body) {
  if (!body.is_object() || !body.contains("error")) return "";
  const json& error = body["error"];
  if (error.is_object()) {
    std::string type = error.value("type", std::string());
    std::string message = error.contains("message") && error["message"].is_string()
                              ? error["message"].get<std::string>()
                              : std::string();
    return type.empty() ? message : message.empty() ? type : StrCat(type, ": ", message);
  }
  if (error.is_string()) {
    std::string description = body.contains("error_description") && body["error_description"].is_string()
                                  ? body["error_description"].get<std::string>()
                                  : std::string();
    return description.empty() ? error.get<std::string>() : StrCat(error.get<std::string>(), ": ", description);
  }
  return "";
}

std::string FullName(const Namespace& ns, const std::string& table) {
  return StrCat(NamespaceToString(ns), ".", table);
}

bool HoldsSnapshot(const iceberg::TableMetadata& metadata, int64_t snapshot_id) {
  return std::any_of(metadata.snapshots.begin(), metadata.snapshots.end(),
                     [&](const iceberg::Snapshot& s) { return s.snapshot_id == snapshot_id; });
}

void Pause(const net::HttpClientOptions& options, int ms) {
  if (options.sleep) {
    options.sleep(ms);
  } else {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  }
}

}  // namespace

std::string EncodePathSegment(std::string_view text) { return PercentEncode(text); }

std::string EncodeNamespace(const Namespace& ns) {
  std::string out;
  for (size_t i = 0; i < ns.size(); ++i) {
    if (i > 0) out += "%1F";
    out += PercentEncode(ns[i]);
  }
  return out;
}

RestCatalogOptions RestCatalogOptionsFromEnvironment() {
  RestCatalogOptions options;
  if (const char* credential = std::getenv(kRestCredentialVariable)) options.credential = credential;
  if (const char* token = std::getenv(kRestTokenVariable)) options.token = token;
  if (const char* ca_file = std::getenv(kRestCaFileVariable)) options.http.ca_file = ca_file;
  return options;
}

Result<json> CommitRequestBody(const LoadedTable& base, const iceberg::TableMetadata& next) {
  const iceberg::TableMetadata& before = base.metadata;
  auto unsupported = [&](const std::string& what) {
    return Status::NotSupported(StrCat(base.metadata_location, ": a commit that changes the table's ", what,
                                       " cannot be sent to a REST catalog"));
  };
  if (next.table_uuid != before.table_uuid) return unsupported("uuid");
  if (next.location != before.location) return unsupported("location");
  json requirements = json::array();
  requirements.push_back({{"type", "assert-table-uuid"}, {"uuid", before.table_uuid}});
  json ref_requirement = {{"type", "assert-ref-snapshot-id"}, {"ref", kMainBranch}};
  ref_requirement["snapshot-id"] = before.current_snapshot_id ? json(*before.current_snapshot_id) : json(nullptr);
  requirements.push_back(ref_requirement);

  json updates = json::array();
  std::set<int32_t> known_schemas;
  for (const iceberg::Schema& s : before.schemas) known_schemas.insert(s.schema_id);
  bool added_current_schema = false;
  for (const iceberg::Schema& s : next.schemas) {
    if (known_schemas.count(s.schema_id)) continue;
    updates.push_back({{"action", "add-schema"}, {"schema", iceberg::SchemaToJson(s)},
                       {"last-column-id", next.last_column_id}});
    added_current_schema = added_current_schema || s.schema_id == next.current_schema_id;
  }
  if (next.current_schema_id != before.current_schema_id) {
    requirements.push_back({{"type", "assert-current-schema-id"}, {"current-schema-id", before.current_schema_id}});
    // -1: the schema this request added (the server may number it itself).
    updates.push_back({{"action", "set-current-schema"},
                       {"schema-id", added_current_schema ? -1 : next.current_schema_id}});
  }
  std::set<int64_t> known_snapshots;
  for (const iceberg::Snapshot& s : before.snapshots) known_snapshots.insert(s.snapshot_id);
  for (const iceberg::Snapshot& s : next.snapshots) {
    if (!known_snapshots.count(s.snapshot_id)) {
      updates.push_back({{"action", "add-snapshot"}, {"snapshot", iceberg::SnapshotToJson(s)}});
    }
  }
  std::set<int64_t> next_snapshots;
  for (const iceberg::Snapshot& s : next.snapshots) next_snapshots.insert(s.snapshot_id);
  json removed_snapshots = json::array();
  for (const iceberg::Snapshot& s : before.snapshots) {
    if (!next_snapshots.count(s.snapshot_id)) removed_snapshots.push_back(s.snapshot_id);
  }
  if (!removed_snapshots.empty()) {
    updates.push_back({{"action", "remove-snapshots"}, {"snapshot-ids", removed_snapshots}});
  }
  if (next.current_snapshot_id != before.current_snapshot_id) {
    if (!next.current_snapshot_id) return unsupported("current snapshot to none");
    updates.push_back({{"action", "set-snapshot-ref"},
                       {"ref-name", kMainBranch},
                       {"type", "branch"},
                       {"snapshot-id", *next.current_snapshot_id}});
  }
  json set = json::object();
  json removed = json::array();
  for (const auto& [key, value] : next.properties) {
    auto old = before.properties.find(key);
    if (old == before.properties.end() || old->second != value) set[key] = value;
  }
  for (const auto& [key, value] : before.properties) {
    if (!next.properties.count(key)) removed.push_back(key);
  }
  if (!set.empty()) updates.push_back({{"action", "set-properties"}, {"updates", set}});
  if (!removed.empty()) updates.push_back({{"action", "remove-properties"}, {"removals", removed}});
  return json{{"requirements", requirements}, {"updates", updates}};
}

Result<std::unique_ptr<RestCatalog>> RestCatalog::Open(const std::string& address, RestCatalogOptions options) {
  std::string base = address;
  std::map<std::string, std::string> query;
  size_t question = address.find('?');
  if (question != std::string::npos) {
    base = address.substr(0, question);
    for (const std::string& pair : Split(address.substr(question + 1), '&')) {
      if (pair.empty()) continue;
      size_t eq = pair.find('=');
      auto key = PercentDecode(pair.substr(0, eq));
      auto value = PercentDecode(eq == std::string::npos ? "" : pair.substr(eq + 1));
      if (!key.ok() || !value.ok()) {
        return Status::InvalidArgument(StrCat("rest:", net::UrlForMessages(base), ": a malformed address parameter"));
      }
      if (!KnownParameters().count(*key)) {
        return Status::InvalidArgument(StrCat("rest:", net::UrlForMessages(base), ": unknown address parameter ",
                                              QuotedName(*key), " (known: warehouse, scope, oauth2-server-uri; "
                                              "credentials come from ", kRestCredentialVariable, " or ",
                                              kRestTokenVariable, ")"));
      }
      query[*key] = *value;
    }
  }
  while (EndsWith(base, "/")) base.pop_back();
  if (!StartsWith(base, "http://") && !StartsWith(base, "https://")) {
    return Status::InvalidArgument(
        StrCat("rest:", net::UrlForMessages(base), ": a REST catalog address is rest:http(s)://host[:port][/path]"));
  }
  if (base.substr(0, base.find('/', base.find("://") + 3)).find('@') != std::string::npos) {
    return Status::InvalidArgument(StrCat("rest:", net::UrlForMessages(base), ": credentials do not go in the address; "
                                          "give them in ", kRestCredentialVariable, " or ", kRestTokenVariable));
  }
  auto catalog = std::make_unique<RestCatalog>(Key{}, base, std::move(query), std::move(options));
  if (!catalog->options_.credential.empty()) {
    RETURN_IF_ERROR(catalog->FetchToken());
  } else if (!catalog->options_.token.empty()) {
    catalog->bearer_ = catalog->options_.token;
  }
  RETURN_IF_ERROR(catalog->LoadConfig());
  return catalog;
}

RestCatalog::RestCatalog(Key, std::string base_url, std::map<std::string, std::string> query,
                         RestCatalogOptions options)
    : base_url_(std::move(base_url)),
      query_(std::move(query)),
      options_(std::move(options)),
      http_(std::make_unique<net::HttpClient>(options_.http)) {}

RestCatalog::~RestCatalog() = default;

std::string RestCatalog::DisplayName() const { return StrCat("rest:", net::UrlForMessages(base_url_)); }

std::string RestCatalog::Url(const std::string& path,
                             const std::vector<std::pair<std::string, std::string>>& query) const {
  std::string url = StrCat(base_url_, "/v1/");
  if (!prefix_.empty()) url += prefix_ + "/";
  url += path;
  if (!query.empty()) url += "?" + FormEncode(query);
  return url;
}

Status RestCatalog::ErrorOf(const Reply& reply, const std::string& what) const {
  std::string message = ServerMessage(reply.body);
  std::string text = StrCat(reply.endpoint, ": ", what, ": HTTP ", reply.status);
  if (!message.empty()) text += StrCat(" (", message, ")");
  switch (reply.status) {
    case 400:
    case 406:
    case 422:
      return Status::InvalidArgument(text);
    case 401:
    case 403:
      return Status::InvalidArgument(
          StrCat(text, "; check the credentials in ", kRestCredentialVariable, " or ", kRestTokenVariable));
    case 404:
      return Status::NotFound(text);
    case 409:
      return Status::CommitConflict(text);
    default:
      return Status::IOError(text);
  }
}

Status RestCatalog::FetchToken() {
  auto server = query_.find("oauth2-server-uri");
  std::string url = server != query_.end() ? server->second : StrCat(base_url_, "/v1/oauth/tokens");
  std::string endpoint = StrCat("POST ", net::UrlForMessages(url));
  std::string id, secret = options_.credential;
  if (size_t colon = options_.credential.find(':'); colon != std::string::npos) {
    id = options_.credential.substr(0, colon);
    secret = options_.credential.substr(colon + 1);
  }
  auto scope = query_.find("scope");
  std::vector<std::pair<std::string, std::string>> form = {{"grant_type", "client_credentials"}};
  if (!id.empty()) form.emplace_back("client_id", id);
  form.emplace_back("client_secret", secret);
  form.emplace_back("scope", scope != query_.end() ? scope->second : kDefaultScope);
  net::HttpRequest request;
  request.method = "POST";
  request.url = url;
  request.headers = {{"Content-Type", "application/x-www-form-urlencoded"}, {"Accept", "application/json"}};
  request.body = FormEncode(form);
  ASSIGN_OR_RETURN(net::HttpResponse response, http_->Send(request));
  json body = json::parse(response.body, nullptr, false);
  if (body.is_discarded()) body = nullptr;
  if (response.status != 200) {
    std::string message = ServerMessage(body);
    std::string text = StrCat(endpoint, ": the server refused the OAuth2 client credentials in ",
                              kRestCredentialVariable, ": HTTP ", response.status);
    if (!message.empty()) text += StrCat(" (", message, ")");
    return response.status >= 500 ? Status::IOError(text) : Status::InvalidArgument(text);
  }
  if (!body.is_object() || !body.contains("access_token") || !body["access_token"].is_string()) {
    return Status::Corruption(StrCat(endpoint, ": the token response has no access_token"));
  }
  bearer_ = body["access_token"].get<std::string>();
  return Status::OK();
}

Result<RestCatalog::Reply> RestCatalog::Call(const std::string& method, const std::string& path, const json* body,
                                            const std::vector<std::pair<std::string, std::string>>& query) {
  net::HttpRequest request;
  request.method = method;
  request.url = Url(path, query);
  request.headers = {{"Accept", "application/json"}, {"X-Client-Version", "cqlite"}};
  if (body != nullptr) {
    request.headers.emplace_back("Content-Type", "application/json");
    request.body = body->dump();
  }
  Reply reply;
  reply.endpoint = StrCat(method, " ", net::UrlForMessages(request.url));
  for (int round = 0;; ++round) {
    net::HttpRequest sent = request;
    if (!bearer_.empty()) sent.headers.emplace_back("Authorization", StrCat("Bearer ", bearer_));
    ASSIGN_OR_RETURN(net::HttpResponse response, http_->SendWithRetries(sent));
    if (response.status == 401 && round == 0 && !options_.credential.empty()) {
      // The token may have expired: one new one.
      RETURN_IF_ERROR(FetchToken());
      continue;
    }
    reply.status = response.status;
    reply.body = response.body.empty() ? json(nullptr) : json::parse(response.body, nullptr, false);
    if (reply.body.is_discarded()) reply.body = nullptr;
    return reply;
  }
}

Status RestCatalog::LoadConfig() {
  std::vector<std::pair<std::string, std::string>> query;
  if (auto warehouse = query_.find("warehouse"); warehouse != query_.end()) {
    query.emplace_back("warehouse", warehouse->second);
  }
  prefix_.clear();
  net::HttpRequest request;
  request.url = StrCat(base_url_, "/v1/config");
  if (!query.empty()) request.url += "?" + FormEncode(query);
  request.headers = {{"Accept", "application/json"}};
  if (!bearer_.empty()) request.headers.emplace_back("Authorization", StrCat("Bearer ", bearer_));
  Reply reply;
  reply.endpoint = StrCat("GET ", net::UrlForMessages(request.url));
  ASSIGN_OR_RETURN(net::HttpResponse response, http_->SendWithRetries(request));
  reply.status = response.status;
  reply.body = json::parse(response.body, nullptr, false);
  if (reply.body.is_discarded()) reply.body = nullptr;
  if (reply.status != 200) return ErrorOf(reply, "cannot read the catalog's configuration");
  if (!reply.body.is_object()) {
    return Status::Corruption(StrCat(reply.endpoint, ": the configuration is not a JSON object"));
  }
  // Server defaults, then (nothing of ours), then overrides, which win.
  std::map<std::string, std::string> merged;
  for (const char* section : {"defaults", "overrides"}) {
    if (!reply.body.contains(section) || !reply.body[section].is_object()) continue;
    for (const auto& [key, value] : reply.body[section].items()) {
      if (value.is_string()) merged[key] = value.get<std::string>();
    }
  }
  if (auto prefix = merged.find("prefix"); prefix != merged.end()) {
    prefix_ = prefix->second;
    while (!prefix_.empty() && prefix_.back() == '/') prefix_.pop_back();
    while (!prefix_.empty() && prefix_.front() == '/') prefix_.erase(0, 1);
  }
  return Status::OK();
}

Status RestCatalog::CreateNamespace(const Namespace& ns, const std::map<std::string, std::string>& properties) {
  RETURN_IF_ERROR(ValidateNamespace(ns));
  json body = {{"namespace", ns}, {"properties", properties}};
  ASSIGN_OR_RETURN(Reply reply, Call("POST", "namespaces", &body));
  if (reply.status == 200 || reply.status == 409) return Status::OK();  // 409: it exists already
  if (net::IsRetryableStatus(reply.status)) {
    // A create whose answer was lost may have taken effect.
    ASSIGN_OR_RETURN(bool exists, NamespaceExists(ns));
    if (exists) return Status::OK();
  }
  return ErrorOf(reply, StrCat("cannot create namespace ", QuotedName(NamespaceToString(ns))));
}

Result<bool> RestCatalog::NamespaceExists(const Namespace& ns) {
  RETURN_IF_ERROR(ValidateNamespace(ns));
  ASSIGN_OR_RETURN(Reply reply, Call("GET", StrCat("namespaces/", EncodeNamespace(ns)), nullptr));
  if (reply.status == 200) return true;
  if (reply.status == 404) return false;
  return ErrorOf(reply, StrCat("cannot look up namespace ", QuotedName(NamespaceToString(ns))));
}

Result<std::vector<Namespace>> RestCatalog::ListNamespaces() {
  std::vector<Namespace> all;
  std::vector<Namespace> todo = {Namespace()};
  while (!todo.empty()) {
    Namespace parent = todo.back();
    todo.pop_back();
    std::string page_token;
    for (;;) {
      std::vector<std::pair<std::string, std::string>> query;
      if (!parent.empty()) query.emplace_back("parent", Join(parent, "\x1f"));
      if (!page_token.empty()) query.emplace_back("pageToken", page_token);
      ASSIGN_OR_RETURN(Reply reply, Call("GET", "namespaces", nullptr, query));
      if (reply.status == 404 && !parent.empty()) break;  // dropped meanwhile
      if (reply.status != 200) return ErrorOf(reply, "cannot list namespaces");
      if (!reply.body.is_object() || !reply.body.contains("namespaces") || !reply.body["namespaces"].is_array()) {
        return Status::Corruption(StrCat(reply.endpoint, ": the answer has no namespaces list"));
      }
      for (const json& entry : reply.body["namespaces"]) {
        if (!entry.is_array() || entry.empty()) return Status::Corruption(StrCat(reply.endpoint, ": a bad namespace"));
        Namespace ns;
        for (const json& level : entry) {
          if (!level.is_string()) return Status::Corruption(StrCat(reply.endpoint, ": a bad namespace"));
          ns.push_back(level.get<std::string>());
        }
        // A server that ignores `parent` answers the top level again.
        if (ns.size() <= parent.size() || !std::equal(parent.begin(), parent.end(), ns.begin())) continue;
        if (std::find(all.begin(), all.end(), ns) != all.end()) continue;
        all.push_back(ns);
        todo.push_back(ns);
      }
      const json* next = reply.body.contains("next-page-token") ? &reply.body["next-page-token"] : nullptr;
      if (next == nullptr || !next->is_string() || next->get<std::string>().empty()) break;
      page_token = next->get<std::string>();
    }
  }
  std::sort(all.begin(), all.end());
  return all;
}

Result<std::vector<std::string>> RestCatalog::ListTables(const Namespace& ns) {
  RETURN_IF_ERROR(ValidateNamespace(ns));
  std::vector<std::string> tables;
  std::string page_token;
  for (;;) {
    std::vector<std::pair<std::string, std::string>> query;
    if (!page_token.empty()) query.emplace_back("pageToken", page_token);
    ASSIGN_OR_RETURN(Reply reply, Call("GET", StrCat("namespaces/", EncodeNamespace(ns), "/tables"), nullptr, query));
    if (reply.status != 200) return ErrorOf(reply, StrCat("cannot list the tables of ", QuotedName(NamespaceToString(ns))));
    if (!reply.body.is_object() || !reply.body.contains("identifiers") || !reply.body["identifiers"].is_array()) {
      return Status::Corruption(StrCat(reply.endpoint, ": the answer has no identifiers list"));
    }
    for (const json& id : reply.body["identifiers"]) {
      if (!id.is_object() || !id.contains("name") || !id["name"].is_string()) {
        return Status::Corruption(StrCat(reply.endpoint, ": a bad table identifier"));
      }
      tables.push_back(id["name"].get<std::string>());
    }
    const json* next = reply.body.contains("next-page-token") ? &reply.body["next-page-token"] : nullptr;
    if (next == nullptr || !next->is_string() || next->get<std::string>().empty()) break;
    page_token = next->get<std::string>();
  }
  std::sort(tables.begin(), tables.end());
  return tables;
}

Result<std::optional<LoadedTable>> RestCatalog::LoadTable(const Namespace& ns, const std::string& table) {
  RETURN_IF_ERROR(ValidateNamespace(ns));
  RETURN_IF_ERROR(ValidateTableName(table));
  ASSIGN_OR_RETURN(Reply reply, Call("GET", StrCat("namespaces/", EncodeNamespace(ns), "/tables/",
                                                   EncodePathSegment(table)),
                                     nullptr));
  if (reply.status == 404) return std::optional<LoadedTable>();
  if (reply.status != 200) return ErrorOf(reply, StrCat("cannot load table ", FullName(ns, table)));
  const json& body = reply.body;
  if (!body.is_object() || !body.contains("metadata") || !body["metadata"].is_object()) {
    return Status::Corruption(StrCat(reply.endpoint, ": the answer has no table metadata"));
  }
  if (!body.contains("metadata-location") || !body["metadata-location"].is_string()) {
    return Status::NotSupported(StrCat(reply.endpoint, ": table ", FullName(ns, table),
                                       " has no metadata location (a staged table?)"));
  }
  LoadedTable loaded;
  loaded.metadata_location = body["metadata-location"].get<std::string>();
  ASSIGN_OR_RETURN(loaded.metadata, iceberg::TableMetadataFromJson(body["metadata"].dump(),
                                                                   StrCat(reply.endpoint, " (",
                                                                          loaded.metadata_location, ")"),
                                                                   /*max_format_version=*/3));
  return std::optional<LoadedTable>(std::move(loaded));
}

Result<std::optional<LoadedTable>> RestCatalog::LoadTableMetadata(FileSystem&, const Namespace& ns,
                                                                  const std::string& table) {
  return LoadTable(ns, table);
}

Result<std::optional<std::string>> RestCatalog::LearnOutcome(const Namespace& ns, const std::string& table,
                                                             int64_t snapshot_id,
                                                             std::optional<int64_t> base_snapshot,
                                                             const std::string& why) {
  Result<std::optional<LoadedTable>> current = LoadTable(ns, table);
  if (!current.ok()) {
    return Status::CommitUnknown(StrCat(why, "; whether table ", FullName(ns, table), " now holds snapshot ",
                                        snapshot_id, " could not be learned: ", current.status().message()));
  }
  if (*current && HoldsSnapshot((*current)->metadata, snapshot_id)) {
    return std::optional<std::string>((*current)->metadata_location);
  }
  std::optional<int64_t> now = *current ? (*current)->metadata.current_snapshot_id : std::nullopt;
  bool unchanged = base_snapshot ? (*current && now == base_snapshot) : !*current;
  if (!unchanged) {
    return Status::CommitConflict(StrCat(why, "; table ", FullName(ns, table),
                                         " has since moved on without it (another writer committed first)"));
  }
  return std::optional<std::string>();
}

Result<std::string> RestCatalog::CreateTable(FileSystem& fs, const TableCommit& commit) {
  const iceberg::TableMetadata& next = *commit.next;
  if (commit.metadata_file.empty()) {
    return Status::InvalidArgument(StrCat(DisplayName(), ": creating a table needs a metadata file name"));
  }
  // Only a missing namespace is created: a writer may be allowed to create
  // tables in a namespace but not namespaces.
  ASSIGN_OR_RETURN(bool namespace_exists, NamespaceExists(commit.ns));
  if (!namespace_exists) RETURN_IF_ERROR(CreateNamespace(commit.ns, {}));
  RETURN_IF_ERROR(fs.WriteStringToFile(commit.metadata_file, iceberg::TableMetadataToJson(next)));
  json body = {{"name", commit.table}, {"metadata-location", commit.metadata_file}};
  CommitRequest request;
  request.path = StrCat("namespaces/", EncodeNamespace(commit.ns), "/register");
  request.body = &body;
  request.what = StrCat("cannot register table ", FullName(commit.ns, commit.table));
  request.snapshot_id = next.current_snapshot_id.value_or(0);
  // 409: the name is taken, by this run's own earlier attempt or by another
  // writer.
  request.conflicts = {409};
  request.location_when_unnamed = commit.metadata_file;
  request.still_unknown = StrCat("table ", FullName(commit.ns, commit.table), " does not exist");
  return SendCommit(commit.ns, commit.table, request);
}

Result<std::string> RestCatalog::UpdateTable(const TableCommit& commit) {
  ASSIGN_OR_RETURN(json body, CommitRequestBody(*commit.base, *commit.next));
  body["identifier"] = {{"namespace", commit.ns}, {"name", commit.table}};
  CommitRequest request;
  request.path = StrCat("namespaces/", EncodeNamespace(commit.ns), "/tables/", EncodePathSegment(commit.table));
  request.body = &body;
  request.snapshot_id = commit.next->current_snapshot_id.value_or(0);
  request.base_snapshot = commit.base->metadata.current_snapshot_id;
  request.what = StrCat("cannot commit snapshot ", request.snapshot_id, " to table ", FullName(commit.ns, commit.table));
  // 409 (a requirement failed) and 404 (the table is gone).
  request.conflicts = {409, 404};
  request.still_unknown = StrCat("table ", FullName(commit.ns, commit.table),
                                 " is still at its previous snapshot, but a request still on its way may yet commit "
                                 "it");
  return SendCommit(commit.ns, commit.table, request);
}

Result<std::string> RestCatalog::SendCommit(const Namespace& ns, const std::string& table,
                                            const CommitRequest& request) {
  Status last;
  for (int attempt = 1;; ++attempt) {
    Result<Reply> reply = Call("POST", request.path, request.body);
    if (reply.ok() && reply->status == 200) {
      if (reply->body.is_object() && reply->body.contains("metadata-location") &&
          reply->body["metadata-location"].is_string()) {
        return reply->body["metadata-location"].get<std::string>();
      }
      if (request.location_when_unnamed) return *request.location_when_unnamed;
      return Status::Corruption(StrCat(reply->endpoint, ": the commit's answer has no metadata-location"));
    }
    const bool unknown = !reply.ok() || net::IsRetryableStatus(reply->status);
    const bool conflict = reply.ok() && std::find(request.conflicts.begin(), request.conflicts.end(),
                                                  reply->status) != request.conflicts.end();
    if (reply.ok() && !unknown && !conflict) return ErrorOf(*reply, request.what);
    last = reply.ok() ? ErrorOf(*reply, request.what) : reply.status();
    // A conflict, unless an earlier send of this same request took effect;
    // an unknown outcome: either, or nothing yet.
    ASSIGN_OR_RETURN(std::optional<std::string> committed,
                     LearnOutcome(ns, table, request.snapshot_id, request.base_snapshot, last.message()));
    if (committed) return *committed;
    if (!unknown) return Status::CommitConflict(last.message());
    if (attempt >= std::max(1, options_.commit_attempts)) {
      return Status::CommitUnknown(StrCat(last.message(), "; after ", attempt, " attempt(s) ", request.still_unknown));
    }
    Pause(options_.http, http_->BackoffMs(attempt));
  }
}

Result<std::string> RestCatalog::Commit(FileSystem& fs, const TableCommit& commit) {
  RETURN_IF_ERROR(ValidateNamespace(commit.ns));
  RETURN_IF_ERROR(ValidateTableName(commit.table));
  if (commit.next == nullptr) return Status::InvalidArgument(StrCat(DisplayName(), ": a commit needs the next metadata"));
  if (commit.base == nullptr) return CreateTable(fs, commit);
  return UpdateTable(commit);
}

}  // namespace cqlite::catalog
