"""SSTables that Cassandra 5.0's sstabledump cannot print but cqlite reads.

Each entry is a substring of the SSTable's path and the reason; README.md
("Differences from sstabledump") explains the same cases to users. Anything
not listed here must match sstabledump exactly.
"""

SSTABLEDUMP_FAILS = {
    "legacy_na_clust_compact/": "Statistics.db from a 4.0 pre-release, one byte short of the final 4.0 layout",
    "legacy_na_clust_counter_compact/": "Statistics.db from a 4.0 pre-release, one byte short of the final 4.0 layout",
    "legacy_na_simple_compact/": "Statistics.db from a 4.0 pre-release, one byte short of the final 4.0 layout",
    "legacy_na_simple_counter_compact/": "Statistics.db from a 4.0 pre-release, one byte short of the final 4.0 layout",
    "sina_test/has_all_types-": "sstabledump throws NullPointerException rendering an empty boolean value",
    "/empty_boolean-": "sstabledump throws NullPointerException rendering an empty boolean value",
    "write_compact_table/": "sstabledump throws NullPointerException on a row with a null clustering value",
    "write_empty_static_row/": "sstabledump cannot read Statistics.db whose sections are not in offset order",
    "write_interleaved_atomic_and_collection_columns/": "sstabledump cannot read Statistics.db whose sections are not in offset order",
    "sina_test/songs-": "Cassandra 3.0 wrote a frozen UDT column into the header unmarked (CASSANDRA-15035); "
                        "sstabledump reads it as non-frozen, cqlite takes frozen-ness from system_schema",
    "sstable-tools-3.x/resources/mb-1-": "sstabledump throws NullPointerException rendering this system.batches key",
}


def sstabledump_failure_reason(path):
    for fragment, reason in SSTABLEDUMP_FAILS.items():
        if fragment in str(path):
            return reason
    return None
