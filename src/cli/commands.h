// The subcommands of `cqlite`, each registered on the CLI11 app with its
// options and run after parsing. Commands print results to stdout and
// one-line errors to stderr, and return the process exit code.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "io/file_system.h"
#include "util/status.h"

namespace cqlite {

using CommandRunner = std::function<int()>;

CommandRunner AddLsCommand(CLI::App& app);
CommandRunner AddDumpCommand(CLI::App& app);
CommandRunner AddSelectCommand(CLI::App& app);
CommandRunner AddDeltaExportCommand(CLI::App& app);
CommandRunner AddMaterializeCommand(CLI::App& app);
CommandRunner AddWatchCommand(CLI::App& app);
CommandRunner AddRingCommand(CLI::App& app);
CommandRunner AddMaintainCommand(CLI::App& app);
CommandRunner AddCommitCommand(CLI::App& app);
CommandRunner AddPlanCommand(CLI::App& app);

// The transform of every --now option: a time as seconds since the Unix
// epoch or in ISO-8601 (ParseInstantSeconds), handed on as seconds.
CLI::Validator InstantOption();
// The transform of options that take a span of time ("90m", "36h", "7d";
// ParseDurationSeconds), handed on as seconds, and of sizes ("64MiB";
// ParseByteSize), handed on as bytes.
CLI::Validator DurationOption();
CLI::Validator ByteSizeOption();
inline constexpr const char* kNowHelp =
    "When TTLs are evaluated: seconds since the Unix epoch or an ISO-8601 time such as 2027-01-01T08:30:00Z "
    "(default: now)";
inline constexpr const char* kTimeAsHelp =
    "What CQL time columns (also inside collections, tuples and user types) become: time, an Iceberg time in "
    "microseconds (default); long, the nanoseconds since midnight; string, as SELECT JSON prints a time "
    "(08:12:54.123456789). Engines without Iceberg times (Spark) read long and string. A table keeps what it was "
    "created with (table property cqlite.time-as): a later run without the option does too, one asking otherwise "
    "fails";

// `path` made absolute and normal (as given if the working directory is gone).
std::string AbsolutePath(const std::string& path);

// A --warehouse option as the pipeline names it: an s3://bucket/prefix URI
// as given (without a trailing '/'), else the absolute path.
std::string WarehousePath(const std::string& option);
// The file system a run with this warehouse (a WarehousePath) reads and
// writes through: the machine's for a local warehouse; for an s3:// one,
// S3 (configured from the environment, net/s3_file_system.h) for s3://
// paths and the machine's for the rest (the SSTables, a SQLite catalog).
// InvalidArgument when S3 has no credentials or a bad setting.
// `other_paths` (sources, a stage directory) may be s3:// too.
Result<std::shared_ptr<FileSystem>> WarehouseFileSystem(const std::string& warehouse,
                                                        const std::vector<std::string>& other_paths = {});
// The file system that reads `paths` (SSTables, their directories): the
// machine's, with S3 configured from the environment for s3:// ones.
Result<std::shared_ptr<FileSystem>> SourceFileSystem(const std::vector<std::string>& paths);
inline constexpr const char* kWarehouseHelp =
    "Where table files go: <warehouse>/<namespace>/<table>; a local directory, or s3://bucket/prefix on S3 or an "
    "S3-compatible store (endpoint from CQLITE_S3_ENDPOINT or AWS_ENDPOINT_URL, addressed path-style; region from "
    "AWS_REGION or AWS_DEFAULT_REGION, default us-east-1; credentials from AWS_ACCESS_KEY_ID, "
    "AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, else the profile AWS_PROFILE of ~/.aws/credentials; with an "
    "s3:// warehouse, give --catalog)";

// What a --catalog option names, for catalog::OpenCatalog: a PostgreSQL URI
// or a REST catalog (rest:...) as given, a SQLite file (a path or
// sqlite:<path>) as its absolute path; `<warehouse>/catalog.db` when the
// option is empty.
std::string CatalogAddress(const std::string& option, const std::string& warehouse);
// The name a SQL catalog's rows are kept under: a --catalog-name option, or
// "cqlite" when it is empty. A REST catalog server names its own catalog:
// the option given with one is an error.
Result<std::string> CatalogName(const std::string& option, const std::string& catalog_address);
inline constexpr const char* kCatalogNameHelp =
    "The catalog name a SQLite or PostgreSQL catalog keeps the table's rows under (readers must use the same; "
    "default cqlite); a REST catalog server names its own";
inline constexpr const char* kCatalogHelp =
    "The catalog: a SQLite file, as a path or sqlite:<path> (default: <warehouse>/catalog.db; created when absent), "
    "or a PostgreSQL database, as postgresql://[user[:password]@]host[:port]/dbname (the catalog tables are created "
    "in it when absent; what the URI leaves out comes from PGUSER, PGPASSWORD, ~/.pgpass, ... as for psql), or an "
    "Iceberg REST catalog server, as rest:http(s)://host[:port][/path][?warehouse=W][&scope=S] (OAuth2 client "
    "credentials from the environment variable CQLITE_REST_CREDENTIAL=<client id>:<secret>, exchanged at "
    "<path>/v1/oauth/tokens with scope S, default catalog; or a bearer token from CQLITE_REST_TOKEN; https "
    "servers are checked against the system's certificate authorities or those of the PEM file CQLITE_REST_CA_FILE; "
    "the server writes the metadata files of commits, the warehouse keeps the data)";

}  // namespace cqlite
