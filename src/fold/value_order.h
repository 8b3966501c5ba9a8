// The order Cassandra sorts values in (AbstractType.compare) and clustering
// prefixes in (ClusteringComparator), which the fold needs to line up rows,
// range tombstone bounds and collection elements coming from different
// generations. Pure functions over serialized values; thread-safe.
#pragma once

#include <string_view>
#include <vector>

#include "cassandra/cql_type.h"
#include "cassandra/envelope.h"
#include "cassandra/table_schema.h"
#include "fold/fold_types.h"

namespace cqlite {

// AbstractType.compare for two values serialized as `type`: negative, zero or
// positive. Ignores `type.reversed` (the caller orders DESC columns). Values
// too short for their type compare by their bytes instead of failing.
int CompareValues(const CqlType& type, std::string_view a, std::string_view b);

// CompareValues for values of `type` without deciding the comparison again
// for each pair: `ComparisonFor(type)(type, a, b)` is `CompareValues(type, a, b)`.
using ValueComparison = int (*)(const CqlType& type, std::string_view a, std::string_view b);
ValueComparison ComparisonFor(const CqlType& type);

// The cell path order of a multi-cell column (ColumnMetadata.cellPathComparator):
// list cell ids as timeuuids, set elements and map keys by their type, user
// type fields by position.
int CompareCellPaths(const CqlType& column_type, std::string_view a, std::string_view b);

// ClusteringComparator.compare over clusterings and bounds of a table whose
// clustering columns have `types` (with `reversed` set for DESC columns): the
// common prefix value by value (null first), then by kind, a shorter bound
// sorting before or after the clusterings it is a prefix of. Each column's
// comparison is decided once, when the order is made.
class ClusteringOrder {
 public:
  explicit ClusteringOrder(std::vector<CqlTypePtr> types);
  // The order of the clustering columns of `table`.
  static ClusteringOrder OfTable(const TableSchema& table);

  int Compare(const FoldClustering& a, ClusteringKind a_kind, const FoldClustering& b,
              ClusteringKind b_kind) const;
  int CompareRows(const FoldClustering& a, const FoldClustering& b) const {
    return Compare(a, ClusteringKind::kClustering, b, ClusteringKind::kClustering);
  }

 private:
  struct Column {
    const CqlType* type;  // owned by types_
    ValueComparison compare;
    bool reversed;
  };
  std::vector<CqlTypePtr> types_;
  std::vector<Column> columns_;  // one per type
};

}  // namespace cqlite
