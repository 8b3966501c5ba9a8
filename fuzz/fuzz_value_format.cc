// Fuzzes the CQL value renderers (ValueToJson, ValueToString and the helpers
// behind them). Byte 0 picks the type from a table covering every native type
// and nested collections, tuples, user types and vectors; the rest is the
// serialized value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "cassandra/cql_schema.h"
#include "cassandra/cql_type.h"
#include "cassandra/value_format.h"

namespace {

using namespace cqlite;

std::vector<CqlTypePtr> Types() {
  const std::string m = "org.apache.cassandra.db.marshal.";
  // address: street text, zip int, tags frozen<set<text>>
  const std::string udt = m + "UserType(ks,61646472657373,737472656574:" + m + "UTF8Type,7a6970:" + m +
                          "Int32Type,74616773:" + m + "FrozenType(" + m + "SetType(" + m + "UTF8Type)))";
  std::vector<CqlTypePtr> types;
  for (const char* cql :
       {"ascii", "bigint", "blob", "boolean", "counter", "date", "decimal", "double", "duration", "float", "inet",
        "int", "smallint", "text", "time", "timestamp", "timeuuid", "tinyint", "uuid", "varint",
        "list<int>", "set<text>", "map<text, int>", "frozen<list<varint>>", "frozen<set<decimal>>",
        "frozen<map<timestamp, frozen<list<inet>>>>", "frozen<list<frozen<map<text, frozen<set<uuid>>>>>>",
        "tuple<int, text, decimal>", "frozen<tuple<varint, duration, frozen<list<blob>>>>",
        "tuple<tuple<int, tuple<text, boolean>>, map<date, time>>", "vector<float, 3>", "vector<text, 2>",
        "vector<varint, 2>", "vector<frozen<list<int>>, 2>", "map<frozen<tuple<int, text>>, vector<double, 2>>",
        "'org.apache.cassandra.db.marshal.BytesType'"}) {
    auto t = ParseCqlType(cql);
    if (!t.ok()) abort();  // a mistake in this table
    types.push_back(*t);
  }
  for (const std::string& marshal :
       {udt, m + "FrozenType(" + udt + ")", m + "ListType(" + m + "FrozenType(" + udt + "))",
        m + "CompositeType(" + m + "Int32Type," + m + "UTF8Type," + m + "TimeUUIDType)",
        m + "CompositeType(" + m + "DecimalType," + m + "FrozenType(" + m + "MapType(" + m + "UTF8Type," + m +
            "InetAddressType)))",
        m + "ReversedType(" + m + "IntegerType)", m + "EmptyType", m + "CounterColumnType",
        m + "LexicalUUIDType", m + "SimpleDateType", m + "DurationType",
        m + "VectorType(" + m + "FloatType,4)"}) {
    auto t = ParseMarshalType(marshal);
    if (!t.ok()) abort();
    types.push_back(*t);
  }
  return types;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<CqlTypePtr> types = Types();
  if (size < 1) return 0;
  const CqlType& type = *types[data[0] % types.size()];
  std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  (void)ValueToJson(type, bytes);
  (void)ValueToString(type, bytes);
  (void)PartitionKeyStrings(type, bytes);
  if (type.kind == CqlKind::kComposite) (void)SplitCompositeKey(type, bytes);
  (void)ParseCounterContext(bytes);
  (void)CounterTotal(bytes);
  (void)QuoteAsJsonString(bytes);
  (void)VarintToDecimal(bytes);
  if (bytes.size() >= 8) {
    double d;
    std::memcpy(&d, bytes.data(), 8);
    (void)JavaDoubleToString(d);
    float f;
    std::memcpy(&f, bytes.data(), 4);
    (void)JavaFloatToString(f);
  }
  return 0;
}
