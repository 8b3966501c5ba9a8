// `catalog_tool`: runs one SqlCatalog operation on a catalog file, for the
// independent-reader tests (tests/integration/test_catalog_pyiceberg.py) and
// for looking into a catalog by hand. Namespaces are written dot-joined
// ("a.b"). Exit codes: 0 done, 1 error, 3 commit conflict.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "catalog/sql_catalog.h"

namespace {

using cqlite::Result;
using cqlite::Status;
using cqlite::StatusKind;
using cqlite::catalog::Namespace;
using cqlite::catalog::NamespaceToString;
using cqlite::catalog::ParseNamespace;
using cqlite::catalog::SqlCatalog;

constexpr int kExitError = 1;
constexpr int kExitConflict = 3;

int Fail(const Status& status) {
  std::cerr << "catalog_tool: " << status.ToString() << "\n";
  return status.kind() == StatusKind::kCommitConflict ? kExitConflict : kExitError;
}

struct Options {
  std::string path;
  std::string catalog_name = "cqlite";
  bool no_create = false;
  std::string ns;
  std::string table;
  std::string location;
  std::string expected;
  std::vector<std::string> properties;  // key=value
};

int Run(const std::string& command, const Options& options) {
  auto catalog = SqlCatalog::Open(options.path, options.catalog_name, !options.no_create);
  if (!catalog.ok()) return Fail(catalog.status());
  SqlCatalog& cat = **catalog;
  if (command == "init") return 0;
  if (command == "list") {
    auto namespaces = cat.ListNamespaces();
    if (!namespaces.ok()) return Fail(namespaces.status());
    for (const Namespace& ns : *namespaces) {
      std::cout << "namespace\t" << NamespaceToString(ns) << "\n";
      auto tables = cat.ListTables(ns);
      if (!tables.ok() && tables.status().kind() == StatusKind::kInvalidArgument) {
        // Another tool may have written a namespace name this catalog does not accept.
        std::cerr << "catalog_tool: skipping the tables of namespace " << NamespaceToString(ns) << ": "
                  << tables.status().ToString() << "\n";
        continue;
      }
      if (!tables.ok()) return Fail(tables.status());
      for (const std::string& table : *tables) {
        auto location = cat.LoadTable(ns, table);
        if (!location.ok() && location.status().kind() == StatusKind::kInvalidArgument) {
          std::cerr << "catalog_tool: skipping table " << table << ": " << location.status().ToString()
                    << "\n";
          continue;
        }
        if (!location.ok()) return Fail(location.status());
        std::cout << "table\t" << NamespaceToString(ns) << "\t" << table << "\t" << location->value_or("")
                  << "\n";
      }
    }
    return 0;
  }
  Result<Namespace> ns = ParseNamespace(options.ns);
  if (!ns.ok()) return Fail(ns.status());
  if (command == "create-namespace") {
    std::map<std::string, std::string> properties;
    for (const std::string& property : options.properties) {
      size_t eq = property.find('=');
      if (eq == std::string::npos) {
        return Fail(Status::InvalidArgument("property \"" + property + "\" is not key=value"));
      }
      properties[property.substr(0, eq)] = property.substr(eq + 1);
    }
    Status status = cat.CreateNamespace(*ns, properties);
    return status.ok() ? 0 : Fail(status);
  }
  if (command == "namespace-exists") {
    auto exists = cat.NamespaceExists(*ns);
    if (!exists.ok()) return Fail(exists.status());
    std::cout << (*exists ? "true" : "false") << "\n";
    return 0;
  }
  if (command == "list-tables") {
    auto tables = cat.ListTables(*ns);
    if (!tables.ok()) return Fail(tables.status());
    for (const std::string& table : *tables) std::cout << table << "\n";
    return 0;
  }
  if (command == "load") {
    auto location = cat.LoadTable(*ns, options.table);
    if (!location.ok()) return Fail(location.status());
    if (!*location) {
      return Fail(Status::NotFound(cat.path() + ": no table " + options.ns + "." + options.table));
    }
    std::cout << **location << "\n";
    return 0;
  }
  if (command == "create-table") {
    Status status = cat.CreateTable(*ns, options.table, options.location);
    return status.ok() ? 0 : Fail(status);
  }
  if (command == "commit") {
    Status status = cat.CommitTable(*ns, options.table, options.expected, options.location);
    return status.ok() ? 0 : Fail(status);
  }
  return Fail(Status::InvalidArgument("unknown command " + command));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"catalog_tool runs one operation on an Iceberg SQL catalog kept in a SQLite file."};
  app.require_subcommand(1);
  Options options;
  app.add_option("--catalog-name", options.catalog_name, "catalog_name the rows are scoped by")
      ->capture_default_str();
  app.add_flag("--no-create", options.no_create, "fail if the catalog file does not exist");

  auto add = [&](const char* name, const char* help) {
    CLI::App* sub = app.add_subcommand(name, help);
    sub->add_option("catalog", options.path, "SQLite catalog file")->required();
    return sub;
  };
  add("init", "create the catalog tables if missing");
  add("list", "print every namespace and table with its metadata location (tab-separated)");
  CLI::App* create_ns = add("create-namespace", "create a namespace (idempotent)");
  create_ns->add_option("namespace", options.ns)->required();
  create_ns->add_option("properties", options.properties, "key=value ...");
  add("namespace-exists", "print true or false")->add_option("namespace", options.ns)->required();
  add("list-tables", "print the tables of a namespace")->add_option("namespace", options.ns)->required();
  CLI::App* load = add("load", "print a table's metadata location");
  load->add_option("namespace", options.ns)->required();
  load->add_option("table", options.table)->required();
  CLI::App* create_table = add("create-table", "register a table with its metadata location");
  create_table->add_option("namespace", options.ns)->required();
  create_table->add_option("table", options.table)->required();
  create_table->add_option("metadata-location", options.location)->required();
  CLI::App* commit = add("commit", "compare-and-swap a table's metadata location (exit 3 on conflict)");
  commit->add_option("namespace", options.ns)->required();
  commit->add_option("table", options.table)->required();
  commit->add_option("expected-location", options.expected)->required();
  commit->add_option("new-location", options.location)->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    return Run(app.get_subcommands().front()->get_name(), options);
  } catch (const std::exception& e) {
    std::cerr << "catalog_tool: internal error: " << e.what() << "\n";
    return 70;
  }
}
