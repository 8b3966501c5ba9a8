#include "parquet/column_writer.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <type_traits>

#include "io/checksum.h"
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

// A hash of a byte string: 8-byte words folded by multiplication, the tail
// read as one overlapping word, then mixed.
uint64_t HashBytes(std::string_view s) {
  constexpr uint64_t kMul = 0x9e3779b97f4a7c15ULL;
  const char* p = s.data();
  const size_t n = s.size();
  uint64_t h = n * kMul;
  if (n >= 8) {
    const char* last = p + n - 8;
    for (; p < last; p += 8) {
      h = (h ^ LoadWord<uint64_t>(p)) * kMul;
      h ^= h >> 32;
    }
    h = (h ^ LoadWord<uint64_t>(last)) * kMul;
  } else if (n >= 4) {
    h ^= LoadWord<uint32_t>(p) | (static_cast<uint64_t>(LoadWord<uint32_t>(p + n - 4)) << 32);
  } else if (n > 0) {
    h ^= static_cast<uint64_t>(static_cast<uint8_t>(p[0])) |
         (static_cast<uint64_t>(static_cast<uint8_t>(p[n / 2])) << 8) |
         (static_cast<uint64_t>(static_cast<uint8_t>(p[n - 1])) << 16);
  }
  return Mix(h);
}

// Whether two byte strings of length n are equal; short ones (most dictionary
// keys) are compared word by word (the last word overlapping) instead of
// through memcmp.
bool SameBytes(const char* a, const char* b, size_t n) {
  if (n < 4) {
    return n == 0 || (a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1]);
  }
  if (n < 8) {
    return LoadWord<uint32_t>(a) == LoadWord<uint32_t>(b) &&
           LoadWord<uint32_t>(a + n - 4) == LoadWord<uint32_t>(b + n - 4);
  }
  if (n > 64) return std::memcmp(a, b, n) == 0;
  for (size_t i = 0; i + 8 < n; i += 8) {
    if (LoadWord<uint64_t>(a + i) != LoadWord<uint64_t>(b + i)) return false;
  }
  return LoadWord<uint64_t>(a + n - 8) == LoadWord<uint64_t>(b + n - 8);
}

template <typename T>
uint64_t FixedBits(T v) {
  static_assert(sizeof(T) <= 8);
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof v);
  return bits;
}

template <typename T>
bool IsNaNValue(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return v != v;
  } else {
    return false;
  }
}

}  // namespace

