// `cqlite dump <sstable|table-dir>`: what Cassandra's sstabledump prints, as JSON.
#include <algorithm>
#include <iostream>
#include <memory>
#include <vector>

#include "source/schema_source.h"
#include "cassandra/sstable.h"
#include "cassandra/sstable_dump.h"
#include "cli/commands.h"
#include "util/time_format.h"

namespace cqlite {

namespace {

struct DumpOptions {
  std::string path;
  std::string schema_file;
};

int RunDump(const DumpOptions& options) {
  auto source_fs = SourceFileSystem({options.path});
  if (!source_fs.ok()) {
    std::cerr << "cqlite dump: " << source_fs.status().ToString() << "\n";
    return 1;
  }
  FileSystem& fs = **source_fs;
  auto locations = FindSSTables(fs, options.path);
  if (!locations.ok()) {
    std::cerr << "cqlite dump: " << locations.status().ToString() << "\n";
    return 1;
  }
  int64_t now_seconds = WallClockSeconds();
  // The SSTables of one directory are one table's generations, with one
  // schema (as select and materialize resolve it); they come in a row.
  for (auto group = locations->begin(); group != locations->end();) {
    auto group_end = std::find_if(group, locations->end(), [&](const SSTableLocation& l) {
      return l.directory != group->directory || l.keyspace != group->keyspace || l.table != group->table;
    });
    std::vector<std::unique_ptr<SSTable>> sstables;
    std::vector<const SSTable*> generations;
    Status status;
    for (auto location = group; location != group_end && status.ok(); ++location) {
      auto sstable = SSTable::Open(fs, *location);
      status = sstable.status();
      if (!status.ok()) break;
      generations.push_back(sstable->get());
      sstables.push_back(std::move(*sstable));
    }
    if (status.ok()) {
      auto schema = ResolveTableSchema(fs, *group, generations, options.schema_file);
      status = schema.status();
      if (status.ok()) {
        for (auto& sstable : sstables) sstable->UseSchema(schema->table);
      }
    }
    for (size_t i = 0; i < sstables.size() && status.ok(); ++i) {
      const SSTable& sstable = *sstables[i];
      SSTableDumpWriter writer(std::cout, sstable.layout(), sstable.header().partition_key_type, now_seconds);
      writer.Begin();
      status = sstable.Scan(writer);
      if (status.ok()) writer.End();
      std::cout.flush();
    }
    if (!status.ok()) {
      std::cout << std::endl;  // end the partial output before the error
      std::cerr << "cqlite dump: " << status.ToString() << "\n";
      return 1;
    }
    group = group_end;
  }
  return 0;
}

}  // namespace

CommandRunner AddDumpCommand(CLI::App& app) {
  auto options = std::make_shared<DumpOptions>();
  CLI::App* cmd = app.add_subcommand(
      "dump", "Print an SSTable as JSON, exactly as Cassandra's sstabledump prints it");
  cmd->add_option("path", options->path,
                  "An SSTable component file (e.g. nb-1-big-Data.db) or a directory; each SSTable found is "
                  "printed as one JSON array, in generation order")
      ->required();
  cmd->add_option("--schema", options->schema_file,
                  "A CQL file with the table's CREATE TABLE (and CREATE TYPE) statements. Without it the "
                  "schema comes from the schema.cql of the SSTables' directory, of their table directory or of "
                  "their keyspace directory, else the data directory's system_schema tables, else the "
                  "SSTables' own serialization headers")
      ->check(CLI::ExistingFile);
  return [options] { return RunDump(*options); };
}

}  // namespace cqlite
