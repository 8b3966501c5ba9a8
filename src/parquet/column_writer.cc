#include "parquet/column_writer.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "parquet/encoding.h"
#include "util/strings.h"

namespace cqlite::parquet {

namespace {

CodecKind CodecKindFor(CompressionCodec codec) {
  switch (codec) {
    case CompressionCodec::kSnappy:
      return CodecKind::kSnappy;
    case CompressionCodec::kZstd:
      return CodecKind::kZstd;
    default:
      return CodecKind::kNone;
  }
}

std::string DottedPath(const std::vector<std::string>& path) {
  std::string out;
  for (const std::string& p : path) out += (out.empty() ? "" : ".") + p;
  return out;
}

bool IsNaN(const Value& v) {
  if (v.kind() == Value::Kind::kFloat) return std::isnan(v.float_value());
  if (v.kind() == Value::Kind::kDouble) return std::isnan(v.double_value());
  return false;
}

// The spec asks for -0.0 as a zero minimum and +0.0 as a zero maximum, so that
// readers filtering on either zero find it.
void NormalizeZero(const Field& field, bool is_min, std::string* bytes) {
  if (field.physical_type == PhysicalType::kFloat) {
    float f;
    std::memcpy(&f, bytes->data(), sizeof f);
    if (f == 0.0f) {
      f = is_min ? -0.0f : 0.0f;
      std::memcpy(bytes->data(), &f, sizeof f);
    }
  } else if (field.physical_type == PhysicalType::kDouble) {
    double d;
    std::memcpy(&d, bytes->data(), sizeof d);
    if (d == 0.0) {
      d = is_min ? -0.0 : 0.0;
      std::memcpy(bytes->data(), &d, sizeof d);
    }
  }
}

// Values a chunk's dictionary is given before its hit rate is judged.
constexpr int64_t kDictionaryProbeValues = 8192;

uint64_t Mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

template <typename T>
T LoadWord(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

uint64_t HashKey(std::string_view key) {
  if (key.size() == 8) return Mix(LoadWord<uint64_t>(key.data()));
  if (key.size() == 4) return Mix(LoadWord<uint32_t>(key.data()));
  return std::hash<std::string_view>{}(key);
}

}  // namespace

LeafColumnWriter::LeafColumnWriter(const ColumnDescriptor& column, const WriterOptions& options)
    : column_(column),
      field_(*column.field),
      options_(options),
      codec_(&GetCodec(CodecKindFor(options.compression))),
      is_float_(field_.physical_type == PhysicalType::kFloat ||
                field_.physical_type == PhysicalType::kDouble),
      level_bits_(static_cast<size_t>(BitWidth(column.max_rep_level) + BitWidth(column.max_def_level))),
      use_dictionary_(options.enable_dictionary && field_.physical_type != PhysicalType::kBoolean) {
  metrics_.field_id = field_.field_id;
  metrics_.path = column.path;
  fixed_width_key_ = field_.physical_type == PhysicalType::kInt32 || field_.physical_type == PhysicalType::kInt64 ||
                     field_.physical_type == PhysicalType::kFloat || field_.physical_type == PhysicalType::kDouble ||
                     (field_.physical_type == PhysicalType::kFixedLenByteArray && field_.type_length <= 8);
  if constexpr (std::endian::native == std::endian::little) {
    const bool is_unsigned = field_.logical_type.kind == LogicalType::kInteger && !field_.logical_type.is_signed;
    const bool is_decimal = field_.logical_type.kind == LogicalType::kDecimal;
    switch (field_.physical_type) {
      case PhysicalType::kInt32:
        if (!is_unsigned) order_ = BoundsOrder::kInt32;
        break;
      case PhysicalType::kInt64:
        if (!is_unsigned) order_ = BoundsOrder::kInt64;
        break;
      case PhysicalType::kFloat:
        order_ = BoundsOrder::kFloat;
        break;
      case PhysicalType::kDouble:
        order_ = BoundsOrder::kDouble;
        break;
      case PhysicalType::kByteArray:
      case PhysicalType::kFixedLenByteArray:
        if (!is_decimal) order_ = BoundsOrder::kBytes;
        break;
      default:
        break;
    }
  }
}

namespace {

template <typename T>
int CompareLoaded(std::string_view a, std::string_view b) {
  T x, y;
  std::memcpy(&x, a.data(), sizeof x);
  std::memcpy(&y, b.data(), sizeof y);
  return x < y ? -1 : (y < x ? 1 : 0);
}

}  // namespace

int LeafColumnWriter::CompareBounds(std::string_view a, std::string_view b) const {
  switch (order_) {
    case BoundsOrder::kInt32:
      return CompareLoaded<int32_t>(a, b);
    case BoundsOrder::kInt64:
      return CompareLoaded<int64_t>(a, b);
    case BoundsOrder::kFloat:
      return CompareLoaded<float>(a, b);
    case BoundsOrder::kDouble:
      return CompareLoaded<double>(a, b);
    case BoundsOrder::kBytes: {
      int c = a.compare(b);  // unsigned bytewise, then shorter first
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case BoundsOrder::kOther:
      break;
  }
  return CompareStatistics(field_, a, b);
}

void LeafColumnWriter::MergeChunkBounds(ColumnMetrics* metrics) const {
  if (!chunk_has_bounds_) return;
  if (!metrics->lower_bound || CompareStatistics(field_, chunk_min_, *metrics->lower_bound) < 0) {
    metrics->lower_bound = chunk_min_;
  }
  if (!metrics->upper_bound || CompareStatistics(field_, chunk_max_, *metrics->upper_bound) > 0) {
    metrics->upper_bound = chunk_max_;
  }
}

void LeafColumnWriter::Add(int rep_level, int def_level, const Value* value) {
  rep_levels_.push_back(static_cast<uint32_t>(rep_level));
  def_levels_.push_back(static_cast<uint32_t>(def_level));
  ++chunk_num_values_;
  ++metrics_.value_count;
  if (value == nullptr) {
    ++chunk_null_count_;
    ++metrics_.null_count;
    return;
  }
  ++page_values_;
  // The value's PLAIN bytes without a length prefix: also its statistics bytes.
  std::string_view key;
  char fixed[8];
  const PhysicalType type = field_.physical_type;
  auto load = [&](const auto& v) {
    std::memcpy(fixed, &v, sizeof v);
    key = std::string_view(fixed, sizeof v);
  };
  if (type == PhysicalType::kByteArray || type == PhysicalType::kFixedLenByteArray) {
    key = value->bytes();
  } else if (type == PhysicalType::kBoolean) {
    fixed[0] = value->bool_value() ? 1 : 0;
    key = std::string_view(fixed, 1);
  } else if (std::endian::native != std::endian::little) {
    key_scratch_.clear();
    AppendPlain(field_, *value, &key_scratch_);
    key = key_scratch_;
  } else if (type == PhysicalType::kInt32) {
    load(value->int32_value());
  } else if (type == PhysicalType::kInt64) {
    load(value->int64_value());
  } else if (type == PhysicalType::kFloat) {
    load(value->float_value());
  } else {
    load(value->double_value());
  }
  if (is_float_ && IsNaN(*value)) {
    ++metrics_.nan_count;
  } else {
    UpdateBounds(key);
  }
  if (type == PhysicalType::kBoolean) {
    bool_values_.push_back(value->bool_value());
  } else if (use_dictionary_) {
    indices_.push_back(DictionaryIndex(key, *value));
  } else if (type == PhysicalType::kByteArray) {
    AppendPlain(field_, *value, &plain_values_);
  } else {
    plain_values_.append(key);  // PLAIN bytes of the other types
  }
}

uint32_t LeafColumnWriter::DictionaryIndex(std::string_view key, const Value& value) {
  const uint64_t hash = HashKey(key);
  // Fixed-width keys of up to 8 bytes are their own tag, so a probe reads the
  // slot only; other keys are tagged with their hash and compared in full.
  uint64_t tag = hash;
  if (fixed_width_key_) {
    tag = 0;
    std::memcpy(&tag, key.data(), key.size());
  }
  size_t mask = dictionary_slots_.size() - 1;
  if (!dictionary_slots_.empty()) {
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      const DictionarySlot& slot = dictionary_slots_[i];
      if (slot.index_plus_one == 0) break;
      if (slot.tag != tag) continue;
      if (fixed_width_key_) return slot.index_plus_one - 1;
      const DictionaryEntry& e = dictionary_[slot.index_plus_one - 1];
      if (e.size == key.size() && std::memcmp(dictionary_plain_.data() + e.offset, key.data(), key.size()) == 0) {
        return slot.index_plus_one - 1;
      }
    }
  }
  // New: add it, growing the table to keep it at most half full.
  uint32_t index = static_cast<uint32_t>(dictionary_.size());
  AppendPlain(field_, value, &dictionary_plain_);
  dictionary_.push_back({hash, tag, static_cast<uint32_t>(dictionary_plain_.size() - key.size()),
                         static_cast<uint32_t>(key.size())});
  auto place = [&](const DictionaryEntry& e, uint32_t j) {
    size_t i = e.hash & mask;
    while (dictionary_slots_[i].index_plus_one != 0) i = (i + 1) & mask;
    dictionary_slots_[i] = {e.tag, j + 1};
  };
  if (dictionary_.size() * 2 > dictionary_slots_.size()) {
    dictionary_slots_.assign(std::max<size_t>(64, dictionary_slots_.size() * 2), DictionarySlot{});
    mask = dictionary_slots_.size() - 1;
    for (uint32_t j = 0; j < dictionary_.size(); ++j) place(dictionary_[j], j);
  } else {
    place(dictionary_.back(), index);
  }
  return index;
}

void LeafColumnWriter::ClearDictionary() {
  dictionary_.clear();
  dictionary_slots_.clear();
  dictionary_plain_.clear();
}

void LeafColumnWriter::UpdateBounds(std::string_view bytes) {
  if (!chunk_has_bounds_) {
    chunk_min_ = chunk_max_ = bytes;
    chunk_has_bounds_ = true;
  } else if (CompareBounds(bytes, chunk_min_) < 0) {
    chunk_min_ = bytes;
  } else if (CompareBounds(bytes, chunk_max_) > 0) {
    chunk_max_ = bytes;
  }
}

size_t LeafColumnWriter::OpenPageBytes() const {
  size_t open = rep_levels_.size() * level_bits_ / 8 + plain_values_.size() + bool_values_.size() / 8;
  if (!indices_.empty()) {
    size_t width = std::max(1, static_cast<int>(std::bit_width(static_cast<uint32_t>(dictionary_.size()))));
    open += indices_.size() * width / 8;
  }
  return open;
}

size_t LeafColumnWriter::BufferedBytes() const {
  return pages_bytes_ + OpenPageBytes() + (use_dictionary_ ? dictionary_plain_.size() : 0);
}

Status LeafColumnWriter::EndRecord(size_t* buffered) {
  size_t open = OpenPageBytes();
  if (open >= options_.page_size) {
    RETURN_IF_ERROR(FinishPage());
    open = 0;
  }
  // High-cardinality columns gain nothing from a dictionary: stop building it
  // once most values seen in this chunk have been new (or it outgrows its limit).
  const int64_t chunk_values = chunk_num_values_ - chunk_null_count_;
  if (use_dictionary_ &&
      (dictionary_plain_.size() > options_.dictionary_page_size_limit ||
       (chunk_values >= kDictionaryProbeValues && static_cast<int64_t>(dictionary_.size()) * 2 > chunk_values))) {
    // Pages written so far keep the dictionary; the rest of the chunk is PLAIN.
    RETURN_IF_ERROR(FinishPage());
    use_dictionary_ = false;
    open = 0;
  }
  *buffered += pages_bytes_ + open + (use_dictionary_ ? dictionary_plain_.size() : 0);
  return Status::OK();
}

Status LeafColumnWriter::FinishPage() {
  if (def_levels_.empty()) return Status::OK();
  std::string body;
  auto append_levels = [&](const std::vector<uint32_t>& levels, int max_level) {
    if (max_level == 0) return;
    std::string encoded;
    EncodeRleHybrid(levels, BitWidth(static_cast<uint32_t>(max_level)), &encoded);
    uint32_t size = static_cast<uint32_t>(encoded.size());
    char prefix[4];
    std::memcpy(prefix, &size, 4);
    body.append(prefix, 4);
    body.append(encoded);
  };
  append_levels(rep_levels_, column_.max_rep_level);
  append_levels(def_levels_, column_.max_def_level);
  Encoding encoding = Encoding::kPlain;
  if (use_dictionary_ && page_values_ > 0) {
    encoding = Encoding::kRleDictionary;
    int width = std::max(1, BitWidth(static_cast<uint32_t>(dictionary_.size() - 1)));
    body.push_back(static_cast<char>(width));
    EncodeRleHybrid(indices_, width, &body);
    dictionary_pages_written_ = true;
  } else if (field_.physical_type == PhysicalType::kBoolean) {
    AppendPlainBooleans(bool_values_, &body);
  } else {
    body.append(plain_values_);
  }
  int32_t num_values = static_cast<int32_t>(def_levels_.size());
  rep_levels_.clear();
  def_levels_.clear();
  plain_values_.clear();
  bool_values_.clear();
  indices_.clear();
  page_values_ = 0;
  return AddPage(PageType::kDataPage, std::move(body), num_values, encoding, false);
}

Status LeafColumnWriter::AddPage(PageType type, std::string body, int32_t num_values, Encoding encoding,
                                 bool front) {
  if (body.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return Status::InvalidArgument(StrCat("column ", DottedPath(column_.path), ": a page exceeds 2 GiB"));
  }
  std::string compressed;
  if (codec_->kind() == CodecKind::kNone) {
    compressed = body;
  } else {
    compressed.resize(codec_->MaxCompressedLength(body.size()));
    ASSIGN_OR_RETURN(
        size_t n, codec_->Compress(
                      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(body.data()), body.size()),
                      std::span<uint8_t>(reinterpret_cast<uint8_t*>(compressed.data()), compressed.size())));
    compressed.resize(n);
  }
  PageHeader header;
  header.type = type;
  header.uncompressed_page_size = static_cast<int32_t>(body.size());
  header.compressed_page_size = static_cast<int32_t>(compressed.size());
  if (type == PageType::kDictionaryPage) {
    header.dictionary_page_header = DictionaryPageHeader{num_values, Encoding::kPlain, false};
  } else {
    header.data_page_header = DataPageHeader{num_values, encoding, Encoding::kRle, Encoding::kRle};
  }
  Page page;
  page.bytes = SerializePageHeader(header);
  page.uncompressed_size = static_cast<int64_t>(page.bytes.size() + body.size());
  page.bytes.append(compressed);
  page.encoding = encoding;
  pages_bytes_ += page.bytes.size();
  if (front) {
    pages_.insert(pages_.begin(), std::move(page));
  } else {
    pages_.push_back(std::move(page));
  }
  return Status::OK();
}

Status LeafColumnWriter::FlushChunk(WritableFile& file, int64_t* offset, ColumnChunk* chunk) {
  RETURN_IF_ERROR(FinishPage());
  bool has_dictionary = dictionary_pages_written_;
  if (has_dictionary) {
    RETURN_IF_ERROR(AddPage(PageType::kDictionaryPage, dictionary_plain_,
                            static_cast<int32_t>(dictionary_.size()), Encoding::kPlain, true));
  }
  ColumnMetaData m;
  m.type = field_.physical_type;
  m.path_in_schema = column_.path;
  m.codec = options_.compression;
  m.num_values = chunk_num_values_;
  int64_t start = *offset;
  bool has_plain_data = false;
  int dictionary_data_pages = 0, plain_data_pages = 0;
  for (size_t i = 0; i < pages_.size(); ++i) {
    const Page& page = pages_[i];
    bool is_dictionary = has_dictionary && i == 0;
    if (is_dictionary) {
      m.dictionary_page_offset = *offset;
    } else {
      if (m.data_page_offset == 0) m.data_page_offset = *offset;
      if (page.encoding == Encoding::kPlain) {
        has_plain_data = true;
        ++plain_data_pages;
      } else {
        ++dictionary_data_pages;
      }
    }
    RETURN_IF_ERROR(file.Append(page.bytes));
    *offset += static_cast<int64_t>(page.bytes.size());
    m.total_compressed_size += static_cast<int64_t>(page.bytes.size());
    m.total_uncompressed_size += page.uncompressed_size;
  }
  if (has_dictionary) {
    m.encodings = {Encoding::kPlain, Encoding::kRle, Encoding::kRleDictionary};
    m.encoding_stats.push_back({PageType::kDictionaryPage, Encoding::kPlain, 1});
  } else {
    m.encodings = {Encoding::kPlain, Encoding::kRle};
  }
  if (dictionary_data_pages > 0) {
    m.encoding_stats.push_back({PageType::kDataPage, Encoding::kRleDictionary, dictionary_data_pages});
  }
  if (has_plain_data) m.encoding_stats.push_back({PageType::kDataPage, Encoding::kPlain, plain_data_pages});
  MergeChunkBounds(&metrics_);
  Statistics stats;
  stats.null_count = chunk_null_count_;
  if (chunk_has_bounds_ && chunk_min_.size() <= options_.max_statistics_size &&
      chunk_max_.size() <= options_.max_statistics_size) {
    NormalizeZero(field_, true, &chunk_min_);
    NormalizeZero(field_, false, &chunk_max_);
    stats.min_value = chunk_min_;
    stats.max_value = chunk_max_;
  }
  m.statistics = std::move(stats);
  chunk->file_offset = start;
  chunk->meta_data = std::move(m);

  pages_.clear();
  pages_bytes_ = 0;
  ClearDictionary();
  dictionary_pages_written_ = false;
  use_dictionary_ = options_.enable_dictionary && field_.physical_type != PhysicalType::kBoolean;
  chunk_num_values_ = 0;
  chunk_null_count_ = 0;
  chunk_has_bounds_ = false;
  return Status::OK();
}

ColumnMetrics LeafColumnWriter::Metrics() const {
  ColumnMetrics m = metrics_;
  MergeChunkBounds(&m);
  if (m.lower_bound) NormalizeZero(field_, true, &*m.lower_bound);
  if (m.upper_bound) NormalizeZero(field_, false, &*m.upper_bound);
  return m;
}

}  // namespace cqlite::parquet
