// Finding SSTables on disk and opening one for a full sequential scan.
//
// A path may name a Data.db (or any component) file, a table directory
// (`<table>-<id>/`), a snapshot or backup folder inside one, a keyspace
// directory or a whole data directory; every SSTable below it is found,
// grouped by keyspace and table as the directory names say.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cassandra/data_reader.h"
#include "cassandra/envelope.h"
#include "cassandra/sstable_version.h"
#include "cassandra/statistics.h"
#include "io/file_system.h"

namespace cqlite {

// One SSTable generation: where its files are and what its name says.
struct SSTableLocation {
  std::string directory;
  SSTableFileName name;
  std::string keyspace;  // from the directory layout; empty if unknown
  std::string table;     // likewise
  std::string table_id;  // the hex id after '-' in the table directory name

  std::string ComponentPath(const std::string& component) const {
    return JoinPath(directory, name.prefix + component);
  }
  std::string DataPath() const { return ComponentPath("Data.db"); }
};

// Every SSTable at or below `path`, sorted by keyspace, table, then generation.
// NotFound if there is none.
Result<std::vector<SSTableLocation>> FindSSTables(FileSystem& fs, const std::string& path);

// The keyspace, table and id that a table directory's path names
// (`.../<keyspace>/<table>-<id>`), with an empty SSTable name: where a table
// lives when it has no SSTable. nullopt when `directory` is not so named.
std::optional<SSTableLocation> TableDirectoryLocation(const std::string& directory);

// The table directory that `directory` is, or holds as a snapshot
// (`<table-dir>/snapshots/<tag>`) or incremental backup (`<table-dir>/backups`);
// empty when it is none of these.
std::string OwningTableDirectory(const std::string& directory);

// Whether `directory` itself (not a subdirectory) holds an SSTable's Data.db.
bool HoldsOwnSSTables(FileSystem& fs, const std::string& directory);

// Orders generation ids as Cassandra numbers them: numeric ones by value
// (shorter first), others (UUID-based) by their text.
bool GenerationLess(const std::string& a, const std::string& b);

class SSTable;

// A pull-style scan of one SSTable's Data.db: one partition, or a piece of one, per call.
class SSTableScanner {
 public:
  // A partition a piece at a time (PartitionReader::StartNext, ReadItems);
  // errors name the file and byte offset.
  Result<bool> StartNext(EnvelopeConsumer& consumer) { return reader_.StartNext(consumer); }
  Result<bool> ReadItems(EnvelopeConsumer& consumer, size_t max_items) {
    return reader_.ReadItems(consumer, max_items);
  }
  Status SkipItems(EnvelopeConsumer& consumer) { return reader_.SkipItems(consumer); }

 private:
  friend class SSTable;
  SSTableScanner(std::unique_ptr<DataInput> in, const DataLayout& layout)
      : in_(std::move(in)), reader_(*in_, layout) {}

  std::unique_ptr<DataInput> in_;
  PartitionReader reader_;
};

class SSTable {
 public:
  // Reads TOC.txt (when present) and Statistics.db; checks that the components
  // a scan needs exist.
  static Result<std::unique_ptr<SSTable>> Open(FileSystem& fs, const SSTableLocation& location);

  const SSTableLocation& location() const { return location_; }
  const Statistics& statistics() const { return statistics_; }
  const SerializationHeader& header() const { return *statistics_.header; }
  const DataLayout& layout() const { return layout_; }
  // Components listed in TOC.txt (or found beside Data.db without one).
  const std::vector<std::string>& components() const { return components_; }
  // Size in bytes of Data.db on disk.
  uint64_t data_size() const { return data_size_; }

  // Murmur3, Random or ByteOrdered, from Statistics.db; nullopt for other partitioners
  // (OrderPreserving, Local, ...), whose order CQLite does not check.
  std::optional<cqlite::Partitioner> Partitioner() const;

  // Decodes with the table's schema from now on (see DataLayout::FromHeader).
  void UseSchema(const TableSchema& schema);

  // Reads Data.db from start to end, one envelope record per fact.
  Status Scan(EnvelopeConsumer& consumer) const;

  // The same scan, pulled partition by partition. The scanner refers to this
  // SSTable's layout: it must not outlive the SSTable, nor see UseSchema.
  Result<std::unique_ptr<SSTableScanner>> OpenScanner() const;

 private:
  SSTable(FileSystem& fs, SSTableLocation location) : fs_(fs), location_(std::move(location)) {}

  FileSystem& fs_;
  SSTableLocation location_;
  Statistics statistics_;
  DataLayout layout_;
  std::vector<std::string> components_;
  uint64_t data_size_ = 0;
};

}  // namespace cqlite
