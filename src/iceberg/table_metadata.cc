#include "iceberg/table_metadata.h"

#include <algorithm>
#include <random>

#include <nlohmann/json.hpp>

#include "util/strings.h"
#include "util/json_integer.h"

namespace cqlite::iceberg {

namespace {

using nlohmann::json;

std::mt19937_64& Random() {
  static thread_local std::mt19937_64 generator([] {
    std::random_device device;
    return (static_cast<uint64_t>(device()) << 32) ^ device();
  }());
  return generator;
}

Snapshot SnapshotFromJson(const json& j) {
  Snapshot s;
  s.snapshot_id = JsonInteger<int64_t>(j.at("snapshot-id"));
  if (j.contains("parent-snapshot-id") && !j["parent-snapshot-id"].is_null()) {
    s.parent_snapshot_id = JsonInteger<int64_t>(j["parent-snapshot-id"]);
  }
  s.sequence_number = JsonIntegerOr<int64_t>(j, "sequence-number", 0);
  s.timestamp_ms = JsonInteger<int64_t>(j.at("timestamp-ms"));
  s.manifest_list = j.value("manifest-list", std::string());
  if (j.contains("summary")) {
    for (const auto& [key, value] : j["summary"].items()) {
      s.summary[key] = value.is_string() ? value.get<std::string>() : value.dump();
    }
  }
  if (j.contains("schema-id")) s.schema_id = JsonInteger<int32_t>(j["schema-id"]);
  if (j.contains("first-row-id") && !j["first-row-id"].is_null()) {
    s.first_row_id = JsonInteger<int64_t>(j["first-row-id"]);
  }
  if (j.contains("added-rows") && !j["added-rows"].is_null()) s.added_rows = JsonInteger<int64_t>(j["added-rows"]);
  return s;
}

}  // namespace

const Schema* TableMetadata::CurrentSchema() const {
  for (const Schema& s : schemas) {
    if (s.schema_id == current_schema_id) return &s;
  }
  return nullptr;
}

const Snapshot* TableMetadata::CurrentSnapshot() const {
  if (!current_snapshot_id) return nullptr;
  for (const Snapshot& s : snapshots) {
    if (s.snapshot_id == *current_snapshot_id) return &s;
  }
  return nullptr;
}

TableMetadata NewTableMetadata(const std::string& location, Schema schema,
                               std::map<std::string, std::string> properties, int64_t now_ms,
                               int32_t format_version) {
  TableMetadata m;
  m.format_version = format_version;
  m.table_uuid = RandomUuid();
  m.location = location;
  m.last_updated_ms = now_ms;
  m.last_column_id = schema.HighestFieldId();
  schema.schema_id = 0;
  m.schemas.push_back(std::move(schema));
  m.properties = std::move(properties);
  return m;
}

void AddSnapshot(TableMetadata* metadata, Snapshot snapshot, const std::string& previous_file) {
  if (!previous_file.empty()) metadata->metadata_log.emplace_back(metadata->last_updated_ms, previous_file);
  metadata->last_sequence_number = snapshot.sequence_number;
  metadata->last_updated_ms = snapshot.timestamp_ms;
  metadata->current_snapshot_id = snapshot.snapshot_id;
  if (metadata->format_version >= 3) metadata->next_row_id += snapshot.added_rows.value_or(0);
  metadata->snapshot_log.emplace_back(snapshot.timestamp_ms, snapshot.snapshot_id);
  metadata->snapshots.push_back(std::move(snapshot));
}

void RemoveSnapshots(TableMetadata* metadata, const std::set<int64_t>& ids, int64_t now_ms,
                     const std::string& previous_file) {
  if (!previous_file.empty()) metadata->metadata_log.emplace_back(metadata->last_updated_ms, previous_file);
  metadata->last_updated_ms = std::max(now_ms, metadata->last_updated_ms + 1);
  std::erase_if(metadata->snapshots, [&](const Snapshot& s) {
    return ids.count(s.snapshot_id) && s.snapshot_id != metadata->current_snapshot_id;
  });
  std::erase_if(metadata->snapshot_log, [&](const std::pair<int64_t, int64_t>& entry) {
    return ids.count(entry.second) && entry.second != metadata->current_snapshot_id;
  });
}

void AssignSnapshotRowIds(const TableMetadata& metadata, int64_t added_rows, Snapshot* snapshot) {
  snapshot->first_row_id = metadata.next_row_id;
  snapshot->added_rows = added_rows;
}

nlohmann::json SnapshotToJson(const Snapshot& s) {
  json j{{"snapshot-id", s.snapshot_id},
         {"sequence-number", s.sequence_number},
         {"timestamp-ms", s.timestamp_ms},
         {"manifest-list", s.manifest_list},
         {"summary", s.summary}};
  if (s.parent_snapshot_id) j["parent-snapshot-id"] = *s.parent_snapshot_id;
  if (s.schema_id) j["schema-id"] = *s.schema_id;
  if (s.first_row_id) j["first-row-id"] = *s.first_row_id;
  if (s.added_rows) j["added-rows"] = *s.added_rows;
  return j;
}

std::string TableMetadataToJson(const TableMetadata& m) {
  json schemas = json::array();
  for (const Schema& s : m.schemas) schemas.push_back(SchemaToJson(s));
  json snapshots = json::array();
  for (const Snapshot& s : m.snapshots) snapshots.push_back(SnapshotToJson(s));
  json snapshot_log = json::array();
  for (const auto& [ts, id] : m.snapshot_log) snapshot_log.push_back({{"timestamp-ms", ts}, {"snapshot-id", id}});
  json metadata_log = json::array();
  for (const auto& [ts, file] : m.metadata_log) {
    metadata_log.push_back({{"timestamp-ms", ts}, {"metadata-file", file}});
  }
  json j{
      {"format-version", m.format_version},
      {"table-uuid", m.table_uuid},
      {"location", m.location},
      {"last-sequence-number", m.last_sequence_number},
      {"last-updated-ms", m.last_updated_ms},
      {"last-column-id", m.last_column_id},
      {"current-schema-id", m.current_schema_id},
      {"schemas", schemas},
      {"default-spec-id", 0},
      {"partition-specs", json::array({{{"spec-id", 0}, {"fields", json::array()}}})},
      {"last-partition-id", 999},
      {"default-sort-order-id", 0},
      {"sort-orders", json::array({{{"order-id", 0}, {"fields", json::array()}}})},
      {"properties", m.properties},
      {"current-snapshot-id", m.current_snapshot_id ? *m.current_snapshot_id : int64_t{-1}},
      {"snapshots", snapshots},
      {"snapshot-log", snapshot_log},
      {"metadata-log", metadata_log},
      {"refs", json::object()},
  };
  if (m.format_version >= 3) j["next-row-id"] = m.next_row_id;
  if (m.current_snapshot_id) {
    j["refs"]["main"] = {{"snapshot-id", *m.current_snapshot_id}, {"type", "branch"}};
  }
  return j.dump(2);
}

Result<TableMetadata> TableMetadataFromJson(const std::string& text, const std::string& path,
                                            int32_t max_format_version) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Status::Corruption(StrCat(path, ": not JSON table metadata"));
  try {
    TableMetadata m;
    m.format_version = JsonInteger<int32_t>(j.at("format-version"));
    if (m.format_version < 2 || m.format_version > std::min(max_format_version, 3)) {
      return Status::NotSupported(StrCat(path, ": Iceberg format version ", j["format-version"].dump(),
                                         max_format_version >= 3 ? "; CQLite reads version 2 and 3 tables"
                                                                 : "; CQLite writes version 2 tables"));
    }
    if (m.format_version >= 3) m.next_row_id = JsonInteger<int64_t>(j.at("next-row-id"));
    m.table_uuid = j.at("table-uuid").get<std::string>();
    m.location = j.at("location").get<std::string>();
    m.last_sequence_number = JsonInteger<int64_t>(j.at("last-sequence-number"));
    m.last_updated_ms = JsonInteger<int64_t>(j.at("last-updated-ms"));
    m.last_column_id = JsonInteger<int32_t>(j.at("last-column-id"));
    m.current_schema_id = JsonInteger<int32_t>(j.at("current-schema-id"));
    for (const json& s : j.at("schemas")) {
      auto schema = SchemaFromJson(s);
      if (!schema.ok()) return schema.status().WithContext(path);
      m.schemas.push_back(std::move(*schema));
    }
    if (j.contains("properties")) {
      for (const auto& [key, value] : j["properties"].items()) m.properties[key] = value.get<std::string>();
    }
    if (j.contains("current-snapshot-id") && !j["current-snapshot-id"].is_null()) {
      int64_t id = JsonInteger<int64_t>(j["current-snapshot-id"]);
      if (id != -1) m.current_snapshot_id = id;
    }
    if (j.contains("snapshots")) {
      for (const json& s : j["snapshots"]) m.snapshots.push_back(SnapshotFromJson(s));
    }
    // A snapshot from before the table's upgrade to v3 has neither.
    for (const Snapshot& s : m.snapshots) {
      if (m.format_version >= 3 && s.first_row_id.has_value() != s.added_rows.has_value()) {
        return Status::Corruption(
            StrCat(path, ": snapshot ", s.snapshot_id, " of a v3 table has only one of first-row-id and added-rows"));
      }
    }
    if (j.contains("snapshot-log")) {
      for (const json& e : j["snapshot-log"]) {
        m.snapshot_log.emplace_back(JsonInteger<int64_t>(e.at("timestamp-ms")), JsonInteger<int64_t>(e.at("snapshot-id")));
      }
    }
    if (j.contains("metadata-log")) {
      for (const json& e : j["metadata-log"]) {
        m.metadata_log.emplace_back(JsonInteger<int64_t>(e.at("timestamp-ms")), e.at("metadata-file").get<std::string>());
      }
    }
    if (!m.CurrentSchema()) return Status::Corruption(StrCat(path, ": no schema with the current schema id"));
    if (m.current_snapshot_id && !m.CurrentSnapshot()) {
      return Status::Corruption(StrCat(path, ": the current snapshot ", *m.current_snapshot_id, " is not listed"));
    }
    return m;
  } catch (const json::exception& e) {
    return Status::Corruption(StrCat(path, ": malformed table metadata: ", e.what()));
  }
}

