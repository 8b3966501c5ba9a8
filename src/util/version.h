// CQLite's version, as its files and snapshots record it and `--version`
// prints it. 0.2.0: fold state format 4, Parquet page and footer checksums.
#pragma once

namespace cqlite {

inline constexpr char kCqliteVersion[] = "0.2.0";

}  // namespace cqlite
