#include "avro/datum.h"

#include <cstring>

#include "util/strings.h"

namespace cqlite::avro {

Datum Datum::Union(int32_t branch, Datum value) {
  std::vector<Datum> inner;
  inner.push_back(std::move(value));
  Datum datum(Type::kUnion, std::move(inner));
  datum.union_branch_ = branch;
  return datum;
}

bool Datum::operator==(const Datum& other) const {
  if (type_ != other.type_ || union_branch_ != other.union_branch_) return false;
  switch (type_) {
    case Type::kFloat: {
      float a = float_value(), b = other.float_value();
      return std::memcmp(&a, &b, sizeof a) == 0;
    }
    case Type::kDouble: {
      double a = double_value(), b = other.double_value();
      return std::memcmp(&a, &b, sizeof a) == 0;
    }
    default:
      return value_ == other.value_;
  }
}

const Datum* FindField(const Schema& schema, const Datum& record, std::string_view name) {
  int index = schema.FieldIndex(name);
  if (index < 0 || record.type() != Type::kRecord || static_cast<size_t>(index) >= record.fields().size()) {
    return nullptr;
  }
  return &record.fields()[index];
}

Json DatumToJson(const Schema& schema, const Datum& datum) {
  switch (datum.type()) {
    case Type::kNull:
      return Json(nullptr);
    case Type::kBoolean:
      return Json(datum.boolean_value());
    case Type::kInt:
      return Json(datum.int_value());
    case Type::kLong:
      return Json(datum.long_value());
    case Type::kFloat:
      return Json(datum.float_value());
    case Type::kDouble:
      return Json(datum.double_value());
    case Type::kString:
      return Json(datum.bytes());
    case Type::kBytes:
    case Type::kFixed:
      return Json(ToHex(datum.bytes()));
    case Type::kEnum:
      return Json(schema.symbols.at(datum.int_value()));
    case Type::kArray: {
      Json out = Json::array();
      for (const Datum& item : datum.items()) out.push_back(DatumToJson(schema.items(), item));
      return out;
    }
    case Type::kMap: {
      Json out = Json::object();
      for (const auto& [key, value] : datum.map_entries()) out[key] = DatumToJson(schema.values(), value);
      return out;
    }
    case Type::kRecord: {
      Json out = Json::object();
      for (size_t i = 0; i < schema.fields.size() && i < datum.fields().size(); ++i) {
        out[schema.fields[i].name] = DatumToJson(schema.fields[i].schema, datum.fields()[i]);
      }
      return out;
    }
    case Type::kUnion:
      return DatumToJson(schema.children.at(datum.union_branch()), datum.union_value());
  }
  return Json(nullptr);
}

}  // namespace cqlite::avro
