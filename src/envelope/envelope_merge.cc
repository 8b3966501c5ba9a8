#include "envelope/envelope_merge.h"

#include <limits>
#include <memory>
#include <optional>

#include "envelope/envelope_reader.h"
#include "envelope/envelope_schema.h"
#include "envelope/envelope_writer.h"
#include "parquet/reader.h"
#include "util/strings.h"

namespace cqlite::envelope {

namespace {

using parquet::Value;

// Footer keys that describe the table, copied from the first input; those of
// one generation's identity are left out, its source becomes the list of all.
constexpr const char* kTableFooterKeys[] = {kSchemaHashKey, kExtensionKey,   kExtensionVersionKey, kPrefixKey,
                                            kSchemaCqlKey,  kKeyspaceKey,    kTableKey,            kTableIdKey,
                                            kPartitionerKey};

struct InputFooter {
  std::string source;
  std::vector<parquet::KeyValue> table_keys;
  std::string prefix = kDefaultPrefix;
};

Result<InputFooter> ReadInputFooter(FileSystem& fs, const std::string& path) {
  ASSIGN_OR_RETURN(auto reader, parquet::ParquetReader::Open(fs, path));
  InputFooter footer;
  for (const parquet::KeyValue& kv : reader->metadata().key_value_metadata) {
    if (!kv.value) continue;
    if (kv.key == kSourceKey) footer.source = *kv.value;
    if (kv.key == kPrefixKey) footer.prefix = *kv.value;
    for (const char* key : kTableFooterKeys) {
      if (kv.key == key) footer.table_keys.push_back(kv);
    }
  }
  return footer;
}

// Writes the merged records, starting a new file at a partition boundary once
// the current one is full; removes what it wrote unless finished.
class MergedFileWriter {
 public:
  MergedFileWriter(FileSystem& fs, parquet::Schema schema, parquet::WriterOptions writer_options,
                   const std::function<std::string(int)>& file_path, int64_t max_records)
      : fs_(fs),
        schema_(std::move(schema)),
        writer_options_(std::move(writer_options)),
        max_records_(max_records),
        files_(fs, file_path) {}

  Status Write(const Value& record) {
    if (!writer_) RETURN_IF_ERROR(OpenFile());
    return writer_->WriteRow(record);
  }
  // Called between partition keys.
  Status AtPartitionBoundary() {
    if (writer_ && max_records_ > 0 && writer_->num_rows() >= max_records_) return CloseFile();
    return Status::OK();
  }
  Result<std::vector<std::string>> Finish() {
    if (!writer_ && files_.completed() == 0) RETURN_IF_ERROR(OpenFile());
    if (writer_) RETURN_IF_ERROR(CloseFile());
    return files_.Keep();
  }

 private:
  Status OpenFile() {
    ASSIGN_OR_RETURN(writer_, parquet::ParquetWriter::Open(fs_, files_.StartNext(), schema_, writer_options_));
    return Status::OK();
  }
  Status CloseFile() {
    RETURN_IF_ERROR(writer_->Close().status());
    writer_.reset();
    return files_.Complete();
  }

  FileSystem& fs_;
  parquet::Schema schema_;
  parquet::WriterOptions writer_options_;
  int64_t max_records_;
  ChainFiles files_;
  std::unique_ptr<parquet::ParquetWriter> writer_;  // closed before files_ removes its file
};

}  // namespace

Result<MergeResult> MergeFacts(FileSystem& fs, const std::vector<std::vector<std::string>>& chains,
                               const std::function<std::string(int)>& file_path, const MergeOptions& options) {
  ASSIGN_OR_RETURN(RecordStreams inputs, OpenRecordStreams(fs, chains, {}));
  std::vector<InputFooter> footers;
  for (const auto& chain : chains) {
    ASSIGN_OR_RETURN(InputFooter footer, ReadInputFooter(fs, chain.front()));
    footers.push_back(std::move(footer));
  }
  const std::string& prefix = footers.front().prefix;
  for (size_t i = 1; i < footers.size(); ++i) {
    if (footers[i].prefix != prefix) {
      return Status::InvalidArgument(StrCat(chains[i].front(), ": envelope prefix '", footers[i].prefix,
                                            "' differs from '", prefix, "' of ", chains.front().front()));
    }
  }

  // Input i's generation g becomes generation first[i] + g of the result.
  std::vector<int32_t> first;
  int64_t generations = 0;
  for (const auto& stream : inputs.streams) {
    first.push_back(static_cast<int32_t>(generations));
    generations += stream->generations();
  }
  if (generations > std::numeric_limits<int32_t>::max()) {
    return Status::InvalidArgument("too many generations to merge into one file");
  }

  const TableSchema& table = *inputs.schema;
  EnvelopeLayout layout;
  parquet::Schema schema = BuildEnvelopeSchema(table, prefix, Flavor::kCqlite, &layout, /*merged=*/true);
  // The plain columns come first, in the same order in every input (checked
  // by name when opened; our writer lays them out as BuildEnvelopeSchema does).
  const size_t plain_fields = static_cast<size_t>(layout.generation);

  parquet::WriterOptions writer_options;
  writer_options.compression = options.compression;
  writer_options.row_group_rows = options.row_group_rows;
  std::vector<std::string> sources;
  for (const InputFooter& footer : footers) sources.push_back(footer.source);
  writer_options.key_value_metadata = {{kVersionKey, kVersion},
                                       {kSourceKey, Join(sources, ",")},
                                       {kProducerVersionKey, "cqlite 0.1.0"},
                                       {kGenerationsKey, std::to_string(generations)}};
  for (const parquet::KeyValue& kv : footers.front().table_keys) writer_options.key_value_metadata.push_back(kv);
  MergedFileWriter out(fs, schema, std::move(writer_options), file_path, options.max_records_per_file);

  std::vector<bool> has(inputs.streams.size());
  for (size_t i = 0; i < inputs.streams.size(); ++i) {
    ASSIGN_OR_RETURN(has[i], inputs.streams[i]->Next());
  }
  MergeResult result;
  result.generations = static_cast<int>(generations);
  std::vector<Value> fields;
  while (true) {
    // The smallest key any input is at; its records are copied input by
    // input, which keeps each input's generations in increasing order.
    std::optional<size_t> lowest;
    for (size_t i = 0; i < inputs.streams.size(); ++i) {
      if (!has[i]) continue;
      if (!lowest || ComparePartitionKeys(inputs.partitioner, inputs.streams[i]->partition_key(),
                                          inputs.streams[*lowest]->partition_key()) == std::strong_ordering::less) {
        lowest = i;
      }
    }
    if (!lowest) break;
    const std::string key = inputs.streams[*lowest]->partition_key();
    for (size_t i = *lowest; i < inputs.streams.size(); ++i) {
      RecordStream& stream = *inputs.streams[i];
      while (has[i] && stream.partition_key() == key) {
        const std::vector<Value>& in = stream.record().fields();
        if (in.size() < plain_fields) {
          return Status::Corruption(StrCat(stream.name(), ": a record with ", in.size(), " fields"));
        }
        fields.assign(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(plain_fields));
        fields.push_back(Value::Int32(first[i] + stream.generation()));
        RETURN_IF_ERROR(out.Write(Value::Struct(std::move(fields))));
        ++result.records;
        ASSIGN_OR_RETURN(has[i], stream.Next());
      }
    }
    RETURN_IF_ERROR(out.AtPartitionBoundary());
  }
  ASSIGN_OR_RETURN(result.files, out.Finish());
  return result;
}

}  // namespace cqlite::envelope
