#include "fold_state/fold_state.h"

#include <algorithm>
#include <climits>
#include <cstring>

#include <nlohmann/json.hpp>

#include "util/strings.h"
#include "util/json_integer.h"

namespace cqlite::materialize {

namespace {

using nlohmann::json;
using parquet::Field;
using parquet::Repetition;
using parquet::Value;

constexpr int kFormat = 5;
constexpr char kSSTableForm[] = "sstable";
constexpr char kEnvelopeForm[] = "envelope";
constexpr int64_t kIndexRowGroupRows = 65536;

parquet::Schema RowIndexSchema() {
  parquet::Schema schema;
  schema.root_name = "cqlite_row_index";
  schema.fields = {Field::Binary("partition_key", Repetition::kRequired, 1),
                   Field::Binary("clustering", Repetition::kRequired, 2),
                   Field::String("data_file", Repetition::kRequired, 3),
                   Field::Int64("position", Repetition::kRequired, 4),
                   Field::Int64("hash", Repetition::kRequired, 5),
                   Field::Int64("expires", Repetition::kRequired, 6)};
  return schema;
}

// The columns of row index files written before entries had an expiry.
constexpr size_t kColumnsWithoutExpiry = 5;

void AppendUint32(uint32_t v, std::string* out) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>((v >> shift) & 0xff));
}

}  // namespace

namespace {

template <typename AnyClustering>
void EncodeClustering(const AnyClustering& clustering, std::string* out_bytes) {
  std::string& out = *out_bytes;
  out.clear();
  for (size_t i = 0; i < clustering.values.size(); ++i) {
    bool present = clustering.present.empty() || clustering.present[i];
    out.push_back(present ? 1 : 0);
    if (!present) continue;
    AppendUint32(static_cast<uint32_t>(clustering.values[i].size()), &out);
    out += clustering.values[i];
  }
}

}  // namespace

void EncodeRowIndexClustering(const FoldClustering& clustering, std::string* out) {
  EncodeClustering(clustering, out);
}

void EncodeRowIndexClustering(const Clustering& clustering, std::string* out) { EncodeClustering(clustering, out); }

bool DecodeRowIndexClustering(std::string_view bytes, FoldClustering* out) {
  out->values.clear();
  out->present.clear();
  size_t pos = 0;
  while (pos < bytes.size()) {
    bool present = bytes[pos++] != 0;
    out->present.push_back(present);
    if (!present) {
      out->values.emplace_back();
      continue;
    }
    if (bytes.size() - pos < 4) return false;
    uint32_t len = 0;
    for (int i = 0; i < 4; ++i) len = (len << 8) | static_cast<uint8_t>(bytes[pos + i]);
    pos += 4;
    if (bytes.size() - pos < len) return false;
    out->values.emplace_back(bytes.substr(pos, len));
    pos += len;
  }
  if (std::all_of(out->present.begin(), out->present.end(), [](bool p) { return p; })) out->present.clear();
  return true;
}

int64_t FoldState::DeltaHorizonMicros() const {
  int64_t horizon = INT64_MIN;
  for (const ConsumedGeneration& g : generations) horizon = std::max(horizon, g.max_timestamp);
  return generations.empty() ? 0 : horizon;
}

std::vector<std::string> FoldState::ReferencedFiles() const {
  std::vector<std::string> files;
  for (const FactsSet& set : facts) files.insert(files.end(), set.files.begin(), set.files.end());
  files.insert(files.end(), row_index.begin(), row_index.end());
  files.insert(files.end(), row_index_updates.begin(), row_index_updates.end());
  return files;
}

std::string FoldStateToJson(const FoldState& state) {
  json generations = json::array();
  for (const ConsumedGeneration& g : state.generations) {
    generations.push_back({{"identity", g.identity}, {"max-timestamp", g.max_timestamp}});
  }
  json facts = json::array();
  for (const FactsSet& set : state.facts) {
    json f{{"form", set.form == FactsForm::kSSTable ? kSSTableForm : kEnvelopeForm},
           {"files", set.files},
           {"generations", set.generations},
           {"bytes", set.bytes}};
    if (!set.identities.empty()) f["identities"] = set.identities;
    facts.push_back(std::move(f));
  }
  json j{{"format", kFormat},
         {"generations", generations},
         {"facts", facts},
         {"row-index", state.row_index},
         {"row-count", state.row_count},
         {"folded-at", state.folded_at}};
  if (!state.row_index_updates.empty()) {
    j["row-index-updates"] = state.row_index_updates;
    j["row-index-update-count"] = state.row_index_update_count;
  }
  if (state.next_expiry != INT64_MAX) j["next-expiry"] = state.next_expiry;
  return j.dump(1);
}

