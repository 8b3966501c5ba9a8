// Record shredding (Dremel): one value tree of a schema node becomes entries
// of its leaf columns, each with a repetition and a definition level. Shared
// by ParquetWriter::WriteRow and RowBatch::AppendRow, which differ only in
// where the entries go. REQUIRES: the value fits the node (ValueFits).
#pragma once

#include <vector>

#include "parquet/schema.h"
#include "parquet/value.h"

namespace cqlite::parquet {

// Calls emit(leaf index, repetition level, definition level, value) for every
// leaf entry of `value`; the value pointer is null where the entry is absent.
template <typename Emit>
void ShredValue(const SchemaNode& node, const Value& value, int rep_level, Emit& emit) {
  auto absent = [&](int def_level) {
    for (int i = node.leaf_begin; i < node.leaf_end; ++i) emit(i, rep_level, def_level, nullptr);
  };
  if (value.is_null()) {
    absent(node.def_level - 1);
    return;
  }
  switch (node.field->kind) {
    case Field::Kind::kPrimitive:
      emit(node.leaf_begin, rep_level, node.def_level, &value);
      return;
    case Field::Kind::kStruct:
      for (size_t i = 0; i < node.children.size(); ++i) ShredValue(node.children[i], value.fields()[i], rep_level, emit);
      return;
    case Field::Kind::kList: {
      const std::vector<Value>& elements = value.elements();
      if (elements.empty()) {
        absent(node.def_level);  // the list exists, its repeated group does not
        return;
      }
      for (size_t i = 0; i < elements.size(); ++i) {
        ShredValue(node.children[0], elements[i], i == 0 ? rep_level : node.rep_level, emit);
      }
      return;
    }
    case Field::Kind::kMap: {
      if (value.map_size() == 0) {
        absent(node.def_level);
        return;
      }
      for (size_t i = 0; i < value.map_size(); ++i) {
        int rep = i == 0 ? rep_level : node.rep_level;
        ShredValue(node.children[0], value.map_key(i), rep, emit);
        ShredValue(node.children[1], value.map_value(i), rep, emit);
      }
      return;
    }
  }
}

}  // namespace cqlite::parquet
