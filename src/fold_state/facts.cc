#include "fold_state/facts.h"

#include "source/schema_source.h"
#include "envelope/envelope_merge.h"
#include "envelope/envelope_reader.h"
#include "fold/range_source.h"
#include "fold/schema_projection.h"
#include "fold/sstable_source.h"
#include "util/strings.h"

namespace cqlite::materialize {

namespace {

// What a kept SSTable keeps: what a full scan reads, and Cassandra's digest.
constexpr const char* kKeptComponents[] = {"Data.db", "Statistics.db", "CompressionInfo.db", "CRC.db", "TOC.txt",
                                           "Digest.crc32"};

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A fold source that owns the SSTable it reads (and the schema both use).
class KeptSSTableSource final : public FoldSource {
 public:
  KeptSSTableSource(std::shared_ptr<const TableSchema> schema, std::unique_ptr<SSTable> sstable,
                    std::unique_ptr<FoldSource> source)
      : schema_(std::move(schema)), sstable_(std::move(sstable)), source_(std::move(source)) {}
  Result<bool> Next(FoldPartition* partition) override { return source_->Next(partition); }
  Status More(FoldPartition* partition) override { return source_->More(partition); }
  Status SkipRest(FoldPartition* partition) override { return source_->SkipRest(partition); }
  Result<bool> NextNotSkipped(FoldPartition* partition, const KeyTest& skip) override {
    return source_->NextNotSkipped(partition, skip);
  }
  void PassOverRowsNotWanted(const RowTest* wanted) override { source_->PassOverRowsNotWanted(wanted); }
  const std::string& name() const override { return source_->name(); }
  std::optional<PartitionKeySpan> key_span() const override { return source_->key_span(); }

