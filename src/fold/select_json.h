// Renders folded rows the way Cassandra 5.0 answers `SELECT JSON * FROM t`
// (cql3.selection.Selection.rowToJson): one JSON object per row, columns in
// wildcard order (partition key, clustering, then static and regular
// columns each by name), values as AbstractType.toJSONString prints them,
// non-frozen collections and user types assembled from their live cells,
// counters as their totals. A partition without live rows but with live
// static data gives one row with null clustering and regular columns.
#pragma once

#include <string>
#include <vector>

#include "cassandra/table_schema.h"
#include "fold/fold_types.h"
#include "util/status.h"

namespace cqlite {

class SelectJsonRenderer {
 public:
  explicit SelectJsonRenderer(const TableSchema& schema);

  // Appends one line (without the newline) per result row of `partition`.
  Status Render(const FoldedPartition& partition, std::vector<std::string>* lines) const;

  // The partition key's column values, serialized, split from the stored key.
  Result<std::vector<std::string>> KeyComponents(std::string_view key) const;

 private:
  Result<std::string> RenderRow(const std::vector<std::string>& key, const FoldRow* static_row,
                                const FoldRow* row) const;
  Result<std::string> ColumnJson(int column, const FoldRow* row) const;

  const TableSchema& schema_;
  CqlTypePtr key_type_;
  std::vector<int> select_order_;          // schema column indexes
  std::vector<std::string> quoted_names_;  // per schema column: `"name": `
};

}  // namespace cqlite