std::string RandomUuid() {
  uint64_t hi = Random()(), lo = Random()();
  hi = (hi & ~uint64_t{0xf000}) | 0x4000;                    // version 4
  lo = (lo & ~(uint64_t{0xc} << 60)) | (uint64_t{0x8} << 60);  // IETF variant
  char buf[37];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xffff), static_cast<unsigned>(hi & 0xffff),
                static_cast<unsigned>(lo >> 48), static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return buf;
}

int64_t RandomSnapshotId() {
  int64_t id = 0;
  while (id == 0) id = static_cast<int64_t>(Random()() & 0x7fffffffffffffffULL);
  return id;
}

std::string MetadataFilePath(const std::string& location, int version) {
  char prefix[16];
  std::snprintf(prefix, sizeof(prefix), "%05d-", version);
  return StrCat(location, "/metadata/", prefix, RandomUuid(), ".metadata.json");
}

int MetadataFileVersion(const std::string& path) {
  size_t slash = path.rfind('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dash = name.find('-');
  if (dash == 0 || dash == std::string::npos || !EndsWith(name, ".metadata.json")) return -1;
  int version = 0;
  for (size_t i = 0; i < dash; ++i) {
    if (name[i] < '0' || name[i] > '9' || version > 100000000) return -1;
    version = version * 10 + (name[i] - '0');
  }
  return version;
}

std::string LocalFilePath(const std::string& location) {
  if (StartsWith(location, "file://")) return location.substr(7);
  if (StartsWith(location, "file:/")) return location.substr(5);
  return location;
}

}  // namespace cqlite::iceberg
