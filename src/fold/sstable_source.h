// Feeds one SSTable generation to the fold: pulls its partitions from the
// Data.db reader and copies each into a FoldPartition, a piece of a few
// dozen rows and markers at a time (small enough that the fold reads them
// while they are still in the cache), naming columns by their index in
// the table schema. Cells of dropped columns written before
// the drop are left out, as Cassandra's reader skips them.
#pragma once

#include <cstddef>
#include <memory>

#include "cassandra/sstable.h"
#include "cassandra/table_schema.h"
#include "fold/table_fold.h"

namespace cqlite {

inline constexpr size_t kSSTableItemsPerPiece = 64;

// `sstable` must already use `schema` (SSTable::UseSchema); both must outlive
// the source. A partition is handed on in pieces of at most
// `items_per_piece` rows and markers.
Result<std::unique_ptr<FoldSource>> OpenSSTableFoldSource(const SSTable& sstable, const TableSchema& schema,
                                                          size_t items_per_piece = kSSTableItemsPerPiece);

}  // namespace cqlite
