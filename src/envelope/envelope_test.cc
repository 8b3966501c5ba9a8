#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <random>

#include "cassandra/cql_schema.h"
#include "fold/table_fold.h"
#include "envelope/envelope_merge.h"
#include "envelope/envelope_reader.h"
#include "envelope/envelope_schema.h"
#include "envelope/envelope_writer.h"
#include "envelope/value_convert.h"
#include "parquet/reader.h"
#include "parquet/writer.h"
#include "util/strings.h"

namespace cqlite::envelope {
namespace {

using parquet::Value;

std::string Int32Bytes(int32_t v) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((static_cast<uint32_t>(v) >> (24 - 8 * i)) & 0xff);
  return out;
}
std::string Int64Bytes(int64_t v) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((static_cast<uint64_t>(v) >> (56 - 8 * i)) & 0xff);
  return out;
}

CqlTypePtr Type(const std::string& cql, const UserTypes& types = {}) {
  auto type = ParseCqlType(cql, types);
  EXPECT_TRUE(type.ok()) << cql << ": " << type.status().ToString();
  return *type;
}

void ExpectRoundTrip(const std::string& cql, const std::string& bytes, bool reproduces = true) {
  CqlTypePtr type = Type(cql);
  std::optional<Value> typed = ToTyped(*type, bytes);
  ASSERT_TRUE(typed.has_value()) << cql;
  EXPECT_EQ(Reproduces(*type, bytes, *typed), reproduces) << cql << " " << typed->ToString();
}

TEST(ValueConvertTest, ScalarsRoundTrip) {
  ExpectRoundTrip("int", Int32Bytes(-7));
  ExpectRoundTrip("bigint", Int64Bytes(INT64_MIN));
  ExpectRoundTrip("text", "h\xc3\xa9llo");
  ExpectRoundTrip("boolean", std::string(1, '\1'));
  ExpectRoundTrip("boolean", std::string(1, '\2'), false);  // any non-zero byte is true
  ExpectRoundTrip("smallint", std::string("\x80\x00", 2));
  ExpectRoundTrip("tinyint", "\x7f");
  ExpectRoundTrip("double", Int64Bytes(0x7ff8000000000001LL));  // NaN payload kept
  ExpectRoundTrip("date", Int32Bytes(static_cast<int32_t>(0x80000000u)));
  ExpectRoundTrip("timestamp", Int64Bytes(-1));
  ExpectRoundTrip("time", Int64Bytes(86399999999999LL));
  ExpectRoundTrip("uuid", std::string(16, '\xab'));
  ExpectRoundTrip("inet", std::string("\x7f\x00\x00\x01", 4));
  ExpectRoundTrip("inet", std::string("\x20\x01\x0d\xb8", 4) + std::string(10, '\0') + "\x83\x29");
  ExpectRoundTrip("blob", "");
  ExpectRoundTrip("text", "");
}

TEST(ValueConvertTest, DecimalsAndVarints) {
  // 1.5 with scale 9 is exact; with scale 1 the typed value loses the scale.
  ExpectRoundTrip("decimal", Int32Bytes(9) + std::string("\x59\x68\x2f\x00", 4));
  ExpectRoundTrip("decimal", Int32Bytes(1) + std::string("\x0f", 1), false);
  ExpectRoundTrip("varint", std::string("\xff\xff", 2), false);  // not minimal
  ExpectRoundTrip("varint", std::string("\x00\x80", 2));
  ExpectRoundTrip("varint", std::string("\x01\x00\x00\x00\x00\x00\x00\x00\x00", 9));
  // More than 38 digits or 10 fractional digits: no typed form.
  EXPECT_FALSE(ToTyped(*Type("varint"), std::string(17, '\x7f')).has_value());
  EXPECT_FALSE(ToTyped(*Type("decimal"), Int32Bytes(10) + "\x01").has_value());
  EXPECT_FALSE(ToTyped(*Type("int"), "").has_value());
  EXPECT_FALSE(ToTyped(*Type("text"), "\xff").has_value());
}

TEST(ValueConvertTest, Durations) {
  int64_t months, days, nanos;
  ASSERT_TRUE(ParseDurationText("1y2mo3w4d5h6m7s8ms9us10ns", &months, &days, &nanos));
  EXPECT_EQ(months, 14);
  EXPECT_EQ(days, 25);
  EXPECT_EQ(nanos, ((5 * 60 + 6) * 60 + 7) * 1000000000LL + 8000000 + 9000 + 10);
  ASSERT_TRUE(ParseDurationText("-2d", &months, &days, &nanos));
  EXPECT_EQ(days, -2);
  EXPECT_FALSE(ParseDurationText("2x", &months, &days, &nanos));
  std::string encoded;
  AppendUnsignedVInt(28, &encoded);  // months 14, zigzag
  AppendUnsignedVInt(50, &encoded);  // days 25
  AppendUnsignedVInt(2 * 18367008009010LL, &encoded);
  ExpectRoundTrip("duration", encoded);
}

TEST(ValueConvertTest, NestedTypes) {
  UserTypes types;
  auto tables =
      ParseCqlSchema("CREATE TYPE ks.pt (x int, y text); CREATE TABLE ks.t (k int PRIMARY KEY);", &types);
  ASSERT_TRUE(tables.ok());
  auto element = [](const std::string& bytes) {
    return Int32Bytes(static_cast<int32_t>(bytes.size())) + bytes;
  };
  std::string list = Int32Bytes(2) + element(Int32Bytes(1)) + element(Int32Bytes(2));
  ExpectRoundTrip("frozen<list<int>>", list);
  ExpectRoundTrip("frozen<set<int>>", list);
  ExpectRoundTrip("frozen<map<int, text>>", Int32Bytes(1) + element(Int32Bytes(1)) + element("one"));
  ExpectRoundTrip("tuple<int, text>", element(Int32Bytes(1)) + Int32Bytes(-1));
  CqlTypePtr udt = Type("frozen<pt>", types);
  std::string point = element(Int32Bytes(3)) + element("z");
  auto typed = ToTyped(*udt, point);
  ASSERT_TRUE(typed);
  EXPECT_TRUE(Reproduces(*udt, point, *typed));
  // A user type value written before a field was added has fewer fields.
  std::string short_point = element(Int32Bytes(3));
  typed = ToTyped(*udt, short_point);
  ASSERT_TRUE(typed);
  EXPECT_FALSE(Reproduces(*udt, short_point, *typed));
  ExpectRoundTrip("vector<float, 2>", std::string(8, '\x01'));
  ExpectRoundTrip("vector<text, 2>", std::string("\x01"
                                                 "a"
                                                 "\x02"
                                                 "bc",
                                                 5));
}

TEST(EnvelopeSchemaTest, PrefixCollisionsAreRefused) {
  auto table = ParseCqlTableSchema("CREATE TABLE ks.t (k int PRIMARY KEY, __op text);");
  ASSERT_TRUE(table.ok());
  Status status = CheckPrefix(*table, "__");
  EXPECT_EQ(status.kind(), StatusKind::kInvalidArgument);
  EXPECT_NE(status.message().find("__op"), std::string::npos);
  EXPECT_NE(status.message().find("--envelope-prefix"), std::string::npos);
  EXPECT_TRUE(CheckPrefix(*table, "_cqlite_").ok());
}

