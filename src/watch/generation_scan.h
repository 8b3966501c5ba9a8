// Which SSTable generations of a live Cassandra table directory are complete
// and may be read: what `cqlite watch` offers a materialize run.
//
// Cassandra writes a generation's components one by one and names the
// generations a flush or compaction adds and removes in a transaction log
// (`<version>_txn_<operation>_<uuid>.log`, lines such as
// `ADD:[<dir>/oa-5-big-,0,8][<checksum>]`, then `COMMIT:[...]` or
// `ABORT:[...]`; LogTransaction.java), which it deletes once the obsolete
// files are gone. A generation is complete when:
//   - its TOC.txt, Data.db and Statistics.db exist, and every component its
//     TOC.txt lists;
//   - no log that has neither committed nor aborted adds it (a flush or
//     compaction still writing it), and no aborted log adds it (left to be
//     deleted);
//   - no committed log removes it (a compaction input about to be deleted:
//     its output holds its facts);
//   - its name is not a temporary one (`tmp-`, `tmplink-`, as Cassandra 2.x
//     named files being written).
// Subdirectories (snapshots/, backups/) are not part of the live table.
//
// Pure functions over a FileSystem; safe to call from any thread.
#pragma once

#include <string>
#include <vector>

#include "io/file_system.h"
#include "util/status.h"

namespace cqlite::watch {

struct GenerationFiles {
  std::string prefix;               // "oa-5-big-"
  std::vector<std::string> files;   // every file name of the generation, sorted
};

struct TableDirectoryScan {
  std::vector<GenerationFiles> complete;  // in generation order
  // Generations present but not yet (or no more) readable, each as
  // "<prefix>: why", for logs.
  std::vector<std::string> held_back;
};

// What one transaction log says.
struct TransactionLog {
  std::vector<std::string> added;    // generation prefixes ("oa-5-big-")
  std::vector<std::string> removed;
  bool committed = false;
  bool aborted = false;
};

// Parses the text of a transaction log. Lines that are not records (a line
// cut short by a crash) are skipped: Cassandra syncs an ADD record before it
// creates the generation's first file.
TransactionLog ParseTransactionLog(std::string_view text);

// Whether `name` is a transaction log file name.
bool IsTransactionLogName(std::string_view name);

// Scans one table directory. IOError when the directory cannot be listed;
// files that vanish meanwhile (compaction deletes its inputs) are not errors.
Result<TableDirectoryScan> ScanTableDirectory(FileSystem& fs, const std::string& table_dir);

}  // namespace cqlite::watch
