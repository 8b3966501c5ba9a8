"""Reads an Iceberg table that `cqlite materialize` published, with PyIceberg
(nothing of cqlite involved), and prints its rows.

    python examples/read_table.py <warehouse> <namespace> <table> [--catalog-name cqlite]
"""
import argparse
import pathlib

from pyiceberg.catalog.sql import SqlCatalog


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("warehouse")
    parser.add_argument("namespace")
    parser.add_argument("table")
    parser.add_argument("--catalog-name", default="cqlite")
    args = parser.parse_args()
    warehouse = pathlib.Path(args.warehouse).resolve()
    catalog = SqlCatalog(args.catalog_name, uri=f"sqlite:///{warehouse / 'catalog.db'}",
                         warehouse=warehouse.as_uri(), init_catalog_tables="false")
    table = catalog.load_table((args.namespace, args.table))
    snapshot = table.current_snapshot()
    print(f"{args.namespace}.{args.table}: snapshot {snapshot.snapshot_id}, "
          f"{snapshot.summary.get('total-records')} records in data files, "
          f"{snapshot.summary.get('total-position-deletes')} position deletes")
    rows = table.scan().to_arrow().to_pylist()
    for row in rows:
        print(row)
    print(f"({len(rows)} rows)")


if __name__ == "__main__":
    main()