TEST(EnvelopeSchemaTest, V1ColumnsInOrder) {
  auto table = ParseCqlTableSchema(
      "CREATE TABLE ks.t (k int, c text, s int static, l list<int>, f frozen<list<int>>, PRIMARY KEY (k, "
      "c));");
  ASSERT_TRUE(table.ok());
  parquet::Schema schema = BuildEnvelopeSchema(*table, "__", Flavor::kV1);
  std::vector<std::string> names;
  for (const auto& field : schema.fields) names.push_back(field.name);
  EXPECT_EQ(names, (std::vector<std::string>{"k", "c", "s", "l", "f", "__op", "__ts", "__range_start",
                                             "__range_end"}));
  std::vector<std::string> l_fields, f_fields;
  for (const auto& field : schema.fields[3].children) l_fields.push_back(field.name);
  for (const auto& field : schema.fields[4].children) f_fields.push_back(field.name);
  EXPECT_EQ(l_fields, (std::vector<std::string>{"value", "writetime", "expires_at", "replaced"}));
  EXPECT_EQ(f_fields, (std::vector<std::string>{"value", "writetime", "expires_at"}));
  EXPECT_FALSE(schema.fields[0].optional());
  EXPECT_TRUE(schema.fields[1].optional());
  EXPECT_TRUE(ValidateSchema(schema).ok());
  EXPECT_TRUE(ValidateSchema(BuildEnvelopeSchema(*table, "__", Flavor::kCqlite)).ok());
  EXPECT_TRUE(CheckSchemaMatches(schema, schema).ok());
  Status mismatch = CheckSchemaMatches(schema, BuildEnvelopeSchema(*table, "__", Flavor::kCqlite));
  EXPECT_FALSE(mismatch.ok());
}

TEST(EnvelopeSchemaTest, SchemaCqlReadsBack) {
  const char* cql = R"(
    CREATE TYPE ks."Point" (x double, "Y" frozen<list<int>>);
    CREATE TABLE ks."T" (k int, "C" text, d timestamp, s set<int> static, u "Point", fu frozen<"Point">,
                         m map<text, frozen<"Point">>, t tuple<int, text>, v vector<float, 3>,
                         PRIMARY KEY ((k, d), "C")) WITH CLUSTERING ORDER BY ("C" DESC);)";
  auto table = ParseCqlTableSchema(cql);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  std::string text = TableSchemaToCql(*table);
  auto again = ParseCqlTableSchema(text);
  ASSERT_TRUE(again.ok()) << again.status().ToString() << "\n" << text;
  EXPECT_EQ(TableSchemaToCql(*again), text);
  EXPECT_EQ(SchemaHash(*again), SchemaHash(*table));
  ASSERT_EQ(again->columns.size(), table->columns.size());
  for (size_t i = 0; i < table->columns.size(); ++i) {
    EXPECT_EQ(again->columns[i].name, table->columns[i].name);
    EXPECT_EQ(again->columns[i].type->ToCql(), table->columns[i].type->ToCql());
    EXPECT_EQ(again->columns[i].kind, table->columns[i].kind);
    EXPECT_EQ(again->columns[i].reversed, table->columns[i].reversed);
  }
}

// A compact table without clustering columns is stored with a hidden
// clustering column, its columns static and a hidden compact value column;
// its CQL keeps all of that.
TEST(EnvelopeSchemaTest, StoredStaticCompactTableReadsBack) {
  TableSchema table;
  table.keyspace = "ks";
  table.table = "t";
  table.compact_storage = true;
  auto text_type = std::make_shared<CqlType>();
  text_type->kind = CqlKind::kText;
  table.columns.push_back({"pk", text_type, ColumnKind::kPartitionKey, 0, false});
  ColumnSchema column1{"column1", text_type, ColumnKind::kClustering, 0, false};
  column1.hidden = true;
  table.columns.push_back(column1);
  table.columns.push_back({"val", text_type, ColumnKind::kStatic, -1, false});
  ColumnSchema value{"value", text_type, ColumnKind::kRegular, -1, false};
  value.hidden = true;
  table.columns.push_back(value);
  std::string text = TableSchemaToCql(table);
  auto again = ParseCqlTableSchema(text);
  ASSERT_TRUE(again.ok()) << again.status().ToString() << "\n" << text;
  EXPECT_TRUE(again->compact_storage);
  ASSERT_EQ(again->columns.size(), table.columns.size());
  for (size_t i = 0; i < table.columns.size(); ++i) {
    EXPECT_EQ(again->columns[i].name, table.columns[i].name);
    EXPECT_EQ(again->columns[i].kind, table.columns[i].kind);
    EXPECT_EQ(again->columns[i].hidden, table.columns[i].hidden) << table.columns[i].name;
  }
  // A compact table with clustering columns has no hidden column to restore.
  auto dense = ParseCqlTableSchema("CREATE TABLE ks.d (pk text, ck text, v text, PRIMARY KEY (pk, ck)) "
                                   "WITH COMPACT STORAGE;");
  ASSERT_TRUE(dense.ok());
  auto dense_again = ParseCqlTableSchema(TableSchemaToCql(*dense));
  ASSERT_TRUE(dense_again.ok());
  EXPECT_TRUE(dense_again->compact_storage);
  for (const ColumnSchema& c : dense_again->columns) EXPECT_FALSE(c.hidden) << c.name;
}

// Writes records through EnvelopeWriter and reads them back as the fold sees them.
class RoundTripTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto table = ParseCqlTableSchema(
        "CREATE TABLE ks.t (k int, c int, d decimal, s text static, v text, n counter, st set<int>, "
        "PRIMARY KEY (k, c, d)) WITH CLUSTERING ORDER BY (c DESC, d ASC);");
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    table_ = *table;
    generation_.source = "nb-1-big-Data.db";
    generation_.generation = "1";
    generation_.partitioner = Partitioner::kMurmur3;
    // Header columns in the table's order: s (static); v, n, st (regular).
    generation_.static_columns = {{3}};
    generation_.regular_columns = {{4}, {5}, {6}};
  }

  std::unique_ptr<EnvelopeWriter> Open(const std::string& path, ExportOptions options = {}) {
    auto writer = EnvelopeWriter::Open(fs_, path, table_, generation_, options);
    EXPECT_TRUE(writer.ok()) << writer.status().ToString();
    return std::move(*writer);
  }

  // Every partition of the file; `source` (if given) gets what the source held.
  std::vector<FoldPartition> ReadBack(const std::string& path, ReadOptions options = {},
                                      const EnvelopeSource** source = nullptr) {
    auto inputs = OpenEnvelopeFiles(fs_, {path}, options);
    EXPECT_TRUE(inputs.ok()) << inputs.status().ToString();
    std::vector<FoldPartition> out;
    if (!inputs.ok()) return out;
    FoldPartition partition;
    while (true) {
      auto more = inputs->sources[0]->Next(&partition);
      EXPECT_TRUE(more.ok()) << more.status().ToString();
      if (!more.ok() || !*more) break;
      out.push_back(partition);
    }
    if (source) {
      sources_.push_back(std::move(inputs->sources[0]));
      *source = dynamic_cast<const EnvelopeSource*>(sources_.back().get());
    }
    return out;
  }

  MemoryFileSystem fs_;
  TableSchema table_;
  GenerationInfo generation_;
  std::vector<std::unique_ptr<FoldSource>> sources_;
};

