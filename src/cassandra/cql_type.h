// CQL data types as Cassandra describes them, parsed either from the
// AbstractType class names stored in an SSTable's serialization header
// ("org.apache.cassandra.db.marshal.ListType(...)") or from CQL text
// ("frozen<list<int>>"). Immutable once built; shared by pointer.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace cqlite {

enum class CqlKind {
  kAscii, kBigint, kBlob, kBoolean, kCounter, kDate, kDecimal, kDouble, kDuration,
  kFloat, kInet, kInt, kSmallint, kText, kTime, kTimestamp, kTimeuuid, kTinyint,
  kUuid, kVarint, kEmpty,
  kList, kSet, kMap, kTuple, kUdt, kVector,
  kComposite,  // CompositeType: a multi-column partition key
  kCustom,     // any other AbstractType subclass, kept by class name (opaque bytes)
};

struct CqlType;
using CqlTypePtr = std::shared_ptr<const CqlType>;

struct CqlType {
  CqlKind kind = CqlKind::kBlob;
  // Element types: list/set/vector: [element]; map: [key, value];
  // tuple/udt/composite: one per field.
  std::vector<CqlTypePtr> params;
  // Frozen collections/UDTs are stored as one cell; non-frozen ones as many.
  bool frozen = false;
  // A clustering column in DESC order (ReversedType).
  bool reversed = false;
  // UDT: keyspace, type name and field names (params holds field types).
  std::string udt_keyspace;
  std::string udt_name;
  std::vector<std::string> field_names;
  int vector_dimension = 0;
  // kCustom: the class name as written.
  std::string custom_class;

  // A non-frozen collection or UDT: stored as one cell per element.
  bool IsMultiCell() const;
  bool IsCollection() const { return kind == CqlKind::kList || kind == CqlKind::kSet || kind == CqlKind::kMap; }
  // The byte length of every value of this type when fixed
  // (AbstractType.valueLengthIfFixed), otherwise nullopt.
  std::optional<int> FixedValueLength() const;
  // The CQL spelling, e.g. "frozen<map<text, int>>".
  std::string ToCql() const;
};

// Parses an AbstractType class name with parameters, as written in the
// Statistics.db serialization header or the system_schema tables.
Result<CqlTypePtr> ParseMarshalType(std::string_view text);

}  // namespace cqlite
