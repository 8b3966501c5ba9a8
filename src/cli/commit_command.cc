// `cqlite commit --staged DIR...`: commits the token ranges that
// `cqlite materialize --token-range R --stage DIR` runs staged, one snapshot
// per table (src/materialize/staged.h); with --discard, removes their files.
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <memory>

#include "catalog/catalog.h"
#include "cli/commands.h"
#include "cli/report_json.h"
#include "materialize/staged.h"
#include "net/s3_file_system.h"
#include "util/json_writer.h"
#include "util/strings.h"

namespace cqlite {

namespace {

struct CommitCommandOptions {
  std::vector<std::string> staged;
  std::string warehouse = "warehouse";
  std::string catalog;
  std::string catalog_name;
  bool discard = false;
  bool json = false;
  bool quiet = false;
};

void PrintText(const std::vector<materialize::StagedTableReport>& reports, double seconds) {
  for (const auto& r : reports) {
    std::cout << r.namespace_name << "." << r.table_name << ": " << r.message << "\n";
    if (r.committed) {
      std::cout << "  generations: " << r.generations_consumed << " consumed; rows: " << r.rows_appended
                << " written, " << r.rows_deleted << " deleted; files: " << r.data_files << " data, "
                << r.delete_files << " position delete, " << r.bytes_written << " bytes\n  metadata: "
                << r.metadata_location << "\n";
    }
    if (r.runs_discarded) {
      std::cout << "  " << r.runs_discarded << " other run(s) discarded, " << r.files_removed << " file(s) removed\n";
    }
  }
  char elapsed[32];
  std::snprintf(elapsed, sizeof(elapsed), "%.1f", seconds);
  std::cout << reports.size() << " table(s); " << elapsed << " s\n";
}

void PrintJson(const std::vector<materialize::StagedTableReport>& reports, const std::string& catalog,
               double seconds) {
  PrintTablesJson<materialize::StagedTableReport>(reports, catalog, seconds,
                  [](JsonWriter& w, const materialize::StagedTableReport& r) {
    w.Key("namespace"); w.String(r.namespace_name);
    w.Key("table"); w.String(r.table_name);
    w.Key("committed"); w.Bool(r.committed);
    w.Key("already_committed"); w.Bool(r.already_committed);
    w.Key("snapshot_id"); if (r.committed) w.Int(r.snapshot_id); else w.Null();
    w.Key("metadata_location"); w.String(r.metadata_location);
    w.Key("parts_staged"); w.Int(r.parts_staged);
    w.Key("parts_changed"); w.Int(r.parts_changed);
    w.Key("generations_consumed"); w.Int(r.generations_consumed);
    w.Key("rows_written"); w.Int(r.rows_appended);
    w.Key("rows_deleted"); w.Int(r.rows_deleted);
    w.Key("data_files"); w.Int(r.data_files);
    w.Key("delete_files"); w.Int(r.delete_files);
    w.Key("bytes_written"); w.Int(r.bytes_written);
    w.Key("runs_discarded"); w.Int(r.runs_discarded);
    w.Key("files_removed"); w.Int(r.files_removed);
    w.Key("attempts"); w.Int(r.attempts);
    w.Key("message"); w.String(r.message);
  });
}

int Commit(const CommitCommandOptions& options) {
  auto start = std::chrono::steady_clock::now();
  auto fail = [](const Status& status) {
    std::cout.flush();
    std::cerr << "cqlite commit: " << status.ToString() << "\n";
    return 1;
  };
  std::string warehouse = WarehousePath(options.warehouse);
  const std::string catalog_address = CatalogAddress(options.catalog, warehouse);
  if (net::IsS3Uri(warehouse) && options.catalog.empty()) {
    return fail(Status::InvalidArgument(StrCat("--warehouse ", warehouse, ": an s3:// warehouse needs --catalog")));
  }
  const Result<std::string> catalog_name = CatalogName(options.catalog_name, catalog_address);
  if (!catalog_name.ok()) return fail(catalog_name.status());
  std::vector<std::string> stage_dirs;
  for (const std::string& dir : options.staged) stage_dirs.push_back(WarehousePath(dir));
  auto warehouse_fs = WarehouseFileSystem(warehouse, stage_dirs);
  if (!warehouse_fs.ok()) return fail(warehouse_fs.status().WithContext(StrCat("--warehouse ", warehouse)));
  FileSystem& fs = **warehouse_fs;
  auto catalog = catalog::OpenCatalog(catalog_address, *catalog_name, /*create_if_missing=*/true);
  if (!catalog.ok()) return fail(catalog.status());

  materialize::CommitStagedOptions run;
  run.warehouse = warehouse;
  run.discard = options.discard;
  if (::isatty(STDERR_FILENO) && !options.quiet) {
    run.progress = [](const std::string& line) { std::cerr << "\r\033[K" << line << std::flush; };
  }
  auto reports = materialize::CommitStaged(fs, **catalog, stage_dirs, run);
  if (run.progress) std::cerr << "\r\033[K" << std::flush;
  if (!reports.ok()) {
    bool unknown = reports.status().kind() == StatusKind::kCommitUnknown;
    return fail(reports.status().WithContext(unknown ? "perhaps committed" : "nothing committed"));
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (options.json) {
    PrintJson(*reports, (*catalog)->DisplayName(), seconds);
  } else if (!options.quiet) {
    PrintText(*reports, seconds);
  }
  return 0;
}

}  // namespace

CommandRunner AddCommitCommand(CLI::App& app) {
  auto options = std::make_shared<CommitCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "commit", "Commit the token ranges that `cqlite materialize --token-range R --stage DIR` runs staged: every "
                "staged part of a table in one snapshot.");
  cmd->footer(
      "Runs of the same token ranges staged more than once (a task retried, or run twice by speculative "
      "execution) are recognised: one is committed, the files of the others are removed, and so are those of "
      "runs that began and never staged (an executor killed). A directory committed before (the driver killed "
      "after its commit) is recognised too: the commit only cleans up. Runs staged against a part's state that "
      "the table no longer has (another job committed it since) commit nothing: discard the directory and run "
      "the job again. Staged results are removed once committed or discarded.");
  cmd->add_option("--staged", options->staged, "Stage directories (local or s3://) of the runs to commit")
      ->required()
      ->expected(1, -1);
  cmd->add_option("--warehouse", options->warehouse, kWarehouseHelp)->capture_default_str();
  cmd->add_option("--catalog", options->catalog, kCatalogHelp);
  cmd->add_option("--catalog-name", options->catalog_name, kCatalogNameHelp);
  cmd->add_flag("--discard", options->discard,
                "Remove the staged runs' files instead of committing them (a job given up), unless an earlier "
                "commit took them");
  cmd->add_flag("--json", options->json, "Print the report as JSON");
  cmd->add_flag("-q,--quiet", options->quiet, "No progress and no report: only errors, on stderr");
  return [options] { return Commit(*options); };
}

}  // namespace cqlite