// Envelope records view their bytes: keep them alive for the whole test.
std::string_view Keep(std::string bytes) {
  static std::deque<std::string> storage;
  return storage.emplace_back(std::move(bytes));
}

Clustering MakeClustering(std::vector<std::string> values) {
  Clustering c;
  c.present.assign(values.size(), true);
  for (std::string& value : values) c.values.push_back(Keep(std::move(value)));
  return c;
}

TEST_F(RoundTripTest, EveryFactSurvives) {
  auto writer = Open("/out/a.parquet");
  PartitionHeader header;
  header.key = Int32Bytes(1);
  header.deletion = DeletionTime{50, 1700000000};
  ASSERT_TRUE(writer->OnPartitionStart(header).ok());

  Row static_row;
  static_row.is_static = true;
  ColumnData s;
  s.column = 0;
  s.cells.push_back(Cell{100, 3600, 1700003600, false, true, "", "static"});
  static_row.columns.push_back(s);
  ASSERT_TRUE(writer->OnRow(static_row).ok());

  // A range deletion [c=9, c=5) followed by a boundary, then (5, c=3].
  RangeTombstoneMarker start;
  start.kind = ClusteringKind::kInclStartBound;
  start.bound = MakeClustering({Int32Bytes(9)});
  start.deletion = DeletionTime{60, 1700000001};
  ASSERT_TRUE(writer->OnRangeTombstoneMarker(start).ok());

  // A row inside the range, with a decimal the typed column cannot hold
  // exactly (scale 1), a row deletion and newer cells.
  Row row;
  row.clustering = MakeClustering({Int32Bytes(7), Int32Bytes(1) + "\x0f"});
  row.liveness = LivenessInfo{200, 86400, 1700086400};
  row.deletion = DeletionTime{150, 1700000002};
  ColumnData v;
  v.column = 0;
  v.cells.push_back(Cell{201, 0, 1700000003, true, false, "", ""});  // cell tombstone
  ColumnData n;
  n.column = 1;
  std::string context =
      std::string("\x00\x01\x80\x00", 4) + std::string(16, '\x11') + Int64Bytes(3) + Int64Bytes(42);
  n.cells.push_back(Cell{202, 0, kNoDeletionTime, false, false, "", context});
  ColumnData st;
  st.column = 2;
  st.is_complex = true;
  st.complex_deletion = DeletionTime{199, 1700000004};
  st.cells.push_back(Cell{200, 0, kNoDeletionTime, false, false, Keep(Int32Bytes(1)), ""});
  st.cells.push_back(Cell{203, 0, 1700000005, true, false, Keep(Int32Bytes(2)), ""});  // element tombstone
  row.columns = {v, n, st};
  ASSERT_TRUE(writer->OnRow(row).ok());

  RangeTombstoneMarker boundary;
  boundary.kind = ClusteringKind::kExclEndInclStartBoundary;
  boundary.bound = MakeClustering({Int32Bytes(5)});
  boundary.end_deletion = DeletionTime{60, 1700000001};
  boundary.start_deletion = DeletionTime{70, 1700000006};
  ASSERT_TRUE(writer->OnRangeTombstoneMarker(boundary).ok());
  RangeTombstoneMarker end;
  end.kind = ClusteringKind::kInclEndBound;
  end.bound = MakeClustering({Int32Bytes(3)});
  end.deletion = DeletionTime{70, 1700000006};
  ASSERT_TRUE(writer->OnRangeTombstoneMarker(end).ok());
  ASSERT_TRUE(writer->OnPartitionEnd().ok());
  auto records = writer->Close();
  ASSERT_TRUE(records.ok());
  EXPECT_EQ(*records, 6);  // partition_delete, static_upsert, 2 range_delete, row_delete, upsert
  EXPECT_FALSE(fs_.Exists(TemporaryPath("/out/a.parquet")));

  std::vector<FoldPartition> partitions = ReadBack("/out/a.parquet");
  ASSERT_EQ(partitions.size(), 1u);
  const FoldPartition& p = partitions[0];
  EXPECT_EQ(p.key, Int32Bytes(1));
  EXPECT_EQ(p.deletion, (DeletionTime{50, 1700000000}));
  ASSERT_TRUE(p.has_static_row);
  ASSERT_EQ(p.static_row.columns.size(), 1u);
  EXPECT_EQ(p.static_row.columns[0].column, 3);
  EXPECT_EQ(p.static_row.columns[0].cells[0].value, "static");
  EXPECT_EQ(p.static_row.columns[0].cells[0].ttl, 3600);
  EXPECT_EQ(p.static_row.columns[0].cells[0].local_deletion_time, 1700003600);

  // start(9), row(7), end(5 excl), start(5 incl), end(3 incl).
  ASSERT_EQ(p.item_is_marker, (std::vector<bool>{true, false, true, true, true}));
  ASSERT_EQ(p.markers.size(), 4u);
  EXPECT_EQ(p.markers[0].kind, ClusteringKind::kInclStartBound);
  EXPECT_EQ(p.markers[0].deletion, (DeletionTime{60, 1700000001}));
  EXPECT_EQ(p.markers[1].kind, ClusteringKind::kExclEndBound);
  EXPECT_EQ(p.markers[1].bound.values, (std::vector<std::string>{Int32Bytes(5)}));
  EXPECT_EQ(p.markers[2].kind, ClusteringKind::kInclStartBound);
  EXPECT_EQ(p.markers[2].deletion, (DeletionTime{70, 1700000006}));
  EXPECT_EQ(p.markers[3].kind, ClusteringKind::kInclEndBound);

  ASSERT_EQ(p.rows.size(), 1u);
  const FoldRow& r = p.rows[0];
  EXPECT_EQ(r.clustering.values, row.clustering.CopyValues());
  EXPECT_EQ(r.liveness.timestamp, 200);
  EXPECT_EQ(r.liveness.ttl, 86400);
  EXPECT_EQ(r.liveness.local_expiration_time, 1700086400);
  EXPECT_EQ(r.deletion, (DeletionTime{150, 1700000002}));
  ASSERT_EQ(r.columns.size(), 3u);
  EXPECT_EQ(r.columns[0].column, 4);
  EXPECT_TRUE(r.columns[0].cells[0].IsTombstone());
  EXPECT_EQ(r.columns[0].cells[0].timestamp, 201);
  EXPECT_EQ(r.columns[0].cells[0].local_deletion_time, 1700000003);
  EXPECT_EQ(r.columns[1].column, 5);
  EXPECT_EQ(r.columns[1].cells[0].value, context);
  EXPECT_EQ(r.columns[2].column, 6);
  EXPECT_TRUE(r.columns[2].is_complex);
  EXPECT_EQ(r.columns[2].complex_deletion, (DeletionTime{199, 1700000004}));
  ASSERT_EQ(r.columns[2].cells.size(), 2u);
  EXPECT_EQ(r.columns[2].cells[0].path, Int32Bytes(1));
  EXPECT_FALSE(r.columns[2].cells[0].IsTombstone());
  EXPECT_EQ(r.columns[2].cells[1].path, Int32Bytes(2));
  EXPECT_TRUE(r.columns[2].cells[1].IsTombstone());
  EXPECT_EQ(r.columns[2].cells[1].local_deletion_time, 1700000005);

  // The footer carries the schema and the generation.
  auto reader = parquet::ParquetReader::Open(fs_, "/out/a.parquet");
  ASSERT_TRUE(reader.ok());
  std::map<std::string, std::string> footer;
  for (const auto& kv : (*reader)->metadata().key_value_metadata) footer[kv.key] = kv.value.value_or("");
  EXPECT_EQ(footer[kVersionKey], "1");
  EXPECT_EQ(footer[kExtensionVersionKey], "1");
  EXPECT_EQ(footer[kSourceKey], "nb-1-big-Data.db");
  EXPECT_EQ(footer[kGenerationKey], "1");
  EXPECT_EQ(footer[kSchemaHashKey].size(), 16u);
}