LeafColumnWriter::LeafColumnWriter(const ColumnDescriptor& column, const WriterOptions& options)
    : column_(column),
      field_(*column.field),
      options_(options),
      codec_(options.compression == CompressionCodec::kZstd && options.compression_level != 0
                 ? &ZstdCodecAtLevel(options.compression_level)
                 : &GetCodec(CodecKindFor(options.compression))),
      level_bits_(static_cast<size_t>(BitWidth(column.max_rep_level) + BitWidth(column.max_def_level))),
      use_dictionary_(false) {
  if (auto it = options.column_encodings.find(DottedPath(column.path)); it != options.column_encodings.end()) {
    value_encoding_ = it->second;  // ParquetWriter::Open checked that it fits the column
  }
  use_dictionary_ = UsesDictionary();
  metrics_.field_id = field_.field_id;
  metrics_.path = column.path;
  is_fixed_ = field_.physical_type == PhysicalType::kInt32 || field_.physical_type == PhysicalType::kInt64 ||
              field_.physical_type == PhysicalType::kFloat || field_.physical_type == PhysicalType::kDouble;
  if constexpr (std::endian::native == std::endian::little) {
    const bool is_unsigned =
        field_.logical_type.kind == LogicalType::kInteger && !field_.logical_type.is_signed;
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
  AddLevels(rep_level, def_level);
  if (value == nullptr) {
    AddNullValue();
    return;
  }
  switch (field_.physical_type) {
    case PhysicalType::kBoolean:
      AddBool(value->bool_value());
      return;
    case PhysicalType::kInt32:
      AddFixed(value->int32_value());
      return;
    case PhysicalType::kInt64:
      AddFixed(value->int64_value());
      return;
    case PhysicalType::kFloat:
      AddFixed(value->float_value());
      return;
    case PhysicalType::kDouble:
      AddFixed(value->double_value());
      return;
    default:
      AddBytes(value->bytes());
      return;
  }
}

template <typename T>
void LeafColumnWriter::AddFixed(T v) {
  ++page_values_;
  if (IsNaNValue(v)) ++nan_count_;
  if (use_dictionary_) {
    indices_.push_back(FixedDictionaryIndex(v));
    return;
  }
  if (!IsNaNValue(v)) UpdateFixedBounds(v);
  const size_t size = plain_values_.size();
  plain_values_.resize(size + sizeof v);
  std::memcpy(plain_values_.data() + size, &v, sizeof v);
}

void LeafColumnWriter::AddBytes(std::string_view v) {
  ++page_values_;
  if (use_dictionary_) {
    indices_.push_back(BytesDictionaryIndex(v));
    return;
  }
  UpdateBytesBounds(v);
  const size_t size = plain_values_.size();
  const bool prefixed = field_.physical_type == PhysicalType::kByteArray;
  plain_values_.resize(size + v.size() + (prefixed ? 4 : 0));
  char* out = plain_values_.data() + size;
  if (prefixed) {
    const uint32_t length = static_cast<uint32_t>(v.size());
    std::memcpy(out, &length, 4);
    out += 4;
  }
  if (!v.empty()) std::memcpy(out, v.data(), v.size());
}

void LeafColumnWriter::AddBool(bool v) {
  ++page_values_;
  const char byte = v ? 1 : 0;
  UpdateBytesBounds(std::string_view(&byte, 1));
  bool_values_.push_back(v);
}

template <typename T>
void LeafColumnWriter::UpdateFixedBounds(T v) {
  if (!chunk_has_bounds_) {
    chunk_min_.assign(reinterpret_cast<const char*>(&v), sizeof v);
    chunk_max_ = chunk_min_;
    chunk_has_bounds_ = true;
    return;
  }
  if (order_ == BoundsOrder::kOther) {  // unsigned integers
    UpdateBytesBounds(std::string_view(reinterpret_cast<const char*>(&v), sizeof v));
    return;
  }
  T min, max;
  std::memcpy(&min, chunk_min_.data(), sizeof min);
  std::memcpy(&max, chunk_max_.data(), sizeof max);
  if (v < min) {
    std::memcpy(chunk_min_.data(), &v, sizeof v);
  } else if (max < v) {
    std::memcpy(chunk_max_.data(), &v, sizeof v);
  }
}

void LeafColumnWriter::UpdateBytesBounds(std::string_view bytes) {
  if (!chunk_has_bounds_) {
    chunk_min_ = chunk_max_ = bytes;
    chunk_has_bounds_ = true;
  } else if (CompareBounds(bytes, chunk_min_) < 0) {
    chunk_min_ = bytes;
  } else if (CompareBounds(bytes, chunk_max_) > 0) {
    chunk_max_ = bytes;
  }
}

void LeafColumnWriter::AddedDictionaryEntry() {
  // Keep the table at most half full.
  const size_t mask = dictionary_slots_.size() - 1;
  auto place = [&](uint64_t hash, uint64_t tag, uint32_t index) {
    size_t i = hash & mask;
    while (dictionary_slots_[i].index_plus_one != 0) i = (i + 1) & mask;
    dictionary_slots_[i] = {tag, index + 1};
  };
  const bool fixed = is_fixed_;
  if (dictionary_.size() * 2 > dictionary_slots_.size()) {
    dictionary_slots_.assign(std::max<size_t>(64, dictionary_slots_.size() * 2), DictionarySlot{});
    const size_t new_mask = dictionary_slots_.size() - 1;
    for (uint32_t j = 0; j < dictionary_.size(); ++j) {
      const DictionaryEntry& e = dictionary_[j];
      uint64_t tag = e.hash;
      if (fixed) {
        tag = 0;
        std::memcpy(&tag, dictionary_plain_.data() + e.offset, e.size);
      }
      size_t i = e.hash & new_mask;
      while (dictionary_slots_[i].index_plus_one != 0) i = (i + 1) & new_mask;
      dictionary_slots_[i] = {tag, j + 1};
    }
  } else {
    const DictionaryEntry& e = dictionary_.back();
    uint64_t tag = e.hash;
    if (fixed) {
      tag = 0;
      std::memcpy(&tag, dictionary_plain_.data() + e.offset, e.size);
    }
    place(e.hash, tag, static_cast<uint32_t>(dictionary_.size() - 1));
  }
  index_width_ = std::max(1, static_cast<int>(std::bit_width(static_cast<uint32_t>(dictionary_.size()))));
  dictionary_grew_ = true;
}

template <typename T>
uint32_t LeafColumnWriter::FixedDictionaryIndex(T v) {
  const uint64_t bits = FixedBits(v);
  if (bits == last_tag_ && last_index_plus_one_ != 0) return last_index_plus_one_ - 1;
  const uint64_t hash = Mix(bits);
  if (!dictionary_slots_.empty()) {
    const size_t mask = dictionary_slots_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      const DictionarySlot& slot = dictionary_slots_[i];
      if (slot.index_plus_one == 0) break;
      if (slot.tag == bits) {
        last_tag_ = bits;
        last_index_plus_one_ = slot.index_plus_one;
        return slot.index_plus_one - 1;
      }
    }
  }
  const uint32_t index = static_cast<uint32_t>(dictionary_.size());
  const size_t offset = dictionary_plain_.size();
  dictionary_plain_.resize(offset + sizeof v);
  std::memcpy(dictionary_plain_.data() + offset, &v, sizeof v);
  dictionary_.push_back({hash, static_cast<uint32_t>(offset), static_cast<uint32_t>(sizeof v)});
  AddedDictionaryEntry();
  if (!IsNaNValue(v)) UpdateFixedBounds(v);
  last_tag_ = bits;
  last_index_plus_one_ = index + 1;
  return index;
}