Result<FoldState> FoldStateFromJson(const std::string& text, const std::string& path) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Status::Corruption(StrCat(path, ": not a CQLite fold state file"));
  try {
    int format = JsonInteger<int32_t>(j.at("format"));
    if (format < 1 || format > kFormat) {
      return Status::NotSupported(StrCat(path, ": fold state format ", j["format"].dump(), "; this CQLite reads 1 to ",
                                         kFormat));
    }
    FoldState state;
    for (const json& g : j.at("generations")) {
      state.generations.push_back({g.at("identity").get<std::string>(), JsonInteger<int64_t>(g.at("max-timestamp"))});
      // Format 1: each generation's facts in one file of its own.
      if (format == 1) state.facts.push_back({FactsForm::kEnvelope, {g.at("facts-file").get<std::string>()}, 1, 0});
    }
    if (format != 1) {
      for (const json& f : j.at("facts")) {
        FactsSet set{FactsForm::kEnvelope, f.at("files").get<std::vector<std::string>>(),
                     JsonInteger<int32_t>(f.at("generations")), JsonInteger<int64_t>(f.at("bytes"))};
        // Before format 4 every facts set was envelope files.
        std::string form = format < 4 ? kEnvelopeForm : f.at("form").get<std::string>();
        if (form == kSSTableForm) {
          set.form = FactsForm::kSSTable;
        } else if (form != kEnvelopeForm) {
          return Status::Corruption(StrCat(path, ": malformed fold state: facts of the unknown form \"", form, "\""));
        }
        if (f.contains("identities")) set.identities = f.at("identities").get<std::vector<std::string>>();
        if (set.files.empty() || set.generations < 1 || (set.form == FactsForm::kSSTable && set.generations != 1) ||
            (!set.identities.empty() && static_cast<int>(set.identities.size()) != set.generations)) {
          return Status::Corruption(StrCat(path, ": malformed fold state: a facts set without files or generations"));
        }
        state.facts.push_back(std::move(set));
      }
    }
    if (format < 3) {
      // One row index file, or none.
      std::string file = j.at("row-index").get<std::string>();
      if (!file.empty()) state.row_index.push_back(std::move(file));
    } else {
      state.row_index = j.at("row-index").get<std::vector<std::string>>();
    }
    if (j.contains("row-index-updates")) {
      state.row_index_updates = j["row-index-updates"].get<std::vector<std::string>>();
      state.row_index_update_count = JsonInteger<int64_t>(j.at("row-index-update-count"));
    }
    state.row_count = JsonInteger<int64_t>(j.at("row-count"));
    state.folded_at = JsonInteger<int64_t>(j.at("folded-at"));
    if (j.contains("next-expiry")) state.next_expiry = JsonInteger<int64_t>(j["next-expiry"]);
    return state;
  } catch (const json::exception& e) {
    return Status::Corruption(StrCat(path, ": malformed fold state: ", e.what()));
  }
}

