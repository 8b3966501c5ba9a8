#include "envelope/envelope_merge.h"

#include <limits>
#include <memory>

#include "envelope/envelope_reader.h"
#include "envelope/envelope_schema.h"
#include "envelope/envelope_writer.h"
#include "fold/table_fold.h"
#include "util/strings.h"

namespace cqlite::envelope {

namespace {

using parquet::Value;

// Hands merged partitions to an envelope writer as the Data.db reader hands
// an SSTable's: rows and markers as views of the partition's bytes, columns
// numbered as in the header `Header()` describes (every static column, then
// every regular one, in table order).
class PartitionFeeder {
 public:
  explicit PartitionFeeder(const TableSchema& table) : header_index_(table.columns.size(), -1) {
    for (size_t i = 0; i < table.columns.size(); ++i) {
      ColumnKind kind = table.columns[i].kind;
      if (kind == ColumnKind::kStatic) {
        header_index_[i] = static_cast<int>(static_columns_.size());
        static_columns_.push_back({static_cast<int>(i)});
      } else if (kind == ColumnKind::kRegular) {
        header_index_[i] = static_cast<int>(regular_columns_.size());
        regular_columns_.push_back({static_cast<int>(i)});
      }
    }
  }

  void Header(GenerationInfo* generation) const {
    generation->static_columns = static_columns_;
    generation->regular_columns = regular_columns_;
  }

  // The partition's start: its key, deletion and static row.
  Status Start(EnvelopeConsumer& out, const FoldPartition& partition) {
    PartitionHeader header;
    header.key = partition.key;
    header.deletion = partition.deletion;
    RETURN_IF_ERROR(out.OnPartitionStart(header));
    if (!partition.has_static_row) return Status::OK();
    ToRow(partition.static_row, /*is_static=*/true);
    return out.OnRow(row_);
  }

  // The piece's rows and markers.
  Status Items(EnvelopeConsumer& out, const FoldPartition& partition) {
    size_t next_row = 0, next_marker = 0;
    for (bool is_marker : partition.item_is_marker) {
      if (!is_marker) {
        ToRow(partition.rows[next_row++], /*is_static=*/false);
        RETURN_IF_ERROR(out.OnRow(row_));
        continue;
      }
      const FoldMarker& from = partition.markers[next_marker++];
      RangeTombstoneMarker marker;
      marker.kind = from.kind;
      View(from.bound, &marker.bound);
      marker.deletion = from.deletion;
      marker.end_deletion = from.end_deletion;
      marker.start_deletion = from.start_deletion;
      RETURN_IF_ERROR(out.OnRangeTombstoneMarker(marker));
    }
    return Status::OK();
  }

 private:
  static void View(const FoldClustering& from, Clustering* to) {
    to->values.assign(from.values.begin(), from.values.end());
    to->present.assign(from.present.begin(), from.present.end());
  }

  void ToRow(const FoldRow& from, bool is_static) {
    row_.Clear();
    row_.is_static = is_static;
    View(from.clustering, &row_.clustering);
    row_.liveness = from.liveness;
    row_.deletion = from.deletion;
    row_.deletion_is_shadowable = from.deletion_is_shadowable;
    for (const FoldColumn& column : from.columns) {
      ColumnData& data = row_.columns.emplace_back();
      data.column = header_index_[column.column];
      data.is_complex = column.is_complex;
      data.complex_deletion = column.complex_deletion;
      for (const FoldCell& cell : column.cells) {
        Cell& view = data.cells.emplace_back();
        view.timestamp = cell.timestamp;
        view.ttl = cell.ttl;
        view.local_deletion_time = cell.local_deletion_time;
        view.is_tombstone = cell.IsTombstone();
        view.is_expiring = cell.IsExpiring();
        view.path = cell.path;
        view.value = cell.value;
      }
    }
  }

  std::vector<int> header_index_;  // by table column; -1 for key columns
  std::vector<HeaderColumn> static_columns_;
  std::vector<HeaderColumn> regular_columns_;
  Row row_;
};

}  // namespace

Result<MergeResult> MergeFoldSources(FileSystem& fs, const TableSchema& table, Partitioner partitioner,
                                     std::vector<std::unique_ptr<FoldSource>> sources, const MergedFacts& identity,
                                     const std::function<std::string(int)>& file_path, const MergeOptions& options) {
  if (sources.empty()) return Status::InvalidArgument("no facts to merge");
  if (identity.generations > std::numeric_limits<int32_t>::max()) {
    return Status::InvalidArgument("too many generations to merge into one file");
  }
  PartitionFeeder feeder(table);
  GenerationInfo merged;
  merged.source = identity.sources;
  merged.keyspace = identity.keyspace;
  merged.table = identity.table;
  merged.table_id = identity.table_id;
  merged.partitioner = partitioner;
  merged.merged_generations = identity.generations;
  feeder.Header(&merged);
  ExportOptions export_options;
  export_options.prefix = identity.prefix;
  export_options.compression = options.compression;
  export_options.row_group_rows = options.row_group_rows;
  SegmentedEnvelopeWriter out(fs, table, std::move(merged), file_path, options.max_records_per_file,
                              export_options);

  ASSIGN_OR_RETURN(auto merge, TableFold::Make(table, partitioner, std::move(sources), /*now_seconds=*/0));
  FoldPartition piece;
  bool in_partition = false;
  while (true) {
    ASSIGN_OR_RETURN(bool more, merge->NextMerged(&piece));
    if (!more) break;
    if (!in_partition) RETURN_IF_ERROR(feeder.Start(out, piece));
    RETURN_IF_ERROR(feeder.Items(out, piece));
    in_partition = !piece.complete;
    if (piece.complete) RETURN_IF_ERROR(out.OnPartitionEnd());
  }
  MergeResult result;
  result.generations = static_cast<int>(identity.generations);
  result.records = out.records();
  ASSIGN_OR_RETURN(result.files, out.Finish());
  return result;
}

Result<MergeResult> MergeFacts(FileSystem& fs, const std::vector<std::vector<std::string>>& chains,
                               const std::function<std::string(int)>& file_path, const MergeOptions& options) {
  if (chains.empty()) return Status::InvalidArgument("no facts to merge");
  ASSIGN_OR_RETURN(EnvelopeInputs inputs, OpenEnvelopeChains(fs, chains, {}));
  if (!inputs.partitioner) {
    return Status::NotSupported(StrCat(chains.front().front(), ": facts whose partitioner cqlite cannot order keys "
                                                               "by cannot be merged"));
  }
  const std::vector<ChainFooter>& footers = inputs.footers;
  const ChainFooter& first = footers.front();
  MergedFacts identity;
  std::vector<std::string> sources;
  for (size_t i = 0; i < footers.size(); ++i) {
    if (footers[i].prefix != first.prefix) {
      return Status::InvalidArgument(StrCat(chains[i].front(), ": envelope prefix '", footers[i].prefix,
                                            "' differs from '", first.prefix, "' of ", chains.front().front()));
    }
    identity.generations += footers[i].generations;
    sources.push_back(footers[i].source);
  }
  identity.sources = Join(sources, ",");
  identity.keyspace = first.keyspace;
  identity.table = first.table;
  identity.table_id = first.table_id;
  identity.prefix = first.prefix;
  return MergeFoldSources(fs, *inputs.schema, *inputs.partitioner, std::move(inputs.sources), identity, file_path,
                          options);
}

}  // namespace cqlite::envelope
