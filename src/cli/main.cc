// The `cqlite` command: parses the command line and runs one subcommand.
#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>

#include "cli/commands.h"
#include "util/version.h"

int main(int argc, char** argv) {
  CLI::App app{
      "cqlite reads Apache Cassandra SSTables (3.0 to 5.0) straight from disk and publishes tables as Apache "
      "Iceberg tables.\n"
      "Run 'cqlite <command> --help' for the options of a command."};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("cqlite ") + cqlite::kCqliteVersion);

  auto ls = cqlite::AddLsCommand(app);
  auto dump = cqlite::AddDumpCommand(app);
  auto select = cqlite::AddSelectCommand(app);
  auto delta_export = cqlite::AddDeltaExportCommand(app);
  auto materialize = cqlite::AddMaterializeCommand(app);
  auto watch = cqlite::AddWatchCommand(app);
  auto ring = cqlite::AddRingCommand(app);
  auto maintain = cqlite::AddMaintainCommand(app);
  auto plan = cqlite::AddPlanCommand(app);
  auto commit = cqlite::AddCommitCommand(app);
  // An unknown command is an error, --help or not (CLI11 would print the
  // main help for `cqlite nosuch --help` and exit 0).
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) known |= sub->get_name() == argv[1];
    if (!known) {
      std::cerr << "cqlite: unknown command '" << argv[1]
                << "'; the commands are ls, dump, select, delta-export, materialize, plan, commit, maintain, watch and ring (cqlite --help)\n";
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    if (app.got_subcommand("ls")) return ls();
    if (app.got_subcommand("dump")) return dump();
    if (app.got_subcommand("select")) return select();
    if (app.got_subcommand("delta-export")) return delta_export();
    if (app.got_subcommand("materialize")) return materialize();
    if (app.got_subcommand("watch")) return watch();
    if (app.got_subcommand("ring")) return ring();
    if (app.got_subcommand("maintain")) return maintain();
    if (app.got_subcommand("plan")) return plan();
    if (app.got_subcommand("commit")) return commit();
  } catch (const std::exception& e) {
    std::cerr << "cqlite: internal error: " << e.what() << "\n";
    return 70;
  }
  return 0;
}
