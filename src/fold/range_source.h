// A fold source restricted to the partitions whose Murmur3 tokens lie in a
// range of the ring, so that several folds, each over its own range of the
// same generations, share a table's work (materialize --threads). Partitions
// before the range are read and passed over; the source ends at the first
// partition after it, since sources come in token order; a source whose
// first and last keys (FoldSource::key_span) lie outside the range is not
// read at all.
#pragma once

#include <memory>

#include "cassandra/token.h"
#include "fold/table_fold.h"

namespace cqlite {

// REQUIRES: `source` is of a table written by Murmur3Partitioner.
std::unique_ptr<FoldSource> RestrictToRange(std::unique_ptr<FoldSource> source, Murmur3Range range);
// The same over several ranges: partitions between them are passed over too.
std::unique_ptr<FoldSource> RestrictToRanges(std::unique_ptr<FoldSource> source, Murmur3RangeSet ranges);

}  // namespace cqlite