uint32_t LeafColumnWriter::BytesDictionaryIndex(std::string_view v) {
  if (last_index_plus_one_ != 0) {
    const DictionaryEntry& e = dictionary_[last_index_plus_one_ - 1];
    if (e.size == v.size() && SameBytes(dictionary_plain_.data() + e.offset, v.data(), v.size())) {
      return last_index_plus_one_ - 1;
    }
  }
  const uint64_t hash = HashBytes(v);
  if (!dictionary_slots_.empty()) {
    const size_t mask = dictionary_slots_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      const DictionarySlot& slot = dictionary_slots_[i];
      if (slot.index_plus_one == 0) break;
      if (slot.tag != hash) continue;
      const DictionaryEntry& e = dictionary_[slot.index_plus_one - 1];
      if (e.size == v.size() && SameBytes(dictionary_plain_.data() + e.offset, v.data(), v.size())) {
        last_index_plus_one_ = slot.index_plus_one;
        return slot.index_plus_one - 1;
      }
    }
  }
  const uint32_t index = static_cast<uint32_t>(dictionary_.size());
  size_t offset = dictionary_plain_.size();
  const bool prefixed = field_.physical_type == PhysicalType::kByteArray;
  dictionary_plain_.resize(offset + v.size() + (prefixed ? 4 : 0));
  if (prefixed) {
    const uint32_t length = static_cast<uint32_t>(v.size());
    std::memcpy(dictionary_plain_.data() + offset, &length, 4);
    offset += 4;
  }
  if (!v.empty()) std::memcpy(dictionary_plain_.data() + offset, v.data(), v.size());
  dictionary_.push_back({hash, static_cast<uint32_t>(offset), static_cast<uint32_t>(v.size())});
  AddedDictionaryEntry();
  UpdateBytesBounds(v);
  last_index_plus_one_ = index + 1;
  return index;
}

