#include "materialize/materializer.h"

#include <algorithm>
#include <climits>
#include <map>
#include <optional>
#include <set>

#include "source/schema_source.h"
#include "cassandra/sstable.h"
#include "catalog/commit_retry.h"
#include "source/table_sstables.h"
#include "envelope/envelope_schema.h"
#include "iceberg/data_files.h"
#include "iceberg/table_metadata.h"
#include "io/checksum.h"
#include "fold_state/facts.h"
#include "fold_state/fold_state.h"
#include "materialize/row_changes.h"
#include "mapping/schema_evolution.h"
#include "materialize/snapshot.h"
#include "materialize/staged.h"
#include "materialize/touched_rows.h"
#include "fold_state/warehouse_files.h"
#include "util/strings.h"
#include "util/time_format.h"

namespace cqlite::materialize {

namespace {

// The envelope prefix used when a table column starts with the default one.
constexpr char kAlternatePrefix[] = "_cqlite_envelope_";
// Smaller row groups than delta-export's: the fold holds one row group's
// decoded values per consumed generation.
constexpr int64_t kFactsRowGroupRows = 4096;

const std::set<std::string>& SystemKeyspaces() {
  static const std::set<std::string> names = {"system", "system_schema", "system_auth", "system_distributed",
                                              "system_traces", "system_virtual_schema", "system_views",
                                              "system_cluster_metadata"};
  return names;
}

// "<table id>/<sstable>/<CRC32 of Data.db>": a generation, wherever it lies.
// Digest.crc32 holds the CRC32 Cassandra computed; without it we compute it.
Result<std::string> GenerationIdentity(FileSystem& fs, const SSTable& sstable) {
  const SSTableLocation& location = sstable.location();
  std::string name = location.name.prefix;
  if (!name.empty() && name.back() == '-') name.pop_back();
  std::string digest_path = location.ComponentPath("Digest.crc32");
  std::string digest;
  if (fs.Exists(digest_path)) {
    ASSIGN_OR_RETURN(std::string text, fs.ReadFileToString(digest_path));
    digest = std::string(Trim(text));
  } else {
    ASSIGN_OR_RETURN(auto file, fs.OpenForRead(location.DataPath()));
    std::vector<uint8_t> buffer(1 << 20);
    uint32_t crc = 0;
    for (uint64_t offset = 0; offset < file->Size();) {
      size_t n = static_cast<size_t>(std::min<uint64_t>(buffer.size(), file->Size() - offset));
      RETURN_IF_ERROR(file->ReadExactly(offset, std::span<uint8_t>(buffer.data(), n)));
      crc = Crc32Extend(crc, std::span<const uint8_t>(buffer.data(), n));
      offset += n;
    }
    digest = std::to_string(crc);
  }
  std::string table = location.table_id.empty() ? StrCat(location.keyspace, ".", location.table) : location.table_id;
  return StrCat(table, "/", name, "/", digest);
}

struct Run {
  FileSystem& fs;
  catalog::Catalog& catalog;
  const MaterializeOptions& options;
  const TableSSTables& table;
  const TableMapping& mapping;
  const std::vector<std::string>& identities;
  std::string namespace_name;
  std::string table_name;
  std::string table_dir;
  std::string envelope_prefix;  // of merged facts files: one no table column starts with
};

void Progress(const MaterializeOptions& options, const std::string& line) {
  if (options.progress) options.progress(line);
}


// Step 2 (materializer.h): the SSTables of the generations not consumed
// before, kept in the warehouse as facts sets of their own.
Result<std::vector<FactsSet>> KeepNewGenerations(const Run& run, const std::vector<size_t>& fresh, RunFiles& files,
                                                 std::vector<ConsumedGeneration>* consumed) {
  std::vector<FactsSet> sets;
  for (size_t k = 0; k < fresh.size(); ++k) {
    const SSTable& sstable = *run.table.sstables[fresh[k]];
    Progress(run.options, StrCat("keeping generation ", k + 1, " of ", fresh.size(), ": ",
                                 sstable.location().DataPath()));
    ASSIGN_OR_RETURN(FactsSet set, KeepGeneration(run.fs, sstable, k, files));
    set.identities = {run.identities[fresh[k]]};
    sets.push_back(std::move(set));
    int64_t max_timestamp = sstable.statistics().stats ? sstable.statistics().stats->max_timestamp : 0;
    consumed->push_back({run.identities[fresh[k]], max_timestamp});
  }
  return sets;
}

// A generation a run kept and merged at once is named by no fold state:
// the merge holds its facts, and its kept SSTable goes once the state is
// the table's (or staged).
void RemoveUnnamedKeptGenerations(FileSystem& fs, const std::vector<FactsSet>& new_facts, const FoldState& state) {
  const std::vector<std::string> named = state.ReferencedFiles();
  const std::set<std::string> referenced(named.begin(), named.end());
  for (const FactsSet& set : new_facts) {
    if (set.form != FactsForm::kSSTable || set.files.empty() || referenced.count(set.files.front())) continue;
    for (const std::string& file : set.files) (void)fs.Remove(file);
    if (fs.IsDirectory(DirName(set.files.front()))) (void)fs.Remove(DirName(set.files.front()));
  }
}

// Splits the facts sets of `state` into those of generations `present` (in
// `kept`) and those of generations no longer there (in `vanished`). False
// when a set's generations are not known, or a set holds both kinds.
bool SplitVanishedFacts(const FoldState& state, const std::set<std::string>& present, std::vector<FactsSet>* kept,
                        std::vector<FactsSet>* vanished) {
  kept->clear();
  vanished->clear();
  size_t held = 0;
  for (const FactsSet& set : state.facts) {
    if (set.identities.empty()) return false;
    size_t here = std::count_if(set.identities.begin(), set.identities.end(),
                                [&](const std::string& identity) { return present.count(identity) > 0; });
    if (here != 0 && here != set.identities.size()) return false;
    (here == 0 ? vanished : kept)->push_back(set);
    held += set.identities.size();
  }
  return held == state.generations.size();
}

// The run's mapping with the ids of the table `base` loaded (schema_evolution.h);
// a new table's as MapTable numbered it.
Result<SchemaEvolution> EvolveFromTable(const Run& run, const Baseline& base) {
  if (!base.table) {
    SchemaEvolution fresh;
    fresh.mapping = run.mapping;
    fresh.last_column_id = run.mapping.schema.HighestFieldId();
    return fresh;
  }
  const iceberg::TableMetadata& metadata = base.table->metadata;
  std::optional<ColumnDrops> seen;
  if (base.parent) {
    auto drops = base.parent->summary.find(kColumnDropsKey);
    if (drops != base.parent->summary.end()) {
      ASSIGN_OR_RETURN(seen, ColumnDropsFromString(drops->second, base.table->metadata_location));
    }
  }
  return EvolveMapping(run.mapping, run.table.schema.table, *metadata.CurrentSchema(), metadata.last_column_id, seen,
                       StrCat(run.namespace_name, ".", run.table_name));
}

// One attempt: the steps of materializer.h, then the catalog's commit (or,
// with a stage directory, the staged result: staged.h).
Status RunOnce(const Run& run, TableReport* report) {
  const TableSchema& source = run.table.schema.table;
  ASSIGN_OR_RETURN(Baseline base, LoadBaseline(run.fs, run.catalog, run.options.warehouse, run.namespace_name,
                                               run.table_name, run.options.token_ranges));
  // The table's fields keep their ids; a change of the Cassandra schema
  // since the last snapshot becomes the next snapshot's schema.
  ASSIGN_OR_RETURN(SchemaEvolution evolution, EvolveFromTable(run, base));
  const TableMapping& mapping = evolution.mapping;
  const bool schema_changed =
      base.table && !iceberg::SameStructure(*base.table->metadata.CurrentSchema(), mapping.schema);
  report->schema_changes = evolution.changes;
  if (!evolution.changes.empty()) {
    Progress(run.options, StrCat(source.keyspace, ".", source.table, ": schema changed: ",
                                 Join(evolution.changes, "; ")));
  }
  int64_t exported = std::count_if(base.state.facts.begin(), base.state.facts.end(), [](const FactsSet& set) {
    return set.form == FactsForm::kEnvelope && set.generations == 1;
  });
  if (exported > 0) {
    Progress(run.options, StrCat(exported, " generation(s) of the fold state are envelope files an earlier CQLite "
                                           "exported; they are read as they are (more slowly than kept SSTables) "
                                           "until a merge rewrites them, and new generations are kept as SSTables"));
  }
  std::set<std::string> consumed;
  for (const ConsumedGeneration& g : base.state.generations) consumed.insert(g.identity);
  // A complete source that lacks a consumed generation: Cassandra compacted
  // it away, and what its facts said is either in the directory's
  // generations or was purged with what it deleted
  // (MaterializeOptions::complete_source). Its kept facts would bring purged
  // rows back: they are dropped, and the rows they held are among those the
  // run folds again, from the facts of the generations present. Where the
  // state cannot tell which facts set holds which generation (sets kept
  // before it recorded that), the directory's generations are folded alone.
  std::set<std::string> present(run.identities.begin(), run.identities.end());
  int64_t gone = run.options.complete_source
                     ? std::count_if(base.state.generations.begin(), base.state.generations.end(),
                                     [&](const ConsumedGeneration& g) { return !present.count(g.identity); })
                     : 0;
  std::vector<FactsSet> kept_facts = base.state.facts;
  std::vector<FactsSet> vanished_facts;
  bool refold = gone > 0 && !SplitVanishedFacts(base.state, present, &kept_facts, &vanished_facts);
  if (refold) vanished_facts.clear();
  std::vector<size_t> fresh;
  for (size_t i = 0; i < run.identities.size(); ++i) {
    if (refold || !consumed.count(run.identities[i])) fresh.push_back(i);
  }
  int64_t now = NowOrWallClock(run.options.now_seconds);
  report->generations_found = static_cast<int>(run.identities.size());
  report->now_seconds = now;
  report->part_of_ring = !run.options.token_ranges.whole_ring();
  report->rows_total = base.state.row_count;
  const std::string& stage_dir = run.options.stage_dir;
  const int format_version =
      std::max(run.options.format_version, base.table ? base.table->metadata.format_version : 2);
  if (!stage_dir.empty() && format_version >= 3) {
    return Status::NotSupported(StrCat(run.namespace_name, ".", run.table_name, ": a staged run writes v2 position "
                                       "delete files; an Iceberg v3 table cannot be staged yet"));
  }
  const std::string& source_path = run.options.source_path.empty() ? run.table_dir : run.options.source_path;
  // What a staged run leaves (staged.h), but its files and counts.
  StagedResult staged;
  staged.namespace_name = run.namespace_name;
  staged.table_name = run.table_name;
  staged.source_table = StrCat(source.keyspace, ".", source.table);
  staged.location = base.location;
  staged.ranges = run.options.token_ranges;
  staged.base_fold_state = base.fold_state_path;
  staged.lineage = source_path;
  staged.now_seconds = now;
  staged.schema = mapping.schema;
  staged.format_version = format_version;
  // A staged run that changes nothing says so, for the commit to keep the part as it is.
  auto stage_unchanged = [&](const std::string& run_id) -> Status {
    staged.run_id = run_id;
    report->staged = true;
    report->message = "staged: nothing new in its token ranges";
    return WriteStagedResult(run.fs, stage_dir, staged);
  };
  if (base.has_fold_state && fresh.empty() && !refold && vanished_facts.empty() && now < base.state.next_expiry &&
      !schema_changed) {
    if (!stage_dir.empty()) return stage_unchanged(iceberg::RandomUuid());
    report->message = "nothing new: every generation was consumed before and no row has expired since";
    report->folded_nothing = true;
    report->metadata_location = base.table->metadata_location;
    return Status::OK();
  }

  RunFiles files(run.fs, base.location);
  if (!stage_dir.empty()) {
    staged.run_id = files.run_id();
    RETURN_IF_ERROR(MarkStagedRunStarted(run.fs, stage_dir, staged));
  }
  for (const std::string& dir : files.Directories()) {
    RETURN_IF_ERROR(run.fs.CreateDirectories(dir));
  }
  std::vector<ConsumedGeneration> new_generations;
  ASSIGN_OR_RETURN(std::vector<FactsSet> new_facts, KeepNewGenerations(run, fresh, files, &new_generations));
  if (!vanished_facts.empty()) {
    Progress(run.options, StrCat(gone, " consumed generation(s) were compacted away; folding again the rows they "
                                       "held, and those the new generations touch"));
  }
  if (refold) {
    report->folded_everything_because =
        StrCat(gone, " consumed generation(s) were compacted away, and the fold state cannot keep the facts of the "
                     "others without theirs (a merged facts set holds generations of both, or an earlier CQLite did "
                     "not record which set holds which)");
    Progress(run.options, StrCat(report->folded_everything_because, "; folding the ", run.identities.size(),
                                 " generation(s) of ", run.table_dir, " anew"));
  }
  std::vector<FactsSet> facts = refold ? std::vector<FactsSet>() : kept_facts;
  for (const FactsSet& set : new_facts) facts.push_back(set);
  MergeSettings merge;
  // With --cluster each replica brings its own copy of its ranges' facts:
  // the fan-in holds per replica, so that replicas are folded together (the
  // merge a read at ALL makes) instead of merged into envelope files first.
  merge.fan_in = run.options.fold_fan_in * static_cast<int>(1 + run.options.replica_dirs.size());
  merge.file_records = run.options.facts_file_records;
  merge.row_group_rows = kFactsRowGroupRows;
  merge.envelope_prefix = run.envelope_prefix;
  merge.progress = run.options.progress;
  ASSIGN_OR_RETURN(facts, MergeFactsSets(run.fs, std::move(facts), run.table, merge, files));
  RowChangesOptions row_options;
  row_options.now_seconds = now;
  row_options.threads = run.options.threads;
  row_options.token_ranges = run.options.token_ranges;
  row_options.mapping = run.options.mapping;
  row_options.compression = run.options.compression;
  row_options.compression_level = run.options.compression_level;
  row_options.deletion_vectors = format_version >= 3;
  row_options.progress = run.options.progress;
  // Step 3: only the rows the new generations touch when that is possible
  // (touched_rows.h), else by folding every kept generation.
  std::optional<TouchedRowsFold> touched;
  // (A run gets here with nothing new only when rows expired since the last.)
  if (!evolution.dropped.empty()) {
    // A row whose only live cells were in a dropped column is gone, and no
    // generation touched it.
    report->folded_everything_because =
        StrCat("column(s) ", Join(evolution.dropped, ", "), " dropped: rows that held only them are gone");
    Progress(run.options, StrCat("folding every kept generation: ", report->folded_everything_because));
  } else if (base.has_fold_state && !refold && run.options.fold_touched_rows) {
    std::string why_not;
    ASSIGN_OR_RETURN(touched, FoldTouchedRows(run.fs, run.table, mapping, run.table_dir, new_facts,
                                              vanished_facts, facts, base.state, row_options, files, &why_not));
    if (!touched) {
      report->folded_everything_because = why_not;
      Progress(run.options, StrCat("folding every kept generation: ", why_not));
    }
  }
  RowChanges changes;
  report->folded_touched_rows = touched.has_value();
  if (touched) {
    report->read_kept_facts_because = touched->read_kept_facts_because;
    changes = std::move(touched->changes);
  } else {
    ASSIGN_OR_RETURN(changes, FoldRowChanges(run.fs, run.table, mapping, run.table_dir, facts,
                                             base.state.row_index_files(), row_options, files));
  }
  report->rows_appended = changes.rows_appended;
  report->rows_deleted = changes.rows_deleted;
  report->rows_total = changes.rows_total;
  report->static_only_partitions = changes.static_only_partitions;
  std::vector<iceberg::DataFile> added = std::move(changes.data_files);
  for (iceberg::DataFile& f : changes.delete_files) added.push_back(std::move(f));
  for (const iceberg::DataFile& f : added) {
    report->bytes_written += f.file_size_in_bytes;
    (f.content == iceberg::FileContent::kData ? report->data_files : report->delete_files)++;
  }
  report->delete_files += static_cast<int>(changes.deleted_positions.size());  // deletion vectors
  if (base.table && fresh.empty() && vanished_facts.empty() && added.empty() && changes.deleted_positions.empty() &&
      !schema_changed) {
    if (!stage_dir.empty()) return stage_unchanged(files.run_id());
    report->message = "nothing new: no generation to consume, and no row changed since the last snapshot";
    report->metadata_location = base.table->metadata_location;
    return Status::OK();
  }

  NextSnapshot next;
  next.schema = &mapping.schema;
  next.column_drops = ColumnDropsToString(DropsOf(source));
  next.state = base.state;
  if (refold) next.state.generations.clear();
  if (!vanished_facts.empty()) {
    std::erase_if(next.state.generations, [&](const ConsumedGeneration& g) { return !present.count(g.identity); });
  }
  next.state.generations.insert(next.state.generations.end(), new_generations.begin(), new_generations.end());
  next.state.facts = std::move(facts);
  next.state.row_index = changes.row_index;
  next.state.row_index_updates = changes.row_index_updates;
  next.state.row_index_update_count = changes.row_index_update_count;
  next.state.row_count = report->rows_total;
  next.state.next_expiry = changes.next_expiry;
  next.state.folded_at = now;
  next.added = std::move(added);
  next.format_version = format_version;
  next.deleted_positions = std::move(changes.deleted_positions);
  next.generations = new_generations;
  next.now_seconds = now;
  next.lineage = source_path;
  next.ranges = run.options.token_ranges;
  next.new_table_properties = {
      {"cqlite.source.keyspace", source.keyspace},
      {"cqlite.source.table", source.table},
      {"cqlite.source.path", source_path},
      {kTimeAsProperty, std::string(TimeAsName(run.options.mapping.time_as))},
      {"write.parquet.compression-codec", run.options.compression == parquet::CompressionCodec::kZstd     ? "zstd"
                                          : run.options.compression == parquet::CompressionCodec::kSnappy ? "snappy"
                                                                                                         : "uncompressed"},
  };
  if (run.options.compression == parquet::CompressionCodec::kZstd) {
    next.new_table_properties["write.parquet.compression-level"] = std::to_string(run.options.compression_level);
  }
  if (!stage_dir.empty()) {
    staged.generations = new_generations;
    staged.new_table_properties = next.new_table_properties;
    staged.rows_appended = report->rows_appended;
    staged.rows_deleted = report->rows_deleted;
    staged.data_files = report->data_files;
    staged.delete_files = report->delete_files;
    staged.bytes_written = report->bytes_written;
    RETURN_IF_ERROR(StageRun(run.fs, stage_dir, staged, next.state, next.added, files));
    files.Keep();
    RemoveUnnamedKeptGenerations(run.fs, new_facts, next.state);
    report->staged = true;
    report->generations_consumed = static_cast<int>(new_generations.size());
    report->message = StrCat("staged run ", files.run_id(), " for cqlite commit --staged ", stage_dir);
    return Status::OK();
  }
  // Step 5: the one change that makes it all visible. A part of a table
  // published by token ranges that loses the race to a run of another part
  // goes on top of that run's snapshot as it is (the parts' rows, files and
  // fold states are their own); any other lost race starts the attempt anew
  // (MaterializeTable).
  WrittenSnapshot written;
  auto plan = [&](int attempt, const Status& lost_to) -> Result<std::optional<catalog::TableCommit>> {
    if (attempt > 1) {
      if (next.ranges.whole_ring()) return lost_to;
      ASSIGN_OR_RETURN(Baseline newer, LoadBaseline(run.fs, run.catalog, run.options.warehouse, run.namespace_name,
                                                    run.table_name, next.ranges));
      bool same_schema = !newer.table || !base.table ||
                         newer.table->metadata.current_schema_id == base.table->metadata.current_schema_id;
      if (newer.fold_state_path != base.fold_state_path || newer.location != base.location || !same_schema) {
        return lost_to;
      }
      Progress(run.options, "a run of another part of the ring committed first; committing on top of its snapshot");
      base = std::move(newer);
      files.NextCommitAttempt();
    }
    ASSIGN_OR_RETURN(written, WriteSnapshot(run.fs, base, next, files));
    report->snapshot_id = written.snapshot_id;
    Progress(run.options, "committing");
    return std::optional<catalog::TableCommit>(catalog::TableCommit{
        {run.namespace_name}, run.table_name, base.table ? &*base.table : nullptr, &written.metadata,
        written.metadata_file});
  };
  catalog::CommitRetryOptions retry;
  retry.max_attempts = run.options.max_attempts;
  retry.table = StrCat(run.namespace_name, ".", run.table_name);
  retry.what = next.ranges.whole_ring() ? "the commit" : "committing its part of the ring";
  auto committed = catalog::CommitWithRetry(run.fs, run.catalog, plan, retry);
  if (!committed.ok()) {
    if (committed.status().kind() == StatusKind::kCommitUnknown) {
      // The table may name this run's files now: none of them may go (if
      // it does not, they stay unreferenced).
      files.Keep();
      return committed.status().WithContext("the run's files are kept; run again to learn whether it committed");
    }
    return committed.status();
  }
  const std::string metadata_location = (*committed)->metadata_location;
  files.Keep();
  RemoveUnnamedKeptGenerations(run.fs, new_facts, next.state);
  report->committed = true;
  report->metadata_location = metadata_location;
  report->generations_consumed = static_cast<int>(new_generations.size());
  report->message = StrCat("committed snapshot ", report->snapshot_id);
  if (report->folded_touched_rows) {
    report->message += report->read_kept_facts_because.empty()
                           ? " (the new generations decided their rows alone)"
                           : " (only the rows the new generations touch were folded)";
  }
  if (!vanished_facts.empty()) {
    report->message += StrCat(" (", gone, " consumed generation(s) compacted away: the rows they held folded again)");
  }
  if (refold) {
    report->message += StrCat(" (", gone, " consumed generation(s) compacted away: the table directory's ",
                              run.identities.size(), " generation(s) folded anew)");
  }
  return Status::OK();
}

}  // namespace

namespace {

// What a run needs to know before it writes anything; errors here refuse the
// table with nothing written.
struct TablePlan {
  TableSSTables table;
  TableMapping mapping;
  TableReport report;
  std::string envelope_prefix;
};

// The primary key columns of `schema` that the catalog's table has as
// optional fields: an earlier run found an empty value in them.
Result<std::vector<std::string>> NullableKeysOfTable(FileSystem& fs, catalog::Catalog& catalog,
                                                     const std::string& namespace_name, const std::string& table_name,
                                                     const iceberg::Schema& schema) {
  std::vector<std::string> names;
  ASSIGN_OR_RETURN(std::optional<catalog::LoadedTable> loaded,
                   catalog.LoadTableMetadata(fs, {namespace_name}, table_name));
  if (!loaded) return names;
  const iceberg::Schema* current = loaded->metadata.CurrentSchema();
  if (current == nullptr) return names;
  for (const iceberg::NestedField& field : schema.fields) {
    if (!field.required) continue;
    for (const iceberg::NestedField& existing : current->fields) {
      if (existing.id == field.id && existing.name == field.name && !existing.required) names.push_back(field.name);
    }
  }
  return names;
}

// The first difference between two replicas' schemas of one table, or empty.
std::string SchemaDifference(const TableSchema& a, const TableSchema& b) {
  if (a.keyspace != b.keyspace || a.table != b.table) {
    return StrCat("it is table ", b.keyspace, ".", b.table, ", not ", a.keyspace, ".", a.table);
  }
  auto describe = [](const ColumnSchema& c) {
    return StrCat(c.name, " ", c.type->ToCql(), " (", ColumnKindName(c.kind), c.reversed ? ", descending" : "", ")");
  };
  for (size_t i = 0; i < std::max(a.columns.size(), b.columns.size()); ++i) {
    if (i >= a.columns.size()) return StrCat("it has column ", describe(b.columns[i]), " too");
    if (i >= b.columns.size()) return StrCat("it lacks column ", describe(a.columns[i]));
    std::string x = describe(a.columns[i]), y = describe(b.columns[i]);
    if (x != y) return StrCat("it has column ", y, " where the other has ", x);
  }
  return "";
}

// The SSTables of `table_dir` and of the table's other replicas
// (MaterializeOptions::replica_dirs), with one schema they all agree on.
Result<TableSSTables> OpenReplicasWithUnrepaired(FileSystem& fs, const std::string& table_dir,
                                                 const MaterializeOptions& options) {
  ASSIGN_OR_RETURN(TableSSTables table, OpenTableSSTables(fs, table_dir, options.schema_file));
  for (const std::string& replica_dir : options.replica_dirs) {
    ASSIGN_OR_RETURN(TableSSTables replica, OpenTableSSTables(fs, replica_dir, options.schema_file));
    std::string difference = SchemaDifference(table.schema.table, replica.schema.table);
    if (!difference.empty()) {
      return Status::InvalidArgument(StrCat(replica_dir, ": the schema of ", table.schema.table.keyspace, ".",
                                            table.schema.table.table, " differs from that of ", table_dir, ": ",
                                            difference, " (", replica.schema.Describe(), ")"));
    }
    if (replica.partitioner != table.partitioner) {
      return Status::InvalidArgument(
          StrCat(replica_dir, ": written by another partitioner than ", table_dir, " (two clusters?)"));
    }
    for (auto& sstable : replica.sstables) table.sstables.push_back(std::move(sstable));
  }
  return table;
}

// The SSTables of `table_dir` and of the table's other replicas
// (MaterializeOptions::replica_dirs), with one schema they all agree on;
// with repaired_only, the repaired ones only (the others counted in `report`).
Result<TableSSTables> OpenReplicas(FileSystem& fs, const std::string& table_dir, const MaterializeOptions& options,
                                   TableReport* report) {
  ASSIGN_OR_RETURN(TableSSTables table, OpenReplicasWithUnrepaired(fs, table_dir, options));
  if (!options.repaired_only) return table;
  std::vector<std::unique_ptr<SSTable>> repaired;
  for (auto& sstable : table.sstables) {
    if (MarkedRepaired(sstable->statistics())) {
      repaired.push_back(std::move(sstable));
      continue;
    }
    ++report->unrepaired_left_out;
    ASSIGN_OR_RETURN(auto data, fs.OpenForRead(sstable->location().DataPath()));
    report->unrepaired_bytes_left_out += static_cast<int64_t>(data->Size());
  }
  table.sstables = std::move(repaired);
  return table;
}

Result<TablePlan> PlanTable(FileSystem& fs, const std::string& table_dir, const MaterializeOptions& options) {
  TablePlan plan;
  ASSIGN_OR_RETURN(plan.table, OpenReplicas(fs, table_dir, options, &plan.report));
  const TableSchema& schema = plan.table.schema.table;
  ASSIGN_OR_RETURN(plan.mapping, MapTable(schema, options.mapping));
  TableReport& report = plan.report;
  report.source = table_dir;
  for (const std::string& replica_dir : options.replica_dirs) report.source += " " + replica_dir;
  report.namespace_name = options.namespace_name.empty() ? schema.keyspace : options.namespace_name;
  report.table_name = options.table_name.empty() ? schema.table : options.table_name;
  report.warning = plan.mapping.identifier_warning;
  if (report.namespace_name.empty() || report.table_name.empty()) {
    return Status::InvalidArgument(StrCat(table_dir, ": cannot tell the keyspace and table from the path; give "
                                                     "--namespace and --table"));
  }
  RETURN_IF_ERROR(catalog::ValidateNamespace({report.namespace_name}));
  RETURN_IF_ERROR(catalog::ValidateTableName(report.table_name));
  plan.envelope_prefix = envelope::kDefaultPrefix;
  if (!envelope::CheckPrefix(schema, plan.envelope_prefix).ok()) {
    plan.envelope_prefix = kAlternatePrefix;
    RETURN_IF_ERROR(envelope::CheckPrefix(schema, plan.envelope_prefix));
  }
  return plan;
}

}  // namespace

Status CheckTable(FileSystem& fs, const std::string& table_dir, const MaterializeOptions& options) {
  return PlanTable(fs, table_dir, options).status();
}

Result<TableReport> MaterializeTable(FileSystem& fs, catalog::Catalog& catalog, const std::string& table_dir,
                                     const MaterializeOptions& options) {
  // Everything that can be refused is refused before any file is written.
  // The mapping's nullable key columns may grow below; `run_options` holds them.
  MaterializeOptions run_options = options;
  ASSIGN_OR_RETURN(TablePlan plan, PlanTable(fs, table_dir, run_options));
  const TableSSTables& table = plan.table;
  TableMapping& mapping = plan.mapping;
  TableReport& report = plan.report;
  auto remap = [&]() -> Status {
    ASSIGN_OR_RETURN(mapping, MapTable(table.schema.table, run_options.mapping));
    report.warning = mapping.identifier_warning;
    return Status::OK();
  };
  // A table maps times as it was made to (MappingOptions::time_as).
  {
    ASSIGN_OR_RETURN(std::optional<catalog::LoadedTable> existing,
                     catalog.LoadTableMetadata(fs, {report.namespace_name}, report.table_name));
    TimeAs asked = run_options.mapping.time_as;
    RETURN_IF_ERROR(ResolveTimeAs(existing ? &existing->metadata.properties : nullptr,
                                  StrCat(report.namespace_name, ".", report.table_name), &run_options.mapping));
    if (run_options.mapping.time_as != asked) RETURN_IF_ERROR(remap());
  }
  // Key columns an earlier run made optional stay optional.
  ASSIGN_OR_RETURN(std::vector<std::string> nullable,
                   NullableKeysOfTable(fs, catalog, report.namespace_name, report.table_name, mapping.schema));
  if (!nullable.empty()) {
    for (std::string& name : nullable) run_options.mapping.nullable_keys.push_back(std::move(name));
    RETURN_IF_ERROR(remap());
  }
  std::vector<std::string> identities;
  for (const auto& sstable : table.sstables) {
    ASSIGN_OR_RETURN(std::string identity, GenerationIdentity(fs, *sstable));
    identities.push_back(std::move(identity));
  }
  Run run{fs, catalog, run_options, table, mapping, identities, report.namespace_name, report.table_name, table_dir,
          plan.envelope_prefix};
  for (int attempt = 1; attempt <= std::max(1, options.max_attempts); ++attempt) {
    TableReport attempt_report = report;
    attempt_report.attempts = attempt;
    Status status = RunOnce(run, &attempt_report);
    if (status.ok()) return attempt_report;
    // An empty value in a required key column: the column becomes optional
    // (the table's next schema) and the attempt starts again; at most once
    // per key column.
    if (std::optional<std::string> column = EmptyKeyColumn(status)) {
      std::vector<std::string>& keys = run_options.mapping.nullable_keys;
      if (std::find(keys.begin(), keys.end(), *column) == keys.end()) {
        keys.push_back(*column);
        RETURN_IF_ERROR(remap());
        Progress(options, StrCat("column ", *column, " holds an empty value: it becomes an optional field"));
        --attempt;
        continue;
      }
    }
    if (status.kind() != StatusKind::kCommitConflict) return status;
    Progress(options, StrCat("another writer committed first; trying again (attempt ", attempt + 1, ")"));
  }
  return Status::CommitConflict(StrCat(report.namespace_name, ".", report.table_name, ": gave up after ",
                                       options.max_attempts, " attempts, each losing to another writer"));
}

bool InLiveDataDirectory(FileSystem& fs, const std::string& table_dir) {
  std::optional<SSTableLocation> location = TableDirectoryLocation(table_dir);
  if (!location) return false;
  std::string root = DirName(DirName(location->directory));
  return fs.IsDirectory(JoinPath(root, "system_schema")) || fs.IsDirectory(JoinPath(root, "system"));
}

namespace {

// Whether `table_dir` is in a tree of snapshot folders copied out of a
// node's data directory: its system.local is there only as snapshots
// (system/local-<id>/snapshots/<tag>/), with no SSTable of its own. A node's
// own data directory has system.local's SSTables, or none at all (a test
// node that never flushed its system tables).
bool InSnapshotCopy(FileSystem& fs, const std::string& table_dir) {
  std::string system = JoinPath(DirName(DirName(table_dir)), "system");
  auto entries = fs.ListDirectory(system);
  if (!entries.ok()) return false;
  for (const DirectoryEntry& e : *entries) {
    if (!e.is_directory || !StartsWith(e.name, "local-")) continue;
    std::string local = JoinPath(system, e.name);
    if (HoldsOwnSSTables(fs, local)) return false;
    auto tags = fs.ListDirectory(JoinPath(local, "snapshots"));
    if (tags.ok() && !tags->empty()) return true;
  }
  return false;
}

// The table directories of a live data directory (or one keyspace of it)
// that hold no SSTable: tables whose every fact compaction purged. A
// directory is left out when its keyspace has another one of the same table
// (a dropped table's, beside the table made again) or no schema names it.
std::vector<std::string> EmptyTableDirectories(FileSystem& fs, const std::string& path) {
  std::vector<std::string> keyspaces;
  if (fs.IsDirectory(JoinPath(path, "system_schema")) || fs.IsDirectory(JoinPath(path, "system"))) {
    auto entries = fs.ListDirectory(path);
    if (!entries.ok()) return {};
    for (const auto& e : *entries) {
      if (e.is_directory && !SystemKeyspaces().count(e.name)) keyspaces.push_back(JoinPath(path, e.name));
    }
  } else if (fs.IsDirectory(JoinPath(DirName(path), "system_schema"))) {
    keyspaces.push_back(path);
  }
  std::vector<std::string> found;
  for (const std::string& keyspace : keyspaces) {
    auto entries = fs.ListDirectory(keyspace);
    if (!entries.ok()) continue;
    std::map<std::string, std::vector<std::string>> by_table;
    for (const auto& e : *entries) {
      if (!e.is_directory) continue;
      std::string dir = JoinPath(keyspace, e.name);
      if (auto location = TableDirectoryLocation(dir)) by_table[location->table].push_back(dir);
    }
    for (const auto& [table, dirs] : by_table) {
      if (dirs.size() != 1) continue;
      if (HoldsOwnSSTables(fs, dirs[0]) || InSnapshotCopy(fs, dirs[0])) continue;
      if (ResolveSchemaWithoutSSTables(fs, *TableDirectoryLocation(dirs[0]), "").ok()) found.push_back(dirs[0]);
    }
  }
  return found;
}

}  // namespace

Result<std::vector<std::string>> FindTableDirectories(FileSystem& fs, const std::string& path) {
  auto found = FindSSTables(fs, path);
  std::vector<std::string> empty = EmptyTableDirectories(fs, path);
  if (!found.ok() && found.status().kind() == StatusKind::kNotFound) {
    if (!empty.empty()) return empty;
    // A table directory without SSTables: OpenTableSSTables takes it for an
    // empty table if a schema names it.
    if (fs.IsDirectory(path) && TableDirectoryLocation(path)) return std::vector<std::string>{path};
  }
  ASSIGN_OR_RETURN(auto locations, std::move(found));
  std::vector<std::string> directories = std::move(empty);
  for (const SSTableLocation& location : locations) {
    if (SystemKeyspaces().count(location.keyspace) && !location.table_id.empty()) continue;
    if (std::find(directories.begin(), directories.end(), location.directory) == directories.end()) {
      directories.push_back(location.directory);
    }
  }
  // The snapshots and backups of a table directory that is itself a table
  // here (one with SSTables, or a live one) are earlier copies of it.
  std::set<std::string> listed(directories.begin(), directories.end());
  directories.erase(std::remove_if(directories.begin(), directories.end(),
                                   [&](const std::string& dir) {
                                     std::string table_dir = OwningTableDirectory(dir);
                                     if (table_dir.empty() || table_dir == dir) return false;
                                     return listed.count(table_dir) > 0 ||
                                            (InLiveDataDirectory(fs, table_dir) && !InSnapshotCopy(fs, table_dir));
                                   }),
                    directories.end());
  if (directories.empty()) {
    return Status::NotFound(StrCat(path, ": holds only Cassandra's system tables; nothing to materialize"));
  }
  return directories;
}

}  // namespace cqlite::materialize
