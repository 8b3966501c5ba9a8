// `cqlite ls <path>`: the keyspaces, tables and SSTable generations under a path.
#include <iostream>
#include <memory>

#include "cassandra/sstable.h"
#include "cli/commands.h"
#include "util/json_writer.h"
#include "util/strings.h"
#include "util/time_format.h"

namespace cqlite {

namespace {

struct LsOptions {
  std::string path;
  bool json = false;
};

std::string HumanBytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
  return buf;
}

int RunLs(const LsOptions& options) {
  auto source_fs = SourceFileSystem({options.path});
  if (!source_fs.ok()) {
    std::cerr << "cqlite ls: " << source_fs.status().ToString() << "\n";
    return 1;
  }
  FileSystem& fs = **source_fs;
  auto locations = FindSSTables(fs, options.path);
  if (!locations.ok()) {
    std::cerr << "cqlite ls: " << locations.status().ToString() << "\n";
    return 1;
  }
  JsonWriter json(std::cout);
  if (options.json) json.BeginArray();
  std::string current_table;
  int failures = 0;
  for (const SSTableLocation& location : *locations) {
    auto sstable = SSTable::Open(fs, location);
    if (!sstable.ok()) {
      std::cerr << "cqlite ls: " << sstable.status().ToString() << "\n";
      ++failures;
      continue;
    }
    const Statistics& stats = (*sstable)->statistics();
    const StatsMetadata empty_stats;
    const StatsMetadata& s = stats.stats ? *stats.stats : empty_stats;
    std::string format = location.name.version.format == SSTableFormat::kBti ? "bti" : "big";
    std::string table = location.keyspace + "." + location.table;
    if (options.json) {
      json.BeginObject();
      json.Key("keyspace");
      json.String(location.keyspace);
      json.Key("table");
      json.String(location.table);
      json.Key("table_id");
      json.String(location.table_id);
      json.Key("directory");
      json.String(location.directory);
      json.Key("generation");
      json.String(location.name.generation);
      json.Key("version");
      json.String(location.name.version.name);
      json.Key("format");
      json.String(format);
      json.Key("data_bytes");
      json.UInt((*sstable)->data_size());
      json.Key("estimated_partitions");
      json.Int(s.estimated_partition_count);
      json.Key("rows");
      json.Int(s.total_rows);
      json.Key("min_timestamp");
      json.Int(s.min_timestamp);
      json.Key("max_timestamp");
      json.Int(s.max_timestamp);
      json.Key("repaired_at");
      json.Int(s.repaired_at);
      json.Key("pending_repair");
      if (s.pending_repair) {
        json.String(*s.pending_repair);
      } else {
        json.Null();
      }
      json.EndObject();
      continue;
    }
    if (table != current_table) {
      std::cout << (current_table.empty() ? "" : "\n") << table;
      if (!location.table_id.empty()) std::cout << "  (id " << location.table_id << ")";
      std::cout << "\n";
      current_table = table;
    }
    std::cout << "  " << location.name.prefix << "Data.db  " << location.name.version.name << " " << format << "  "
              << HumanBytes((*sstable)->data_size()) << "  ~" << s.estimated_partition_count << " partitions, "
              << s.total_rows << " rows  timestamps " << FormatMicros(s.min_timestamp) << " .. "
              << FormatMicros(s.max_timestamp) << "  "
              << (s.repaired_at != 0 ? "repaired" : s.pending_repair ? "pending repair" : "unrepaired") << "\n";
  }
  if (options.json) json.EndArray();
  return failures == 0 ? 0 : 1;
}

}  // namespace

CommandRunner AddLsCommand(CLI::App& app) {
  auto options = std::make_shared<LsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "ls", "List keyspaces, tables and SSTable generations under a data directory, table directory or file");
  cmd->add_option("path", options->path, "A Cassandra data directory, keyspace or table directory, or SSTable file")
      ->required();
  cmd->add_flag("--json", options->json, "Print one JSON object per SSTable");
  return [options] { return RunLs(*options); };
}

}  // namespace cqlite