// Everything a FoldPartition holds, for comparing two reads of a file.
std::string Describe(const FoldClustering& c) {
  std::string out = "(";
  for (size_t i = 0; i < c.values.size(); ++i) {
    out += StrCat(i < c.present.size() && !c.present[i] ? "-" : "", ToHex(c.values[i]), ",");
  }
  return out + ")";
}
std::string Describe(const DeletionTime& d) {
  return StrCat(d.marked_for_delete_at, "/", d.local_deletion_time);
}
std::string Describe(const FoldRow& row) {
  std::string out = StrCat(Describe(row.clustering), " live ", row.liveness.timestamp, "/", row.liveness.ttl,
                           "/", row.liveness.local_expiration_time, " del ", Describe(row.deletion),
                           row.deletion_is_shadowable ? " shadowable" : "");
  for (const FoldColumn& column : row.columns) {
    out +=
        StrCat(" [", column.column, column.is_complex ? " complex " : " ", Describe(column.complex_deletion));
    for (const FoldCell& cell : column.cells) {
      out += StrCat(" {", cell.timestamp, "/", cell.ttl, "/", cell.local_deletion_time, " ", ToHex(cell.path),
                    "=", ToHex(cell.value), "}");
    }
    out += "]";
  }
  return out;
}
std::string Describe(const FoldPartition& p) {
  std::string out = StrCat("partition ", ToHex(p.key), " del ", Describe(p.deletion), "\n");
  if (p.has_static_row) out += StrCat("  static ", Describe(p.static_row), "\n");
  size_t row = 0, marker = 0;
  for (bool is_marker : p.item_is_marker) {
    if (is_marker) {
      const FoldMarker& m = p.markers.at(marker++);
      out += StrCat("  marker ", static_cast<int>(m.kind), " ", Describe(m.bound), " ", Describe(m.deletion),
                    "\n");
    } else {
      out += StrCat("  row ", Describe(p.rows.at(row++)), "\n");
    }
  }
  EXPECT_EQ(row, p.rows.size());
  EXPECT_EQ(marker, p.markers.size());
  return out;
}

// Partition keys (int k) in Murmur3 token order, as an SSTable holds them.
std::vector<std::string> KeysInTokenOrder(int n) {
  std::vector<std::string> keys;
  for (int i = 0; i < n; ++i) keys.push_back(Int32Bytes(i));
  std::sort(keys.begin(), keys.end(), PartitionKeyLess{Partitioner::kMurmur3});
  return keys;
}

// Writes partition `i` with key `key`: between 2 and 14 records of every kind.
void WritePartition(EnvelopeConsumer& writer, const std::string& key, int i) {
  PartitionHeader header;
  header.key = key;
  if (i % 4 == 0) header.deletion = DeletionTime{10 + i, 1700000000 + i};
  ASSERT_TRUE(writer.OnPartitionStart(header).ok());
  if (i % 3 == 0) {
    Row static_row;
    static_row.is_static = true;
    ColumnData s;
    s.column = 0;
    s.cells.push_back(Cell{100 + i, 0, kNoDeletionTime, false, false, "", Keep(StrCat("static", i))});
    static_row.columns.push_back(s);
    ASSERT_TRUE(writer.OnRow(static_row).ok());
  }
  // c DESC: rows from the largest c down.
  for (int r = 0; r < 1 + i % 7; ++r) {
    Row row;
    row.clustering = MakeClustering({Int32Bytes(100 - r), Int32Bytes(0) + "\x01"});
    row.liveness = LivenessInfo{200 + r, 0, kNoDeletionTime};
    if (r % 3 == 1) row.deletion = DeletionTime{150 + r, 1700000100 + r};  // a row_delete and an upsert
    ColumnData v;
    v.column = 0;
    v.cells.push_back(Cell{201 + r, 0, kNoDeletionTime, false, false, "", Keep(StrCat("v", i, ".", r))});
    ColumnData st;
    st.column = 2;
    st.is_complex = true;
    st.cells.push_back(Cell{202 + r, 0, kNoDeletionTime, false, false, Keep(Int32Bytes(r)), ""});
    row.columns = {v, st};
    ASSERT_TRUE(writer.OnRow(row).ok());
  }
  if (i % 5 == 1) {
    RangeTombstoneMarker start, end;
    start.kind = ClusteringKind::kInclStartBound;
    start.bound = MakeClustering({Int32Bytes(50)});
    start.deletion = DeletionTime{60 + i, 1700000200 + i};
    end.kind = ClusteringKind::kExclEndBound;
    end.bound = MakeClustering({Int32Bytes(40)});
    end.deletion = start.deletion;
    ASSERT_TRUE(writer.OnRangeTombstoneMarker(start).ok());
    ASSERT_TRUE(writer.OnRangeTombstoneMarker(end).ok());
  }
  ASSERT_TRUE(writer.OnPartitionEnd().ok());
}

TEST_F(RoundTripTest, OwnFilesStreamRowGroupByRowGroup) {
  ExportOptions options;
  options.row_group_rows = 3;
  auto writer = Open("/out/many.parquet", options);
  std::vector<std::string> keys = KeysInTokenOrder(40);
  for (size_t i = 0; i < keys.size(); ++i) WritePartition(*writer, keys[i], static_cast<int>(i));
  auto records = writer->Close();
  ASSERT_TRUE(records.ok());
  auto reader = parquet::ParquetReader::Open(fs_, "/out/many.parquet");
  ASSERT_TRUE(reader.ok());
  ASSERT_EQ((*reader)->num_row_groups(), (*records + 2) / 3);

  const EnvelopeSource* streamed_source = nullptr;
  const EnvelopeSource* whole_source = nullptr;
  std::vector<FoldPartition> streamed = ReadBack("/out/many.parquet", {}, &streamed_source);
  ReadOptions whole_options;
  whole_options.stream_own_files = false;
  std::vector<FoldPartition> whole = ReadBack("/out/many.parquet", whole_options, &whole_source);

  ASSERT_NE(streamed_source, nullptr);
  ASSERT_NE(whole_source, nullptr);
  EXPECT_TRUE(streamed_source->streaming());
  EXPECT_FALSE(whole_source->streaming());
  // At most one row group of records at a time, against the whole file.
  EXPECT_EQ(streamed_source->max_records_held(), 3);
  EXPECT_EQ(whole_source->max_records_held(), *records);

  ASSERT_EQ(streamed.size(), keys.size());
  ASSERT_EQ(whole.size(), keys.size());
  size_t spanning = 0, rows = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(streamed[i].key, keys[i]);
    EXPECT_EQ(Describe(streamed[i]), Describe(whole[i]));
    rows += streamed[i].rows.size();
    // More records (each row is one or two) than a row group holds: the
    // partition spans two row groups or more.
    if (streamed[i].rows.size() > 3) ++spanning;
  }
  EXPECT_GT(spanning, 10u);
  EXPECT_GT(rows, 100u);
  // A partition spanning row groups keeps all its pieces: the 7th has 7 rows,
  // a range tombstone (i % 5 == 1) and a static row.
  const FoldPartition& p = streamed[6];
  EXPECT_TRUE(p.has_static_row);
  EXPECT_EQ(p.rows.size(), 7u);
  EXPECT_EQ(p.markers.size(), 2u);
  EXPECT_EQ(p.deletion, DeletionTime{});
  EXPECT_EQ(p.rows[1].deletion, (DeletionTime{151, 1700000101}));
}

