// The hash the row index keeps of each row's Iceberg values (fold_state.h):
// 64 bits that equal values give in every run, so that a run tells changed
// rows from unchanged ones without reading the data files. A row's hash is
// that of its non-null top-level values, each after its field id: a column
// added to the table (null in every row written before) or a key column
// renamed changes no row's hash, so neither rewrites rows. RowHasher takes a
// row's values one at a time, with the tags and in the order HashRow walks a
// value tree, so that a row converted column by column (RowBatchConverter)
// hashes as its value tree does, and row indexes written by either stay
// comparable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "parquet/value.h"

namespace cqlite::materialize {

class RowHasher {
 public:
  void Null() { Tag(parquet::Value::Kind::kNull); }
  void Bool(bool v);
  void Int32(int32_t v);
  void Int64(int64_t v);
  void Float(float v);
  void Double(double v);
  void Bytes(std::string_view v);  // strings too
  // A struct of `fields` fields, a list of `elements` elements or a map of
  // `entries` entries (each a key, then a value), whose values come next.
  void Struct(size_t fields);
  void List(size_t elements);
  void Map(size_t entries);
  // The top-level field whose (non-null) value comes next.
  void Field(int32_t id) { Mix(kFieldTag ^ static_cast<uint32_t>(id)); }
  // A whole value tree.
  void Add(const parquet::Value& value);

  uint64_t hash() const { return state_; }

 private:
  static constexpr uint64_t kFieldTag = 0x5f1e1d0000000000ULL;
  void Tag(parquet::Value::Kind kind) { Mix(static_cast<uint64_t>(kind)); }
  void Mix(uint64_t v) {
    state_ ^= v + 0x9e3779b97f4a7c15ULL + (state_ << 6) + (state_ >> 2);
    state_ *= 0xff51afd7ed558ccdULL;
    state_ ^= state_ >> 33;
  }
  void MixBytes(std::string_view bytes);

  uint64_t state_ = 0x6a09e667f3bcc908ULL;
};

// The hash of a value tree: equal values hash equally across runs.
uint64_t HashValue(const parquet::Value& value);

// The hash of a row (a struct value) whose top-level fields have the ids
// `field_ids`, in order.
uint64_t HashRow(const parquet::Value& row, const std::vector<int32_t>& field_ids);

}  // namespace cqlite::materialize
