// `cqlite select <table-dir>`: the table's current rows, as Cassandra's
// `SELECT JSON * FROM ks.t` returns them, folded from every generation.
#include <iostream>
#include <memory>

#include "source/schema_source.h"
#include "cassandra/sstable.h"
#include "source/table_sstables.h"
#include "cassandra/value_format.h"
#include "cli/commands.h"
#include "envelope/envelope_reader.h"
#include "fold/select_json.h"
#include "fold/key_restriction.h"
#include "fold/sstable_source.h"
#include "fold/table_fold.h"
#include "util/strings.h"
#include "util/time_format.h"

namespace cqlite {

namespace {

struct SelectOptions {
  std::string path;
  std::string schema_file;
  int64_t now_seconds = -1;
  int64_t limit = -1;
  std::vector<std::string> where;
  std::vector<std::string> from_envelopes;
  std::string envelope_prefix;
  // Rows and markers of a partition read, and folded rows handed on, at a
  // time (hidden: tests fold in tiny pieces to cross every piece boundary).
  int64_t piece_items = static_cast<int64_t>(kSSTableItemsPerPiece);
};

Status FoldAndPrint(const SelectOptions& options, const TableSchema& table, std::optional<Partitioner> partitioner,
                    std::vector<std::unique_ptr<FoldSource>> sources);

Status Select(const SelectOptions& options) {
  std::vector<std::string> paths = options.from_envelopes;
  paths.push_back(options.path);
  ASSIGN_OR_RETURN(std::shared_ptr<FileSystem> source_fs, SourceFileSystem(paths));
  FileSystem& fs = *source_fs;
  if (!options.from_envelopes.empty()) {
    if (!options.path.empty()) {
      return Status::InvalidArgument(StrCat(options.path, ": give either a table directory or --from-envelopes"));
    }
    ASSIGN_OR_RETURN(auto inputs, envelope::OpenEnvelopeFiles(fs, options.from_envelopes,
                                                              {options.schema_file, options.envelope_prefix}));
    return FoldAndPrint(options, *inputs.schema, inputs.partitioner, std::move(inputs.sources));
  }
  if (options.path.empty()) return Status::InvalidArgument("give a table directory or --from-envelopes");
  ASSIGN_OR_RETURN(TableSSTables table, OpenTableSSTables(fs, options.path, options.schema_file));
  std::vector<std::unique_ptr<FoldSource>> sources;
  for (auto& sstable : table.sstables) {
    ASSIGN_OR_RETURN(auto source, OpenSSTableFoldSource(*sstable, table.schema.table,
                                                        static_cast<size_t>(options.piece_items)));
    sources.push_back(std::move(source));
  }
  return FoldAndPrint(options, table.schema.table, table.partitioner, std::move(sources));
}

Status FoldAndPrint(const SelectOptions& options, const TableSchema& table, std::optional<Partitioner> partitioner,
                    std::vector<std::unique_ptr<FoldSource>> sources) {
  ASSIGN_OR_RETURN(auto restrictions, ParseKeyRestrictions(options.where, table));

  int64_t now = NowOrWallClock(options.now_seconds);
  ASSIGN_OR_RETURN(auto fold, TableFold::Make(table, partitioner, std::move(sources), now,
                                              static_cast<size_t>(options.piece_items)));
  SelectJsonRenderer renderer(table);
  FoldedPartition partition;
  std::vector<std::string> lines;
  int64_t printed = 0;
  while (options.limit < 0 || printed < options.limit) {
    ASSIGN_OR_RETURN(bool more, fold->Next(&partition));
    if (!more) break;
    if (!restrictions.empty()) {
      ASSIGN_OR_RETURN(auto key, renderer.KeyComponents(partition.key));
      if (!MatchesKeyRestrictions(restrictions, key)) continue;
    }
    lines.clear();
    RETURN_IF_ERROR(renderer.Render(partition, &lines));
    for (const std::string& line : lines) {
      if (options.limit >= 0 && printed >= options.limit) break;
      std::cout << line << '\n';
      ++printed;
    }
  }
  std::cout.flush();
  return Status::OK();
}

}  // namespace

CommandRunner AddSelectCommand(CLI::App& app) {
  auto options = std::make_shared<SelectOptions>();
  CLI::App* cmd = app.add_subcommand(
      "select",
      "Print a table's current rows, folded from all its SSTables, one JSON object per line, as Cassandra's "
      "SELECT JSON * returns them (token order, then clustering order)");
  cmd->add_option("path", options->path,
                  "A table directory (<table>-<id>/, or a snapshot or backup inside one) or one SSTable file");
  cmd->add_option("--now", options->now_seconds, kNowHelp)->transform(InstantOption());
  cmd->add_option("--limit", options->limit, "Print at most this many rows")->check(CLI::NonNegativeNumber);
  cmd->add_option("--where", options->where,
                  "Only partitions whose key column has this value, as column=value (repeatable; the value as "
                  "CQL prints it, quotes optional)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--schema", options->schema_file,
                  "A CQL file with the table's CREATE TABLE (and CREATE TYPE) statements; default as for dump")
      ->check(CLI::ExistingFile);
  cmd->add_option("--from-envelopes", options->from_envelopes,
                  "Fold these envelope files (cqlite delta-export output, or files in the Rust CQLite envelope v1 "
                  "schema, which need --schema) instead of SSTables")
      ->expected(1, -1)
      ->check(CLI::ExistingFile);
  cmd->add_option("--envelope-prefix", options->envelope_prefix,
                  "Prefix of the envelope columns of v1 files (default __; our files record theirs)");
  cmd->add_option("--piece-items", options->piece_items,
                  "Read partitions, and hand on folded rows, this many at a time")
      ->check(CLI::PositiveNumber)
      ->group("");  // hidden
  return [options] {
    Status status = Select(*options);
    if (!status.ok()) {
      std::cout.flush();
      std::cerr << "cqlite select: " << status.ToString() << "\n";
      return 1;
    }
    return 0;
  };
}

}  // namespace cqlite
