// Feeds one SSTable generation to the fold: pulls its partitions from the
// Data.db reader and copies each into a FoldPartition, naming columns by
// their index in the table schema. Cells of dropped columns written before
// the drop are left out, as Cassandra's reader skips them.
#pragma once

#include <memory>

#include "cassandra/sstable.h"
#include "cassandra/table_schema.h"
#include "fold/table_fold.h"

namespace cqlite {

// `sstable` must already use `schema` (SSTable::UseSchema); both must outlive
// the source.
Result<std::unique_ptr<FoldSource>> OpenSSTableFoldSource(const SSTable& sstable, const TableSchema& schema);

}  // namespace cqlite
