// How a job that runs a task per token range (a Spark job: docs/spark.md)
// splits the ring of a Murmur3 table: into ranges of about equal bytes of
// Data.db, each SSTable's bytes taken as spread evenly over the tokens from
// its first partition's to its last's (Murmur3 tokens are hashes, so a
// flushed or compacted SSTable's partitions are spread evenly over its
// span). Pure values.
#pragma once

#include <cstdint>
#include <vector>

#include "cassandra/token.h"

namespace cqlite {

// The tokens Murmur3 gives a key: every 64-bit value but INT64_MIN, which
// Cassandra keeps for the ring's minimum. A range set of all of them is not
// the "whole ring" of a table published whole, but the union of a job's parts.
inline constexpr int64_t kFirstMurmur3Token = INT64_MIN + 1;

// One SSTable: its partitions' tokens lie in [first, last].
struct TokenSpan {
  int64_t first = kFirstMurmur3Token;
  int64_t last = INT64_MAX;
  int64_t bytes = 0;
};

// Consecutive ranges covering kFirstMurmur3Token..INT64_MAX: `count` of
// them, or (count 0) as many as hold about `target_bytes` each (at least
// one), with cuts where the spans' bytes reach each range's share. Fewer
// when the bytes lie on fewer distinct tokens than ranges asked for.
std::vector<Murmur3Range> SplitRingByBytes(const std::vector<TokenSpan>& spans, int64_t target_bytes, int count);

}  // namespace cqlite