// A wide partition of random rows under long range tombstones (bounds and
// boundaries), some rows newer than the ranges over them and some older.
void WriteWidePartition(EnvelopeConsumer& writer, const std::string& key, std::mt19937& rng) {
  PartitionHeader header;
  header.key = key;
  if (rng() % 3 == 0) header.deletion = DeletionTime{static_cast<int64_t>(40 + rng() % 40), 1700000000};
  ASSERT_TRUE(writer.OnPartitionStart(header).ok());
  if (rng() % 2 == 0) {
    Row static_row;
    static_row.is_static = true;
    ColumnData s;
    s.column = 0;
    s.cells.push_back(Cell{static_cast<int64_t>(rng() % 200), 0, kNoDeletionTime, false, false, "", Keep("static")});
    static_row.columns.push_back(s);
    ASSERT_TRUE(writer.OnRow(static_row).ok());
  }
  auto deletion = [&rng] { return DeletionTime{static_cast<int64_t>(100 + rng() % 200), 1700000100}; };
  DeletionTime open;
  bool is_open = false;
  int left = 0;  // rows until the open range ends
  // c DESC: rows from the largest c down, some c with two rows (d = 1, 2).
  for (int c = 1000; c > 700; --c) {
    if (!is_open && rng() % 8 == 0) {
      RangeTombstoneMarker start;
      start.kind = ClusteringKind::kInclStartBound;
      start.bound = MakeClustering({Int32Bytes(c)});
      start.deletion = open = deletion();
      ASSERT_TRUE(writer.OnRangeTombstoneMarker(start).ok());
      is_open = true;
      left = 5 + static_cast<int>(rng() % 120);
    } else if (is_open && rng() % 25 == 0) {
      // One range ends just before c, the next starts at c.
      RangeTombstoneMarker boundary;
      boundary.kind = ClusteringKind::kExclEndInclStartBoundary;
      boundary.bound = MakeClustering({Int32Bytes(c)});
      boundary.end_deletion = open;
      boundary.start_deletion = open = deletion();
      ASSERT_TRUE(writer.OnRangeTombstoneMarker(boundary).ok());
    }
    for (int d = 1; d <= (c % 7 == 0 ? 2 : 1); ++d) {
      if (rng() % 4 == 0) continue;
      Row row;
      row.clustering = MakeClustering({Int32Bytes(c), Int32Bytes(0) + std::string(1, static_cast<char>(d))});
      row.liveness = LivenessInfo{static_cast<int64_t>(50 + rng() % 300), 0, kNoDeletionTime};
      if (rng() % 9 == 0) row.deletion = DeletionTime{static_cast<int64_t>(50 + rng() % 300), 1700000100};
      ColumnData v;
      v.column = 0;
      v.cells.push_back(Cell{static_cast<int64_t>(50 + rng() % 300), 0, kNoDeletionTime, false, false, "",
                             Keep(StrCat("v", c, ".", d))});
      row.columns = {v};
      ASSERT_TRUE(writer.OnRow(row).ok());
    }
    if (is_open && --left == 0) {
      RangeTombstoneMarker end;
      end.kind = ClusteringKind::kInclEndBound;
      end.bound = MakeClustering({Int32Bytes(c)});
      end.deletion = open;
      ASSERT_TRUE(writer.OnRangeTombstoneMarker(end).ok());
      is_open = false;
    }
  }
  if (is_open) {
    RangeTombstoneMarker end;
    end.kind = ClusteringKind::kInclEndBound;
    end.bound = MakeClustering({Int32Bytes(700)});
    end.deletion = open;
    ASSERT_TRUE(writer.OnRangeTombstoneMarker(end).ok());
  }
  ASSERT_TRUE(writer.OnPartitionEnd().ok());
}

// Ranges split every few records, and partitions read back in pieces, fold
// as the ranges whole and the partitions whole.
TEST_F(RoundTripTest, WidePartitionsAreReadInPieces) {
  std::vector<std::string> keys = KeysInTokenOrder(6);
  auto write = [&](const std::string& path, int64_t split) {
    ExportOptions options;
    options.row_group_rows = 7;
    options.range_split_records = split;
    auto writer = Open(path, options);
    std::mt19937 rng(20261130);
    for (const std::string& key : keys) WriteWidePartition(*writer, key, rng);
    auto records = writer->Close();
    EXPECT_TRUE(records.ok());
    return records.ok() ? *records : 0;
  };
  int64_t unsplit_records = write("/out/unsplit.parquet", 1'000'000);
  int64_t split_records = write("/out/split.parquet", 5);
  EXPECT_GT(split_records, unsplit_records + 50);  // many ranges were split

  auto fold = [&](const std::string& path, bool stream) {
    ReadOptions options;
    options.stream_own_files = stream;
    auto inputs = OpenEnvelopeFiles(fs_, {path}, options);
    EXPECT_TRUE(inputs.ok()) << inputs.status().ToString();
    std::vector<std::string> out;
    if (!inputs.ok()) return out;
    auto folded = TableFold::Make(*inputs->schema, inputs->partitioner, std::move(inputs->sources), 1700000150, 16);
    EXPECT_TRUE(folded.ok());
    FoldedPartition partition;
    std::string last_key;
    while (true) {
      auto more = (*folded)->Next(&partition);
      EXPECT_TRUE(more.ok()) << more.status().ToString();
      if (!more.ok() || !*more) break;
      std::string rows;
      for (const FoldRow& row : partition.rows) rows += " " + Describe(row);
      if (!out.empty() && partition.key == last_key) {
        out.back() += rows;  // the next piece
      } else {
        out.push_back(StrCat(ToHex(partition.key), partition.has_static_row ? " static " + Describe(partition.static_row) : "",
                             ":", rows));
      }
      last_key = partition.key;
    }
    return out;
  };
  std::vector<std::string> expected = fold("/out/unsplit.parquet", false);
  ASSERT_EQ(expected.size(), keys.size());
  EXPECT_EQ(fold("/out/split.parquet", false), expected);
  EXPECT_EQ(fold("/out/split.parquet", true), expected);

  // The streamed source did hand partitions on in pieces, none large.
  auto inputs = OpenEnvelopeFiles(fs_, {"/out/split.parquet"}, {});
  ASSERT_TRUE(inputs.ok());
  FoldSource& source = *inputs->sources[0];
  FoldPartition piece;
  int partitions = 0, pieces = 0;
  size_t largest = 0;
  while (true) {
    auto more = source.Next(&piece);
    ASSERT_TRUE(more.ok()) << more.status().ToString();
    if (!*more) break;
    ++partitions;
    while (true) {
      ++pieces;
      largest = std::max(largest, piece.item_is_marker.size());
      if (piece.complete) break;
      ASSERT_TRUE(source.More(&piece).ok());
    }
  }
  EXPECT_EQ(partitions, static_cast<int>(keys.size()));
  EXPECT_GT(pieces, 10 * partitions);
  // Twice the window of items read (lag 7 + 2), each a row or a range's two bounds.
  EXPECT_LE(largest, 2u * 2 * 9);
}