 private:
  // Declared in the order they must be built; destroyed the other way.
  std::shared_ptr<const TableSchema> schema_;
  std::unique_ptr<SSTable> sstable_;
  std::unique_ptr<FoldSource> source_;
};

Result<std::string> KeptDataFile(const FactsSet& set) {
  for (const std::string& file : set.files) {
    if (EndsWith(file, "-Data.db")) return file;
  }
  return Status::Corruption(StrCat(set.files.empty() ? std::string("a fold state") : set.files.front(),
                                   ": a kept SSTable without its Data.db"));
}

Result<std::unique_ptr<FoldSource>> OpenKeptSSTable(FileSystem& fs, const FactsSet& set,
                                                    const std::shared_ptr<const TableSchema>& schema,
                                                    std::optional<Partitioner> partitioner) {
  ASSIGN_OR_RETURN(std::string data_file, KeptDataFile(set));
  ASSIGN_OR_RETURN(std::vector<SSTableLocation> found, FindSSTables(fs, data_file));
  ASSIGN_OR_RETURN(auto sstable, SSTable::Open(fs, found.front()));
  RETURN_IF_ERROR(
      CheckSchemaAgainstHeader(*schema, sstable->header(), sstable->location().ComponentPath("Statistics.db")));
  if (sstable->Partitioner() != partitioner) {
    return Status::InvalidArgument(StrCat(data_file, ": written by another partitioner than the table's other facts"));
  }
  sstable->UseSchema(*schema);
  ASSIGN_OR_RETURN(auto source, OpenSSTableFoldSource(*sstable, *schema));
  return std::unique_ptr<FoldSource>(
      std::make_unique<KeptSSTableSource>(schema, std::move(sstable), std::move(source)));
}

}  // namespace

Result<FactsSet> KeepGeneration(FileSystem& fs, const SSTable& sstable, size_t generation, RunFiles& files) {
  const SSTableLocation& location = sstable.location();
  RETURN_IF_ERROR(fs.CreateDirectories(files.KeptGenerationDirectory(generation)));
  FactsSet set;
  set.form = FactsForm::kSSTable;
  for (const char* component : kKeptComponents) {
    std::string from = location.ComponentPath(component);
    if (!fs.Exists(from)) continue;
    std::string to = files.KeptComponent(generation, location.name.prefix + component);
    RETURN_IF_ERROR(fs.LinkOrCopy(from, to));
    RETURN_IF_ERROR(fs.SyncFile(to));
    ASSIGN_OR_RETURN(auto kept, fs.OpenForRead(to));
    set.bytes += static_cast<int64_t>(kept->Size());
    set.files.push_back(std::move(to));
  }
  return set;
}

namespace {

// How every set of `sets` is read: with the table's schema (envelope facts
// written with an earlier one are projected onto it: ALTER TABLE between
// runs), in the order of the table's partitioner, or, when no SSTable of the
// table is left (every one compacted away), of the facts' own.
Result<OpenedFacts> FactsReading(FileSystem& fs, const std::vector<FactsSet>& sets, const TableSSTables& table) {
  OpenedFacts reading;
  reading.schema = std::make_shared<const TableSchema>(table.schema.table);
  reading.partitioner = table.partitioner;
  if (!table.sstables.empty()) return reading;
  for (const FactsSet& set : sets) {
    if (set.form == FactsForm::kEnvelope) {
      ASSIGN_OR_RETURN(envelope::EnvelopeInputs inputs, envelope::OpenEnvelopeChains(fs, {set.files}, {}));
      reading.partitioner = inputs.partitioner;
    } else {
      ASSIGN_OR_RETURN(std::string data_file, KeptDataFile(set));
      ASSIGN_OR_RETURN(std::vector<SSTableLocation> found, FindSSTables(fs, data_file));
      ASSIGN_OR_RETURN(auto sstable, SSTable::Open(fs, found.front()));
      reading.partitioner = sstable->Partitioner();
    }
    break;
  }
  return reading;
}

// Opens `sets` as `reading` (FactsReading) says, one source per set, in the
// sets' order.
Result<OpenedFacts> OpenFactsAs(FileSystem& fs, const std::vector<FactsSet>& sets, const OpenedFacts& reading) {
  OpenedFacts opened;
  opened.schema = reading.schema;
  opened.partitioner = reading.partitioner;
  for (const FactsSet& set : sets) {
    if (set.form != FactsForm::kEnvelope) {
      ASSIGN_OR_RETURN(auto source, OpenKeptSSTable(fs, set, opened.schema, opened.partitioner));
      opened.sources.push_back(std::move(source));
      continue;
    }
    ASSIGN_OR_RETURN(envelope::EnvelopeInputs inputs, envelope::OpenEnvelopeChains(fs, {set.files}, {}));
    if (inputs.partitioner != opened.partitioner) {
      return Status::InvalidArgument(StrCat(set.files.front(), ": written by another partitioner than the "
                                                               "table's other facts"));
    }
    std::unique_ptr<FoldSource> source = std::move(inputs.sources.front());
    if (NeedsProjection(*inputs.schema, *opened.schema)) {
      source = ProjectToSchema(std::move(source), inputs.schema, opened.schema);
    }
    opened.sources.push_back(std::move(source));
  }
  return opened;
}

}  // namespace

Result<OpenedFacts> OpenFacts(FileSystem& fs, const std::vector<FactsSet>& sets, const TableSSTables& table) {
  ASSIGN_OR_RETURN(OpenedFacts reading, FactsReading(fs, sets, table));
  return OpenFactsAs(fs, sets, reading);
}

Result<OpenedFacts> OpenFactsIn(FileSystem& fs, const std::vector<FactsSet>& sets, const TableSSTables& table,
                                const Murmur3RangeSet& ranges) {
  ASSIGN_OR_RETURN(OpenedFacts opened, OpenFacts(fs, sets, table));
  if (ranges.whole_ring()) return opened;
  if (opened.partitioner != Partitioner::kMurmur3) {
    return Status::NotSupported(StrCat(table.schema.table.keyspace, ".", table.schema.table.table,
                                       ": token ranges are of Murmur3Partitioner tables only"));
  }
  for (auto& source : opened.sources) source = RestrictToRanges(std::move(source), ranges);
  return opened;
}

Result<std::vector<FactsSet>> MergeFactsSets(FileSystem& fs, std::vector<FactsSet> sets, const TableSSTables& table,
                                             const MergeSettings& settings, RunFiles& files) {
  std::vector<int64_t> sizes;
  for (FactsSet& set : sets) {
    // Format 1 states did not record sizes.
    if (set.bytes == 0) {
      for (const std::string& path : set.files) {
        ASSIGN_OR_RETURN(auto file, fs.OpenForRead(path));
        set.bytes += static_cast<int64_t>(file->Size());
      }
    }
    sizes.push_back(set.bytes);
  }
  std::vector<std::vector<size_t>> merges = PlanFactsMerges(sizes, settings.fan_in);
  if (merges.empty()) return sets;
  const TableSchema& t = table.schema.table;
  ASSIGN_OR_RETURN(OpenedFacts reading, FactsReading(fs, sets, table));
  std::vector<bool> merged_away(sets.size() + merges.size());
  for (size_t m = 0; m < merges.size(); ++m) {
    std::vector<FactsSet> inputs;
    envelope::MergedFacts identity;
    std::vector<std::string> names;
    int64_t input_bytes = 0;
    std::vector<std::string> identities;
    bool identities_known = true;
    for (size_t index : merges[m]) {
      const FactsSet& set = sets[index];
      inputs.push_back(set);
      identities_known = identities_known && !set.identities.empty();
      identities.insert(identities.end(), set.identities.begin(), set.identities.end());
      identity.generations += set.generations;
      input_bytes += set.bytes;
      std::string name = set.files.front();
      if (set.form == FactsForm::kSSTable) {
        ASSIGN_OR_RETURN(name, KeptDataFile(set));
      }
      names.push_back(BaseName(name));
      merged_away[index] = true;
    }
    identity.sources = Join(names, ",");
    identity.keyspace = t.keyspace;
    identity.table = t.table;
    identity.table_id = t.table_id.value_or("");
    identity.prefix = settings.envelope_prefix;
    if (settings.progress) {
      settings.progress(StrCat("merging facts (at most ", settings.fan_in, " are folded at once): ", inputs.size(),
                               " sets, ", input_bytes, " bytes, into one; merge ", m + 1, " of ", merges.size()));
    }
    ASSIGN_OR_RETURN(OpenedFacts opened, OpenFactsAs(fs, inputs, reading));
    if (!opened.partitioner) {
      return Status::NotSupported(StrCat(inputs.front().files.front(), ": facts whose partitioner cqlite cannot "
                                                                       "order keys by cannot be merged"));
    }
    envelope::MergeOptions options;
    options.row_group_rows = settings.row_group_rows;
    options.max_records_per_file = settings.file_records;
    ASSIGN_OR_RETURN(envelope::MergeResult result,
                     envelope::MergeFoldSources(
                         fs, *opened.schema, *opened.partitioner, std::move(opened.sources), identity,
                         [&](int i) { return files.MergedFactsFile(m, i); }, options));
    FactsSet merged;
    merged.form = FactsForm::kEnvelope;
    merged.generations = result.generations;
    if (identities_known && static_cast<int>(identities.size()) == merged.generations) {
      merged.identities = std::move(identities);
    }
    for (std::string& path : result.files) {
      RETURN_IF_ERROR(fs.SyncFile(path));
      ASSIGN_OR_RETURN(auto file, fs.OpenForRead(path));
      merged.bytes += static_cast<int64_t>(file->Size());
      merged.files.push_back(std::move(path));
    }
    sets.push_back(std::move(merged));
  }
  std::vector<FactsSet> left;
  for (size_t i = 0; i < sets.size(); ++i) {
    if (!merged_away[i]) left.push_back(std::move(sets[i]));
  }
  return left;
}

}  // namespace cqlite::materialize
