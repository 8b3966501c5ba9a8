// Reads envelope files back into the fold (docs/formats/envelope.md): our own
// files with every fact they keep, and files in the Rust CQLite envelope v1
// schema with the losses that schema implies (no local deletion times, no TTL
// durations, collections as whole values with `replaced`, no element
// tombstones), filled in with the documented stand-ins.
//
// Each file becomes one FoldSource, so `cqlite select --from-envelopes` and
// `cqlite materialize` fold generations exported earlier exactly as they fold
// SSTables. Our own files are written partition by partition in token order,
// so they are streamed: one Parquet row group at a time, a partition handed
// on when the next one starts (possibly in a later row group); memory is a
// row group's records plus one partition, whatever the file's size, and a
// file found out of order is a Corruption error naming the file and the
// partition. v1 files from other writers need not be sorted: they are read
// whole when opened and their partitions sorted into token order.
//
// Errors name the file (and the column where one is at fault): not a Parquet
// file, no envelope version in the footer, an unknown version, a schema that
// does not match the table, a table column colliding with the prefix.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cassandra/table_schema.h"
#include "cassandra/token.h"
#include "fold/table_fold.h"
#include "io/file_system.h"
#include "parquet/value.h"

namespace cqlite::envelope {

struct ReadOptions {
  // A CQL file with the table (and its types); required for v1 files, which
  // carry no schema. Overrides the schema stored in our files.
  std::string schema_file;
  // The prefix of v1 files (ours record theirs in the footer); empty = "__".
  std::string prefix;
  // Stream our own files (see above); false reads them whole, as v1 files
  // are, which tests compare the streamed read with.
  bool stream_own_files = true;
};

// What the first file of a chain says of it (our files; empty for v1 files).
struct ChainFooter {
  std::string source;  // the Data.db file name, or a merged file's sources
  std::string prefix;
  std::string keyspace, table, table_id;
  int64_t generations = 1;  // how many it holds: more than 1 when merged
};

struct EnvelopeInputs {
  std::shared_ptr<const TableSchema> schema;
  // From our files' footers; Murmur3 for v1 files (Cassandra's default).
  std::optional<Partitioner> partitioner;
  // One per file (or chain), in the order given; each is an EnvelopeSource.
  std::vector<std::unique_ptr<FoldSource>> sources;
  std::vector<ChainFooter> footers;  // likewise
};

// The source OpenEnvelopeFiles makes of each file, with what it holds in
// memory (for tests and diagnostics).
class EnvelopeSource : public FoldSource {
 public:
  // Read a row group at a time (our files with a known partitioner), rather
  // than whole when opened.
  virtual bool streaming() const = 0;
  // The most decoded records whose content the source has held at once: the
  // largest row group when streaming, every record of the file otherwise.
  virtual int64_t max_records_held() const = 0;
};

// Opens every file (all of one table) as a fold source.
Result<EnvelopeInputs> OpenEnvelopeFiles(FileSystem& fs, const std::vector<std::string>& paths,
                                         const ReadOptions& options);

// Opens each chain as one fold source: our own files read one after another,
// as one sequence of records (a generation exported in several files, see
// ExportSSTableSegments, or the files of a merged facts file, see
// envelope_merge.h). Every file is checked when opened; a chain then holds
// one file's footer at a time, opening the next when the one before is read.
// A merged file's source repeats partitions (FoldSource::repeats_partitions).
Result<EnvelopeInputs> OpenEnvelopeChains(FileSystem& fs, const std::vector<std::vector<std::string>>& chains,
                                          const ReadOptions& options);

// The stand-in local deletion time of a v1 deletion or tombstone written at
// `timestamp_micros`: that time in seconds, which is when Cassandra would
// have set it had the write been made then (clamped to the valid range).
int64_t StandInLocalDeletionTime(int64_t timestamp_micros);

}  // namespace cqlite::envelope