std::vector<std::vector<size_t>> PlanFactsMerges(const std::vector<int64_t>& sizes, int fan_in) {
  const size_t limit = static_cast<size_t>(std::max(2, fan_in));
  // (size, index) of the sets there are, before and after each merge.
  std::vector<std::pair<int64_t, size_t>> sets;
  for (size_t i = 0; i < sizes.size(); ++i) sets.emplace_back(sizes[i], i);
  size_t next_index = sizes.size();
  std::vector<std::vector<size_t>> merges;
  while (sets.size() > limit) {
    std::stable_sort(sets.begin(), sets.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    // The fewest smallest sets that bring the count down to the fan-in, then
    // each next one no larger than those taken together: absorbing sets of
    // similar size leaves room for the runs to come, so that a set is merged
    // again only when sets of its size have accumulated, as a binary counter
    // carries (every byte is merged about log(number of runs) times).
    size_t take = std::min(limit, sets.size() - limit + 1);
    int64_t taken = 0;
    for (size_t i = 0; i < take; ++i) taken += sets[i].first;
    while (take < limit && take < sets.size() && sets[take].first <= taken) taken += sets[take++].first;
    std::vector<size_t> merge;
    int64_t bytes = 0;
    for (size_t i = 0; i < take; ++i) {
      merge.push_back(sets[i].second);
      bytes += sets[i].first;
    }
    sets.erase(sets.begin(), sets.begin() + static_cast<std::ptrdiff_t>(take));
    sets.emplace_back(bytes, next_index++);
    merges.push_back(std::move(merge));
  }
  return merges;
}

RowIndexWriter::RowIndexWriter(FileSystem& fs, std::function<std::string(int)> file_path, int64_t rows_per_file)
    : fs_(fs),
      file_path_(std::move(file_path)),
      rows_per_file_(std::max<int64_t>(rows_per_file, 1)),
      batch_(RowIndexSchema()) {}

RowIndexWriter::~RowIndexWriter() = default;

Status RowIndexWriter::Flush() {
  if (batch_.num_rows() == 0) return Status::OK();
  RETURN_IF_ERROR(writer_->WriteBatch(batch_));
  batch_.Clear();
  return Status::OK();
}

Status RowIndexWriter::Add(std::string_view partition_key, const FoldClustering& clustering,
                           std::string_view data_file, int64_t position, uint64_t hash, int64_t expires) {
  EncodeRowIndexClustering(clustering, &clustering_);
  return AddEncoded(partition_key, clustering_, data_file, position, hash, expires);
}

Status RowIndexWriter::AddEncoded(std::string_view partition_key, std::string_view clustering,
                                  std::string_view data_file, int64_t position, uint64_t hash, int64_t expires) {
  if (writer_ && rows_in_file_ >= rows_per_file_) {
    RETURN_IF_ERROR(Flush());
    RETURN_IF_ERROR(writer_->Close().status());
    writer_.reset();
  }
  if (!writer_) {
    parquet::WriterOptions options;
    options.compression = parquet::CompressionCodec::kZstd;
    options.row_group_rows = kIndexRowGroupRows;
    options.max_statistics_size = 0;
    // Entries come in fold order: a data file's positions mostly count up by
    // one, and a clustering shares most of its bytes with the one before.
    options.column_encodings = {{"position", parquet::Encoding::kDeltaBinaryPacked},
                                {"clustering", parquet::Encoding::kDeltaByteArray},
                                {"expires", parquet::Encoding::kDeltaBinaryPacked}};
    files_.push_back(file_path_(static_cast<int>(files_.size())));
    ASSIGN_OR_RETURN(writer_, parquet::ParquetWriter::Open(fs_, files_.back(), RowIndexSchema(), options));
    rows_in_file_ = 0;
  }
  batch_.column(0).AppendBytes(partition_key);
  batch_.column(1).AppendBytes(clustering);
  batch_.column(2).AppendBytes(data_file);
  batch_.column(3).AppendInt64(position);
  batch_.column(4).AppendInt64(static_cast<int64_t>(hash));
  batch_.column(5).AppendInt64(expires);
  batch_.EndRows(1);
  ++rows_in_file_;
  ++count_;
  return batch_.num_rows() >= kIndexRowGroupRows ? Flush() : Status::OK();
}

Result<std::vector<std::string>> RowIndexWriter::Close() {
  if (writer_) {
    RETURN_IF_ERROR(Flush());
    RETURN_IF_ERROR(writer_->Close().status());
    writer_.reset();
  }
  return files_;
}

Result<std::unique_ptr<RowIndexReader>> RowIndexReader::Open(FileSystem& fs, std::vector<std::string> files) {
  std::unique_ptr<RowIndexReader> reader(new RowIndexReader(fs, std::move(files)));
  if (!reader->files_.empty()) RETURN_IF_ERROR(reader->OpenFile(0));
  return reader;
}

Result<std::unique_ptr<RowIndexReader>> RowIndexReader::OpenFromToken(FileSystem& fs, std::vector<std::string> files,
                                                                      int64_t token) {
  ASSIGN_OR_RETURN(std::unique_ptr<RowIndexReader> reader, Open(fs, std::move(files)));
  if (token == INT64_MIN || reader->files_.empty()) return reader;
  std::vector<int64_t> firsts;  // each file's first row group, counted across the files
  int64_t total = 0;
  for (size_t i = 0; i < reader->files_.size(); ++i) {
    RETURN_IF_ERROR(reader->OpenFile(i));
    firsts.push_back(total);
    total += reader->reader_->num_row_groups();
  }
  // Opens the file of row group `group` (across the files) at that group.
  auto seek = [&](int64_t group) -> Status {
    size_t file = static_cast<size_t>(std::upper_bound(firsts.begin(), firsts.end(), group) - firsts.begin()) - 1;
    if (file != reader->file_) RETURN_IF_ERROR(reader->OpenFile(file));
    reader->next_group_ = static_cast<int>(group - firsts[file]);
    return Status::OK();
  };
  // Tokens are spread evenly over the ring, and so, nearly, over the row
  // groups: the guess is the group at the token's share of the ring, and a
  // group whose first entry is past the token sends the search back one.
  const long double place = (static_cast<long double>(token) - static_cast<long double>(INT64_MIN)) / 18446744073709551616.0L;
  int64_t group = std::min<int64_t>(total - 1, static_cast<int64_t>(place * static_cast<long double>(total)));
  for (; group > 0; --group) {
    RETURN_IF_ERROR(seek(group));
    parquet::FlatColumn keys;
    RETURN_IF_ERROR(reader->reader_->ReadFlatColumn(reader->next_group_, 0, &keys));
    // Strictly before: the entries of a partition at the token may begin
    // in the group before.
    if (keys.size() == 0 || Murmur3Token(keys.Bytes(0)) < token) break;
  }
  RETURN_IF_ERROR(seek(group));
  return reader;
}

Status RowIndexReader::OpenFile(size_t index) {
  reader_.reset();  // one footer at a time
  const std::string& path = files_[index];
  ASSIGN_OR_RETURN(reader_, parquet::ParquetReader::Open(fs_, path));
  const std::vector<parquet::Field>& fields = reader_->schema().fields;
  const std::vector<parquet::Field> expected = RowIndexSchema().fields;
  const bool without_expiry = fields.size() == kColumnsWithoutExpiry &&
                              std::equal(fields.begin(), fields.end(), expected.begin());
  if (!(fields == expected) && !without_expiry) {
    return Status::Corruption(StrCat(path, ": not a CQLite row index (unexpected schema)"));
  }
  file_ = index;
  next_group_ = 0;
  rows_ = 0;
  next_row_ = 0;
  return Status::OK();
}

Result<bool> RowIndexReader::Next(RowIndexEntry* entry) {
  EntryView view;
  ASSIGN_OR_RETURN(bool more, NextView(&view));
  if (!more) return false;
  entry->partition_key = view.partition_key;
  if (!DecodeRowIndexClustering(view.clustering, &entry->clustering)) {
    return Status::Corruption(StrCat(files_[file_], ": malformed clustering in row ", next_row_ - 1, " of row group ",
                                     next_group_ - 1));
  }
  entry->data_file = view.data_file;
  entry->position = view.position;
  entry->hash = view.hash;
  entry->expires = view.expires;
  return true;
}

Result<bool> RowIndexReader::FillGroup(const KeyFilter* wanted) {
  if (!reader_ || stopped_) return false;
  while (next_row_ >= rows_) {
    if (next_group_ >= reader_->num_row_groups()) {
      if (file_ + 1 >= files_.size()) return false;
      RETURN_IF_ERROR(OpenFile(file_ + 1));
      continue;
    }
    const int group = next_group_++;
    columns_.resize(reader_->schema().fields.size());
    RETURN_IF_ERROR(reader_->ReadFlatColumn(group, 0, &columns_[0]));
    rows_ = 0;
    next_row_ = 0;
    if (wanted) {
      Wanted verdict = (*wanted)(columns_[0]);
      if (verdict == Wanted::kNoneFromHere) {
        stopped_ = true;
        return false;
      }
      if (verdict == Wanted::kNo) continue;
    }
    for (size_t c = 1; c < columns_.size(); ++c) {
      RETURN_IF_ERROR(reader_->ReadFlatColumn(group, static_cast<int>(c), &columns_[c]));
    }
    rows_ = columns_[0].size();
  }
  return true;
}

Result<bool> RowIndexReader::NextView(EntryView* entry) {
  ASSIGN_OR_RETURN(bool more, FillGroup());
  if (!more) return false;
  size_t r = next_row_++;
  entry->partition_key = columns_[0].Bytes(r);
  entry->clustering = columns_[1].Bytes(r);
  entry->data_file = columns_[2].Bytes(r);
  entry->position = columns_[3].ints[r];
  entry->hash = static_cast<uint64_t>(columns_[4].ints[r]);
  entry->expires = columns_.size() > kColumnsWithoutExpiry ? columns_[5].ints[r] : kExpiryUnknown;
  return true;
}

Result<bool> RowIndexReader::NextEntries(EntryColumns* entries) {
  return NextEntries(entries, nullptr);
}

Result<bool> RowIndexReader::NextEntries(EntryColumns* entries, const KeyFilter& wanted) {
  ASSIGN_OR_RETURN(bool more, FillGroup(wanted ? &wanted : nullptr));
  if (!more) return false;
  entries->partition_key = &columns_[0];
  entries->clustering = &columns_[1];
  entries->data_file = &columns_[2];
  entries->position = &columns_[3];
  entries->hash = &columns_[4];
  entries->expires = columns_.size() > kColumnsWithoutExpiry ? &columns_[5] : nullptr;
  entries->begin = next_row_;
  entries->end = rows_;
  next_row_ = rows_;
  return true;
}

}  // namespace cqlite::materialize