void LeafColumnWriter::ClearDictionary() {
  dictionary_.clear();
  dictionary_slots_.clear();
  dictionary_plain_.clear();
  last_tag_ = 0;
  last_index_plus_one_ = 0;
  index_width_ = 1;
  dictionary_grew_ = false;
  check_at_levels_ = 0;
}

size_t LeafColumnWriter::BufferedBytes() const {
  return pages_bytes_ + OpenPageBytes() + (use_dictionary_ ? dictionary_plain_.size() : 0);
}

bool LeafColumnWriter::RecordEndNeedsWorkFull() {
  dictionary_grew_ = false;
  check_at_levels_ = 0;
  const size_t open = OpenPageBytes();
  if (open >= options_.page_size) return true;
  const int64_t chunk_values = chunk_num_values_ - chunk_null_count_;
  if (use_dictionary_ && (dictionary_plain_.size() > options_.dictionary_page_size_limit ||
                          (chunk_values >= kDictionaryProbeValues &&
                           static_cast<int64_t>(dictionary_.size()) * 2 > chunk_values))) {
    return true;
  }
  // Until the dictionary grows, the page fills no faster than this per level
  // (each level term rounds up by at most one byte; an index takes at most
  // 32 bits); PLAIN byte arrays have no bound and are checked every record.
  size_t per_level = level_bits_ / 8 + 1;
  if (use_dictionary_) {
    per_level += 5;
  } else if (field_.physical_type == PhysicalType::kBoolean) {
    per_level += 1;
  } else if (is_fixed_) {
    per_level += 8;
  } else {
    return false;
  }
  size_t levels = (options_.page_size - open) / per_level;
  // The hit rate is first judged when the chunk's values reach the probe count.
  if (use_dictionary_ && chunk_values < kDictionaryProbeValues) {
    levels = std::min(levels, static_cast<size_t>(kDictionaryProbeValues - chunk_values));
  }
  check_at_levels_ = page_levels_ + std::max<size_t>(levels, 1);
  return false;
}

Status LeafColumnWriter::EndRecordSlow() {
  if (OpenPageBytes() >= options_.page_size) RETURN_IF_ERROR(FinishPage());
  // High-cardinality columns gain nothing from a dictionary: stop building it
  // once most values seen in this chunk have been new (or it outgrows its limit).
  const int64_t chunk_values = chunk_num_values_ - chunk_null_count_;
  if (use_dictionary_ && (dictionary_plain_.size() > options_.dictionary_page_size_limit ||
                          (chunk_values >= kDictionaryProbeValues &&
                           static_cast<int64_t>(dictionary_.size()) * 2 > chunk_values))) {
    // Pages written so far keep the dictionary; the rest of the chunk is PLAIN.
    RETURN_IF_ERROR(FinishPage());
    use_dictionary_ = false;
  }
  return Status::OK();
}

Status LeafColumnWriter::EndRecord(size_t* buffered) {
  if (RecordEndNeedsWork()) RETURN_IF_ERROR(EndRecordSlow());
  *buffered += BufferedBytes();
  return Status::OK();
}

template <typename Append>
Status LeafColumnWriter::AddBatchRecords(const ColumnBatch& batch, BatchCursor* cursor, int64_t records,
                                         Append append) {
  const int16_t* def = batch.def_levels().data();
  const int16_t* rep = batch.rep_levels().data();
  const bool has_def = column_.max_def_level > 0;
  const bool has_rep = column_.max_rep_level > 0;
  const int16_t max_def = static_cast<int16_t>(column_.max_def_level);
  const size_t num_levels = batch.num_levels();
  size_t level = cursor->level;
  size_t value = cursor->value;
  for (int64_t r = 0; r < records; ++r) {
    do {
      const int16_t d = has_def ? def[level] : 0;
      AddLevels(has_rep ? rep[level] : 0, d);
      if (d == max_def) {
        append(value++);
      } else {
        AddNullValue();
      }
      ++level;
    } while (has_rep && level < num_levels && rep[level] != 0);
    if (RecordEndNeedsWork()) RETURN_IF_ERROR(EndRecordSlow());
  }
  cursor->level = level;
  cursor->value = value;
  return Status::OK();
}