TEST_F(RoundTripTest, OutOfOrderPartitionsAreRefusedOnWrite) {
  std::vector<std::string> keys = KeysInTokenOrder(2);
  auto writer = Open("/out/unsorted.parquet");
  WritePartition(*writer, keys[1], 1);
  PartitionHeader header;
  header.key = keys[0];
  Status status = writer->OnPartitionStart(header);
  EXPECT_EQ(status.kind(), StatusKind::kCorruption);
  EXPECT_TRUE(StartsWith(status.message(), "nb-1-big-Data.db: partition 0x" + ToHex(keys[0])))
      << status.ToString();
  header.key = keys[1];  // the same partition twice
  EXPECT_EQ(writer->OnPartitionStart(header).kind(), StatusKind::kCorruption);
}

TEST_F(RoundTripTest, OwnFilesOutOfTokenOrderAreRefusedOnRead) {
  // One file per partition, then their records put together out of order
  // under the same footer: what a faulty writer could leave.
  std::vector<std::string> keys = KeysInTokenOrder(3);
  std::vector<std::vector<Value>> records;
  std::unique_ptr<parquet::ParquetReader> model;
  for (int i = 0; i < 3; ++i) {
    std::string path = StrCat("/out/one-", i, ".parquet");
    auto writer = Open(path);
    WritePartition(*writer, keys[i], 6);
    ASSERT_TRUE(writer->Close().ok());
    auto reader = parquet::ParquetReader::Open(fs_, path);
    ASSERT_TRUE(reader.ok());
    auto rows = (*reader)->ReadAll();
    ASSERT_TRUE(rows.ok());
    records.push_back(std::move(*rows));
    model = std::move(*reader);
  }
  // The first key after a larger one; the first key again after another.
  for (const std::vector<int>& order : {std::vector<int>{1, 0, 2}, std::vector<int>{0, 1, 0}}) {
    parquet::WriterOptions options;
    options.compression = parquet::CompressionCodec::kSnappy;
    options.row_group_rows = 2;
    for (const auto& kv : model->metadata().key_value_metadata) {
      options.key_value_metadata.push_back(kv);
    }
    auto writer = parquet::ParquetWriter::Open(fs_, "/out/unsorted.parquet", model->schema(), options);
    ASSERT_TRUE(writer.ok());
    for (int i : order) {
      for (const Value& record : records[i]) ASSERT_TRUE((*writer)->WriteRow(record).ok());
    }
    ASSERT_TRUE((*writer)->Close().ok());

    auto inputs = OpenEnvelopeFiles(fs_, {"/out/unsorted.parquet"}, ReadOptions{});
    ASSERT_TRUE(inputs.ok()) << inputs.status().ToString();
    // The error comes when the offending partition starts, before the one
    // it follows is handed on.
    FoldPartition partition;
    Result<bool> more = true;
    std::vector<std::string> read;
    while (more.ok() && *more) {
      more = inputs->sources[0]->Next(&partition);
      if (more.ok() && *more) read.push_back(partition.key);
    }
    ASSERT_FALSE(more.ok());
    EXPECT_EQ(read.size(), order[0] == 0 ? 1u : 0u);
    EXPECT_EQ(more.status().kind(), StatusKind::kCorruption);
    EXPECT_TRUE(StartsWith(more.status().message(), "/out/unsorted.parquet: partition 0x" + ToHex(keys[0])))
        << more.status().ToString();
    EXPECT_NE(more.status().message().find("not in token order"), std::string::npos);

    // Read whole (as v1 files are), the unsorted file folds: sorted when opened.
    if (order[0] == 1) {
      ReadOptions whole;
      whole.stream_own_files = false;
      EXPECT_EQ(ReadBack("/out/unsorted.parquet", whole).size(), 3u);
    }
  }
}

TEST_F(RoundTripTest, BadFilesAreNamed) {
  fs_.AddFile("/in/garbage.parquet", "not parquet at all");
  auto inputs = OpenEnvelopeFiles(fs_, {"/in/garbage.parquet"}, ReadOptions{});
  ASSERT_FALSE(inputs.ok());
  EXPECT_TRUE(StartsWith(inputs.status().message(), "/in/garbage.parquet: "));

  // A Parquet file without our footer keys.
  parquet::Schema plain;
  plain.fields = {parquet::Field::Int32("x", parquet::Repetition::kRequired, std::nullopt)};
  for (const char* version : {"", "2"}) {
    parquet::WriterOptions options;
    if (*version) options.key_value_metadata.push_back({kVersionKey, version});
    auto writer = parquet::ParquetWriter::Open(fs_, "/in/plain.parquet", plain, options);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->WriteRow(Value::Struct({Value::Int32(1)})).ok());
    ASSERT_TRUE((*writer)->Close().ok());
    inputs = OpenEnvelopeFiles(fs_, {"/in/plain.parquet"}, ReadOptions{});
    ASSERT_FALSE(inputs.ok());
    EXPECT_TRUE(StartsWith(inputs.status().message(), "/in/plain.parquet: ")) << inputs.status().ToString();
    EXPECT_NE(
        inputs.status().message().find(*version ? "unknown envelope version 2" : "cqlite.delta.version"),
        std::string::npos)
        << inputs.status().ToString();
  }

  // A v1 file without --schema.
  parquet::WriterOptions options;
  options.key_value_metadata.push_back({kVersionKey, kVersion});
  auto writer = parquet::ParquetWriter::Open(fs_, "/in/v1.parquet", plain, options);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Close().ok());
  inputs = OpenEnvelopeFiles(fs_, {"/in/v1.parquet"}, ReadOptions{});
  ASSERT_FALSE(inputs.ok());
  EXPECT_NE(inputs.status().message().find("--schema"), std::string::npos);
  // With a schema that the file does not match.
  fs_.AddFile("/in/t.cql", "CREATE TABLE ks.t (k int PRIMARY KEY, v text);");
  inputs = OpenEnvelopeFiles(fs_, {"/in/v1.parquet"}, ReadOptions{"/in/t.cql", ""});
  ASSERT_FALSE(inputs.ok());
  EXPECT_NE(inputs.status().message().find("column 'k' is missing"), std::string::npos)
      << inputs.status().ToString();
}

