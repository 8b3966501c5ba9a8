// Facts written with an earlier schema of a table, read with its current one
// (ALTER TABLE between runs): the generations a fold state keeps as envelope
// files carry the schema they were written with, whose column indexes are
// not the current schema's. ProjectToSchema renumbers each row's columns by
// name, leaves out the columns the current schema no longer has, and the
// cells of a column dropped since and added again that were written before
// the drop, exactly as the SSTable reader maps a header's columns
// (sstable_source.cc).
#pragma once

#include <memory>

#include "cassandra/table_schema.h"
#include "fold/table_fold.h"

namespace cqlite {

// Whether facts written with `written_with` need ProjectToSchema to be read
// with `now` (their static and regular columns differ, or a column of both
// was dropped since).
bool NeedsProjection(const TableSchema& written_with, const TableSchema& now);

// `source` (written with `written_with`) as if written with `now`. Both
// schemas must outlive the result.
std::unique_ptr<FoldSource> ProjectToSchema(std::unique_ptr<FoldSource> source,
                                            std::shared_ptr<const TableSchema> written_with,
                                            std::shared_ptr<const TableSchema> now);

}  // namespace cqlite