Status LeafColumnWriter::AddBatch(const ColumnBatch& batch, BatchCursor* cursor, int64_t records) {
  switch (field_.physical_type) {
    case PhysicalType::kBoolean: {
      const uint8_t* v = batch.bools().data();
      return AddBatchRecords(batch, cursor, records, [&](size_t i) { AddBool(v[i] != 0); });
    }
    case PhysicalType::kInt32: {
      const int32_t* v = batch.int32s().data();
      return AddBatchRecords(batch, cursor, records, [&](size_t i) { AddFixed(v[i]); });
    }
    case PhysicalType::kInt64: {
      const int64_t* v = batch.int64s().data();
      return AddBatchRecords(batch, cursor, records, [&](size_t i) { AddFixed(v[i]); });
    }
    case PhysicalType::kFloat: {
      const float* v = batch.floats().data();
      return AddBatchRecords(batch, cursor, records, [&](size_t i) { AddFixed(v[i]); });
    }
    case PhysicalType::kDouble: {
      const double* v = batch.doubles().data();
      return AddBatchRecords(batch, cursor, records, [&](size_t i) { AddFixed(v[i]); });
    }
    default: {
      const char* bytes = batch.bytes().data();
      const uint64_t* offsets = batch.offsets().data();
      return AddBatchRecords(batch, cursor, records, [&](size_t i) {
        AddBytes(std::string_view(bytes + offsets[i], offsets[i + 1] - offsets[i]));
      });
    }
  }
}

Status LeafColumnWriter::FinishPage() {
  if (page_levels_ == 0) return Status::OK();
  std::string& body = page_body_;
  body.clear();
  auto append_levels = [&](const std::vector<uint16_t>& levels, int max_level) {
    if (max_level == 0) return;
    const size_t prefix_at = body.size();
    body.append(4, '\0');
    EncodeRleHybrid(levels, BitWidth(static_cast<uint32_t>(max_level)), &body);
    const uint32_t size = static_cast<uint32_t>(body.size() - prefix_at - 4);
    std::memcpy(body.data() + prefix_at, &size, 4);
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
  } else if (value_encoding_ != Encoding::kPlain) {
    encoding = value_encoding_;
    AppendDeltaValues(&body);
  } else {
    body.append(plain_values_);
  }
  const int32_t num_values = static_cast<int32_t>(page_levels_);
  rep_levels_.clear();
  def_levels_.clear();
  page_levels_ = 0;
  check_at_levels_ = 0;
  plain_values_.clear();
  bool_values_.clear();
  indices_.clear();
  page_values_ = 0;
  return AddPage(PageType::kDataPage, body, num_values, encoding, false);
}

void LeafColumnWriter::AppendDeltaValues(std::string* body) {
  const char* p = plain_values_.data();
  const size_t size = plain_values_.size();
  if (value_encoding_ == Encoding::kDeltaBinaryPacked) {
    if (field_.physical_type == PhysicalType::kInt32) {
      delta_int32s_.resize(size / 4);
      if (size > 0) std::memcpy(delta_int32s_.data(), p, size);
      EncodeDeltaBinaryPacked<int32_t>(delta_int32s_, body);
    } else {
      delta_int64s_.resize(size / 8);
      if (size > 0) std::memcpy(delta_int64s_.data(), p, size);
      EncodeDeltaBinaryPacked<int64_t>(delta_int64s_, body);
    }
    return;
  }
  delta_bytes_.clear();
  for (size_t at = 0; at < size;) {  // PLAIN byte arrays: a 4-byte length, then the bytes
    uint32_t length;
    std::memcpy(&length, p + at, 4);
    delta_bytes_.emplace_back(p + at + 4, length);
    at += 4 + length;
  }
  if (value_encoding_ == Encoding::kDeltaByteArray) {
    EncodeDeltaByteArray(delta_bytes_, body);
  } else {
    EncodeDeltaLengthByteArray(delta_bytes_, body);
  }
}