TEST_F(RoundTripTest, CollidingColumnsAreRefusedBeforeWriting) {
  auto table = ParseCqlTableSchema("CREATE TABLE ks.t (k int PRIMARY KEY, __ts bigint);");
  ASSERT_TRUE(table.ok());
  auto writer = EnvelopeWriter::Open(fs_, "/out/b.parquet", *table, generation_, ExportOptions{});
  ASSERT_FALSE(writer.ok());
  EXPECT_FALSE(fs_.Exists("/out/b.parquet"));
}


// ---------------------------------------------------------------------------
// Chains of files and merged facts files

std::string Describe(const FoldedPartition& p) {
  std::string out = StrCat(ToHex(p.key), p.has_static_row ? " static " + Describe(p.static_row) : "", ":");
  for (const FoldRow& row : p.rows) out += " " + Describe(row);
  return out;
}

class ChainTest : public RoundTripTest {
 protected:
  // Generation `g` of the table: the partitions of keys[i] for every i with
  // i % (g + 2) != 1, written with content i + 7 * g, so that generations
  // overlap on some keys and differ in what they hold for them.
  void WriteGeneration(const std::string& path, int g, const std::vector<std::string>& keys) {
    auto writer = Open(path);
    for (size_t i = 0; i < keys.size(); ++i) {
      if (static_cast<int>(i) % (g + 2) == 1) continue;
      WritePartition(*writer, keys[i], static_cast<int>(i) + 7 * g);
    }
    auto records = writer->Close();
    ASSERT_TRUE(records.ok()) << records.status().ToString();
    records_ += *records;
  }

  // The fold of the chains, as of a time between the records' deletions.
  std::vector<std::string> Fold(const std::vector<std::vector<std::string>>& chains) {
    auto inputs = OpenEnvelopeChains(fs_, chains, {});
    EXPECT_TRUE(inputs.ok()) << inputs.status().ToString();
    if (!inputs.ok()) return {};
    auto fold = TableFold::Make(*inputs->schema, inputs->partitioner, std::move(inputs->sources), 1700000150);
    EXPECT_TRUE(fold.ok());
    std::vector<std::string> out;
    FoldedPartition partition;
    while (true) {
      auto more = (*fold)->Next(&partition);
      EXPECT_TRUE(more.ok()) << more.status().ToString();
      if (!more.ok() || !*more) break;
      out.push_back(Describe(partition));
    }
    return out;
  }

  // The generations' files merged as merged files of the earlier kind were:
  // every record kept, a partition once per generation in input order, and
  // the generation column and count.
  void WriteRecordKeptMerge(const std::vector<std::string>& inputs, const std::string& path) {
    std::vector<std::vector<Value>> records;
    parquet::WriterOptions options;
    for (const std::string& input : inputs) {
      auto reader = parquet::ParquetReader::Open(fs_, input);
      ASSERT_TRUE(reader.ok());
      auto rows = (*reader)->ReadAll();
      ASSERT_TRUE(rows.ok());
      records.push_back(std::move(*rows));
      if (options.key_value_metadata.empty()) options.key_value_metadata = (*reader)->metadata().key_value_metadata;
    }
    options.key_value_metadata.push_back({kGenerationsKey, std::to_string(inputs.size())});
    EnvelopeLayout layout;
    parquet::Schema schema = BuildEnvelopeSchema(table_, kDefaultPrefix, Flavor::kCqlite, &layout, /*merged=*/true);
    auto writer = parquet::ParquetWriter::Open(fs_, path, schema, options);
    ASSERT_TRUE(writer.ok());
    std::vector<size_t> next(inputs.size(), 0);
    PartitionKeyLess less{Partitioner::kMurmur3};
    auto key_of = [&](size_t i) { return records[i][next[i]].fields()[layout.partition_key].bytes(); };
    while (true) {
      std::optional<size_t> lowest;
      for (size_t i = 0; i < inputs.size(); ++i) {
        if (next[i] < records[i].size() && (!lowest || less(key_of(i), key_of(*lowest)))) lowest = i;
      }
      if (!lowest) break;
      const std::string key = key_of(*lowest);
      for (size_t i = 0; i < inputs.size(); ++i) {
        while (next[i] < records[i].size() && key_of(i) == key) {
          std::vector<Value> fields = records[i][next[i]++].fields();
          fields.push_back(Value::Int32(static_cast<int32_t>(i)));
          ASSERT_TRUE((*writer)->WriteRow(Value::Struct(std::move(fields))).ok());
        }
      }
    }
    ASSERT_TRUE((*writer)->Close().ok());
  }

  int64_t records_ = 0;
};

// A generation written as several files, read as one chain, is the same
// source as the generation in one file; no partition is split between files.
TEST_F(ChainTest, SegmentedGenerationReadsAsOneSource) {
  std::vector<std::string> keys = KeysInTokenOrder(30);
  ExportOptions options;
  options.row_group_rows = 4;
  SegmentedEnvelopeWriter segmented(
      fs_, table_, generation_, [](int i) { return StrCat("/facts/g-", i, ".parquet"); }, 25, options);
  auto whole = Open("/facts/whole.parquet", options);
  for (size_t i = 0; i < keys.size(); ++i) {
    WritePartition(segmented, keys[i], static_cast<int>(i));
    WritePartition(*whole, keys[i], static_cast<int>(i));
  }
  auto files = segmented.Finish();
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  ASSERT_TRUE(whole->Close().ok());
  ASSERT_GE(files->size(), 4u);
  EXPECT_EQ(segmented.records(), whole->records());
  size_t partitions_in_files = 0;
  for (size_t f = 0; f < files->size(); ++f) {
    EXPECT_EQ((*files)[f], StrCat("/facts/g-", f, ".parquet"));
    auto records = ReadBack((*files)[f]);  // each file is a complete envelope file
    partitions_in_files += records.size();
  }
  EXPECT_EQ(partitions_in_files, keys.size());  // no partition in two files

  auto chain = OpenEnvelopeChains(fs_, {*files}, {});
  ASSERT_TRUE(chain.ok()) << chain.status().ToString();
  EXPECT_FALSE(chain->sources[0]->repeats_partitions());
  std::vector<std::string> from_chain, from_whole;
  FoldPartition partition;
  while (*chain->sources[0]->Next(&partition)) from_chain.push_back(Describe(partition));
  for (const FoldPartition& p : ReadBack("/facts/whole.parquet")) from_whole.push_back(Describe(p));
  EXPECT_EQ(from_chain, from_whole);
  EXPECT_EQ(from_chain.size(), keys.size());

  // Out of order across files: the second file read before the first.
  std::vector<std::string> swapped = {(*files)[1], (*files)[0]};
  auto bad = OpenEnvelopeChains(fs_, {swapped}, {});
  ASSERT_TRUE(bad.ok());
  Result<bool> more = true;
  while (more.ok() && *more) more = bad->sources[0]->Next(&partition);
  ASSERT_FALSE(more.ok());
  EXPECT_TRUE(StartsWith(more.status().message(), (*files)[0] + ": partition 0x")) << more.status().ToString();
}

