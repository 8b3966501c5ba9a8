// `cqlite delta-export <table-dir|sstable> -o <out>`: writes the envelope of
// each SSTable generation as a Parquet envelope file (docs/formats/envelope.md).
#include <iostream>
#include <memory>

#include "source/schema_source.h"
#include "cassandra/sstable.h"
#include "source/table_sstables.h"
#include "cli/commands.h"
#include "envelope/envelope_writer.h"
#include "util/strings.h"

namespace cqlite {

namespace {

struct DeltaExportOptions {
  std::string path;
  std::string output;
  std::string prefix = envelope::kDefaultPrefix;
  std::string schema_file;
  std::string compression = "snappy";
  bool overwrite = false;
};

Status DeltaExport(const DeltaExportOptions& options) {
  FileSystem& fs = LocalFileSystem();
  envelope::ExportOptions export_options;
  export_options.prefix = options.prefix;
  if (options.compression == "snappy") {
    export_options.compression = parquet::CompressionCodec::kSnappy;
  } else if (options.compression == "zstd") {
    export_options.compression = parquet::CompressionCodec::kZstd;
  } else {
    export_options.compression = parquet::CompressionCodec::kUncompressed;
  }

  ASSIGN_OR_RETURN(TableSSTables table, OpenTableSSTables(fs, options.path, options.schema_file));
  std::vector<std::unique_ptr<SSTable>>& sstables = table.sstables;
  const ResolvedSchema& schema = table.schema;
  // Everything that can be refused is refused before any file is created.
  RETURN_IF_ERROR(envelope::CheckPrefix(schema.table, options.prefix));

  if (sstables.empty()) {
    std::cerr << options.path << ": the table has no SSTable; nothing to export\n";
    return Status::OK();
  }
  // One SSTable: -o is the file (or an existing directory to write it in).
  // Several: -o is a directory, one <sstable-name>.parquet per generation.
  bool to_directory = sstables.size() > 1 || fs.IsDirectory(options.output);
  bool created_directory = false;
  if (to_directory && !fs.IsDirectory(options.output)) {
    if (fs.Exists(options.output)) {
      return Status::InvalidArgument(StrCat(options.output, ": is a file, but ", options.path, " holds ",
                                            sstables.size(), " SSTables; -o must name a directory for them"));
    }
    RETURN_IF_ERROR(fs.CreateDirectories(options.output));
    created_directory = true;
  }
  std::vector<std::string> outputs;
  for (auto& sstable : sstables) {
    std::string name = sstable->location().name.prefix;
    if (!name.empty() && name.back() == '-') name.pop_back();
    std::string output = to_directory ? JoinPath(options.output, name + ".parquet") : options.output;
    if (fs.Exists(output) && !options.overwrite) {
      return Status::InvalidArgument(StrCat(output, ": already exists (pass --overwrite to replace it)"));
    }
    outputs.push_back(std::move(output));
  }

  std::vector<std::string> written;
  std::vector<std::string> report;
  for (size_t i = 0; i < sstables.size(); ++i) {
    auto records = envelope::ExportSSTable(fs, *sstables[i], schema.table, outputs[i], export_options);
    if (!records.ok()) {
      // No half-written output: the files of this run go too.
      for (const std::string& path : written) (void)fs.Remove(path);
      if (created_directory) (void)fs.Remove(options.output);
      return records.status();
    }
    written.push_back(outputs[i]);
    report.push_back(
        StrCat(outputs[i], ": ", *records, " records from ", sstables[i]->location().DataPath()));
  }
  // Reported once every file is in place: a failed run reports nothing.
  for (const std::string& line : report) std::cout << line << "\n";
  std::cout.flush();
  return Status::OK();
}

}  // namespace

CommandRunner AddDeltaExportCommand(CLI::App& app) {
  auto options = std::make_shared<DeltaExportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "delta-export",
      "Write each SSTable generation's envelope (every fact it stores: upserts, deletions, TTLs, local "
      "deletion "
      "times, collection elements and tombstones, counter shards) as a Parquet envelope file, a superset of "
      "the "
      "Rust CQLite envelope v1 schema. With one SSTable, -o names the output file (or an existing directory "
      "to "
      "write <sstable>.parquet in); with several, -o names a directory (created if needed) that receives one "
      "<version>-<generation>-<format>.parquet per generation, e.g. nb-3-big.parquet. Files are written "
      "under "
      "a temporary name and renamed when complete; on error nothing of the run is left behind.");
  cmd->add_option("path", options->path,
                  "A table directory (<table>-<id>/, or a snapshot or backup inside one) or one SSTable file")
      ->required();
  cmd->add_option("-o,--output", options->output, "The output file (one SSTable) or directory (several)")
      ->required();
  cmd->add_option("--envelope-prefix", options->prefix,
                  "Prefix of the envelope's own columns (op, ts, range_start, ...); change it when a table "
                  "column starts with the default")
      ->capture_default_str();
  cmd->add_option(
         "--schema", options->schema_file,
         "A CQL file with the table's CREATE TABLE (and CREATE TYPE) statements; default as for dump")
      ->check(CLI::ExistingFile);
  cmd->add_option("--compression", options->compression, "Parquet compression")
      ->check(CLI::IsMember({"snappy", "zstd", "none"}))
      ->capture_default_str();
  cmd->add_flag("--overwrite", options->overwrite, "Replace output files that exist");
  return [options] {
    Status status = DeltaExport(*options);
    if (!status.ok()) {
      std::cout.flush();
      std::cerr << "cqlite delta-export: " << status.ToString() << "\n";
      return 1;
    }
    return 0;
  };
}

}  // namespace cqlite