Status LeafColumnWriter::AddPage(PageType type, std::string_view body, int32_t num_values, Encoding encoding,
                                 bool front) {
  if (body.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return Status::InvalidArgument(StrCat("column ", DottedPath(column_.path), ": a page exceeds 2 GiB"));
  }
  std::string_view compressed = body;
  if (codec_->kind() != CodecKind::kNone) {
    compressed_.resize(codec_->MaxCompressedLength(body.size()));
    ASSIGN_OR_RETURN(
        size_t n,
        codec_->Compress(
            std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(body.data()), body.size()),
            std::span<uint8_t>(reinterpret_cast<uint8_t*>(compressed_.data()), compressed_.size())));
    compressed = std::string_view(compressed_.data(), n);
  }
  PageHeader header;
  header.type = type;
  header.uncompressed_page_size = static_cast<int32_t>(body.size());
  header.compressed_page_size = static_cast<int32_t>(compressed.size());
  header.crc = Crc32(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(compressed.data()), compressed.size()));
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
  std::map<Encoding, int> data_pages;  // by value encoding
  for (size_t i = 0; i < pages_.size(); ++i) {
    const Page& page = pages_[i];
    bool is_dictionary = has_dictionary && i == 0;
    if (is_dictionary) {
      m.dictionary_page_offset = *offset;
    } else {
      if (m.data_page_offset == 0) m.data_page_offset = *offset;
      ++data_pages[page.encoding];
    }
    RETURN_IF_ERROR(file.Append(page.bytes));
    *offset += static_cast<int64_t>(page.bytes.size());
    m.total_compressed_size += static_cast<int64_t>(page.bytes.size());
    m.total_uncompressed_size += page.uncompressed_size;
  }
  // Every encoding in the chunk: the levels' RLE, the dictionary page's
  // PLAIN, and each data page's.
  std::set<Encoding> encodings = {Encoding::kRle};
  if (has_dictionary) {
    encodings.insert(Encoding::kPlain);
    m.encoding_stats.push_back({PageType::kDictionaryPage, Encoding::kPlain, 1});
  }
  for (const auto& [encoding, pages] : data_pages) encodings.insert(encoding);
  if (data_pages.empty()) encodings.insert(value_encoding_);
  m.encodings.assign(encodings.begin(), encodings.end());
  // Dictionary pages first, as before, then the others.
  if (auto it = data_pages.find(Encoding::kRleDictionary); it != data_pages.end()) {
    m.encoding_stats.push_back({PageType::kDataPage, Encoding::kRleDictionary, it->second});
  }
  for (const auto& [encoding, pages] : data_pages) {
    if (encoding != Encoding::kRleDictionary) m.encoding_stats.push_back({PageType::kDataPage, encoding, pages});
  }
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

  metrics_.value_count += chunk_num_values_;
  metrics_.null_count += chunk_null_count_;
  pages_.clear();
  pages_bytes_ = 0;
  ClearDictionary();
  dictionary_pages_written_ = false;
  use_dictionary_ = UsesDictionary();
  chunk_num_values_ = 0;
  chunk_null_count_ = 0;
  chunk_has_bounds_ = false;
  return Status::OK();
}

ColumnMetrics LeafColumnWriter::Metrics() const {
  ColumnMetrics m = metrics_;
  m.value_count += chunk_num_values_;
  m.null_count += chunk_null_count_;
  m.nan_count = nan_count_;
  MergeChunkBounds(&m);
  if (m.lower_bound) NormalizeZero(field_, true, &*m.lower_bound);
  if (m.upper_bound) NormalizeZero(field_, false, &*m.upper_bound);
  return m;
}

}  // namespace cqlite::parquet