TEST_F(ChainTest, AFailedSegmentedWriteLeavesNoFile) {
  std::vector<std::string> keys = KeysInTokenOrder(6);
  {
    SegmentedEnvelopeWriter segmented(
        fs_, table_, generation_, [](int i) { return StrCat("/facts/g-", i, ".parquet"); }, 5, ExportOptions{});
    for (size_t i = 0; i < 4; ++i) WritePartition(segmented, keys[i], static_cast<int>(i));
    PartitionHeader header;
    header.key = keys[0];  // out of order: the export fails here
    EXPECT_FALSE(segmented.OnPartitionStart(header).ok());
    EXPECT_TRUE(fs_.Exists("/facts/g-0.parquet"));
  }
  for (int i = 0; i < 4; ++i) {
    std::string path = StrCat("/facts/g-", i, ".parquet");
    EXPECT_FALSE(fs_.Exists(path)) << path;
    EXPECT_FALSE(fs_.Exists(TemporaryPath(path))) << path;
  }
}

// Folding a merged facts file gives exactly what folding its inputs gives,
// whatever the grouping: merged all at once, merged in steps, merged with
// plain generations beside it.
TEST_F(ChainTest, MergedFactsFoldAsTheirInputs) {
  std::vector<std::string> keys = KeysInTokenOrder(24);
  std::vector<std::string> generations;
  for (int g = 0; g < 4; ++g) {
    generations.push_back(StrCat("/facts/gen-", g, ".parquet"));
    WriteGeneration(generations.back(), g, keys);
  }
  std::vector<std::vector<std::string>> separate;
  for (const std::string& path : generations) separate.push_back({path});
  const std::vector<std::string> expected = Fold(separate);
  ASSERT_GE(expected.size(), keys.size() - 2);

  MergeOptions options;
  options.row_group_rows = 5;
  options.max_records_per_file = 40;
  auto all = MergeFacts(fs_, separate, [](int i) { return StrCat("/facts/all-", i, ".parquet"); }, options);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->generations, 4);
  // Reconciled: the partitions the generations share are one.
  EXPECT_LT(all->records, records_);
  ASSERT_GE(all->files.size(), 3u);
  auto inputs = OpenEnvelopeChains(fs_, {all->files}, {});
  ASSERT_TRUE(inputs.ok()) << inputs.status().ToString();
  EXPECT_FALSE(inputs->sources[0]->repeats_partitions());
  auto footer = parquet::ParquetReader::Open(fs_, all->files.back());
  ASSERT_TRUE(footer.ok());
  bool has_count = false;
  for (const auto& kv : (*footer)->metadata().key_value_metadata) {
    if (kv.key == kMergedGenerationsKey) has_count = kv.value == std::optional<std::string>("4");
  }
  EXPECT_TRUE(has_count);
  EXPECT_EQ(Fold({all->files}), expected);

  // In steps: (0, 1) merged, then merged with 2; 3 stays a plain generation.
  auto first = MergeFacts(fs_, {separate[0], separate[1]}, [](int i) { return StrCat("/facts/a-", i, ".parquet"); },
                          options);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(Fold({first->files, separate[2], separate[3]}), expected);
  auto second = MergeFacts(fs_, {first->files, separate[2]}, [](int i) { return StrCat("/facts/b-", i, ".parquet"); },
                           options);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->generations, 3);
  EXPECT_EQ(Fold({second->files, separate[3]}), expected);
  EXPECT_EQ(Fold({separate[3], second->files}), expected);
  // Merging a merged set with itself is a fold of each generation twice:
  // idempotent.
  auto twice = MergeFacts(fs_, {all->files, all->files}, [](int i) { return StrCat("/facts/c-", i, ".parquet"); },
                          options);
  ASSERT_TRUE(twice.ok()) << twice.status().ToString();
  EXPECT_EQ(twice->generations, 8);
  EXPECT_EQ(Fold({twice->files}), expected);

  // Merged files of the earlier kind fold as their inputs, and merge on.
  WriteRecordKeptMerge({generations[0], generations[1]}, "/facts/kept.parquet");
  EXPECT_EQ(Fold({{"/facts/kept.parquet"}, separate[2], separate[3]}), expected);
  auto from_kept = MergeFacts(fs_, {{"/facts/kept.parquet"}, separate[2]},
                              [](int i) { return StrCat("/facts/d-", i, ".parquet"); }, options);
  ASSERT_TRUE(from_kept.ok()) << from_kept.status().ToString();
  EXPECT_EQ(from_kept->generations, 3);
  EXPECT_EQ(Fold({from_kept->files, separate[3]}), expected);
}

// A merged file of the earlier kind whose generations of one partition come
// out of order, or name a generation it does not hold, is corrupt.
TEST_F(ChainTest, MergedFilesWithBadGenerationsAreRefused) {
  std::vector<std::string> keys = KeysInTokenOrder(4);
  WriteGeneration("/facts/gen-0.parquet", 0, keys);
  WriteGeneration("/facts/gen-1.parquet", 1, keys);
  WriteRecordKeptMerge({"/facts/gen-0.parquet", "/facts/gen-1.parquet"}, "/facts/m-0.parquet");
  auto reader = parquet::ParquetReader::Open(fs_, "/facts/m-0.parquet");
  ASSERT_TRUE(reader.ok());
  auto rows = (*reader)->ReadAll();
  ASSERT_TRUE(rows.ok());
  const int generation_field = static_cast<int>((*reader)->schema().fields.size()) - 1;
  ASSERT_EQ((*reader)->schema().fields[generation_field].name, "__generation");
  for (int32_t bad : {-1, 2, 5}) {
    SCOPED_TRACE(bad);
    parquet::WriterOptions options;
    options.key_value_metadata = (*reader)->metadata().key_value_metadata;
    auto writer = parquet::ParquetWriter::Open(fs_, "/facts/bad.parquet", (*reader)->schema(), options);
    ASSERT_TRUE(writer.ok());
    for (size_t r = 0; r < rows->size(); ++r) {
      std::vector<Value> fields = (*rows)[r].fields();
      if (bad != 5 && r == rows->size() - 1) fields[generation_field] = Value::Int32(bad);
      ASSERT_TRUE((*writer)->WriteRow(Value::Struct(std::move(fields))).ok());
    }
    ASSERT_TRUE((*writer)->Close().ok());
    if (bad == 5) {
      // Rewrite with every record's generation swapped: a partition that
      // both generations hold then comes as generation 1, then 0.
      auto again = parquet::ParquetWriter::Open(fs_, "/facts/bad.parquet", (*reader)->schema(), options);
      ASSERT_TRUE(again.ok());
      for (const Value& row : *rows) {
        std::vector<Value> fields = row.fields();
        fields[generation_field] = Value::Int32(1 - fields[generation_field].int32_value());
        ASSERT_TRUE((*again)->WriteRow(Value::Struct(std::move(fields))).ok());
      }
      ASSERT_TRUE((*again)->Close().ok());
    }
    auto inputs = OpenEnvelopeChains(fs_, {{"/facts/bad.parquet"}}, {});
    ASSERT_TRUE(inputs.ok()) << inputs.status().ToString();
    FoldPartition partition;
    Result<bool> more = true;
    while (more.ok() && *more) more = inputs->sources[0]->Next(&partition);
    ASSERT_FALSE(more.ok());
    EXPECT_EQ(more.status().kind(), StatusKind::kCorruption);
    EXPECT_TRUE(StartsWith(more.status().message(), "/facts/bad.parquet: ")) << more.status().ToString();
  }
}

}  // namespace
}  // namespace cqlite::envelope
