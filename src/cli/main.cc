// The `cqlite` command: parses the command line and runs one subcommand.
// This file and the subcommand files are the only places that print.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>

int main(int argc, char** argv) {
  CLI::App app{"cqlite: read Apache Cassandra SSTables and publish them as Apache Iceberg tables"};
  app.require_subcommand(1);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return 0;
}
