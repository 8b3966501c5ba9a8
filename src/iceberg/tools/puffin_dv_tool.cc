// Writes and reads Puffin files of deletion vectors with our own code, for the
// independent-reader tests (tests/integration/test_puffin_iceberg_java.py).
//
//   puffin_dv_tool write <out.puffin> <vectors.json>
//       vectors.json: [{"referenced_data_file": "...", "positions": [0, 5, ...]}, ...]
//       prints the manifest fields of each written vector as a JSON list
//   puffin_dv_tool read <file.puffin>
//       prints {"properties": {...}, "blobs": [{"type", "offset", "length",
//       "snapshot_id", "sequence_number", "properties", "positions"}]}
//       (positions only for deletion-vector-v1 blobs)
//
// Errors go to stderr with exit status 1.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "iceberg/deletion_vector.h"
#include "iceberg/puffin.h"

namespace cqlite::iceberg {
namespace {

using json = nlohmann::json;

Status Write(const std::string& out_path, const std::string& spec_path) {
  FileSystem& fs = LocalFileSystem();
  ASSIGN_OR_RETURN(std::string text, fs.ReadFileToString(spec_path));
  json spec = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!spec.is_array()) return Status::InvalidArgument(spec_path + ": expected a JSON list of vectors");
  std::vector<std::pair<std::string, DeletionVector>> vectors;
  for (const json& entry : spec) {
    if (!entry.is_object() || !entry.contains("referenced_data_file") ||
        !entry["referenced_data_file"].is_string() || !entry.contains("positions") ||
        !entry["positions"].is_array()) {
      return Status::InvalidArgument(spec_path + ": each vector needs referenced_data_file and positions");
    }
    DeletionVector vector;
    for (const json& position : entry["positions"]) {
      if (!position.is_number_integer())
        return Status::InvalidArgument(spec_path + ": a position is not an integer");
      RETURN_IF_ERROR(vector.Delete(position.get<int64_t>()));
    }
    vectors.emplace_back(entry["referenced_data_file"].get<std::string>(), std::move(vector));
  }
  ASSIGN_OR_RETURN(auto files, WriteDeletionVectorFile(fs, out_path, vectors));
  json out = json::array();
  for (const DeletionVectorFile& file : files) {
    out.push_back({{"file_path", file.file_path},
                   {"file_size_in_bytes", file.file_size_in_bytes},
                   {"referenced_data_file", file.referenced_data_file},
                   {"content_offset", file.content_offset},
                   {"content_size_in_bytes", file.content_size_in_bytes},
                   {"record_count", file.record_count}});
  }
  std::cout << out.dump() << "\n";
  return Status::OK();
}

Status Read(const std::string& path) {
  ASSIGN_OR_RETURN(auto reader, PuffinReader::Open(LocalFileSystem(), path));
  json blobs = json::array();
  for (const PuffinBlobMetadata& blob : reader->blobs()) {
    json entry = {{"type", blob.type},
                  {"offset", blob.offset},
                  {"length", blob.length},
                  {"snapshot_id", blob.snapshot_id},
                  {"sequence_number", blob.sequence_number},
                  {"properties", blob.properties}};
    if (blob.type == kDeletionVectorBlobType) {
      ASSIGN_OR_RETURN(std::string bytes, reader->ReadBlob(blob));
      ASSIGN_OR_RETURN(DeletionVector vector, DeletionVector::DeserializeBlob(
                                                  bytes, path + " blob at " + std::to_string(blob.offset)));
      entry["positions"] = vector.Positions();
    }
    blobs.push_back(std::move(entry));
  }
  json out = {{"properties", reader->properties()}, {"blobs", std::move(blobs)}};
  std::cout << out.dump() << "\n";
  return Status::OK();
}

}  // namespace
}  // namespace cqlite::iceberg

int main(int argc, char** argv) {
  cqlite::Status st;
  if (argc == 4 && std::string(argv[1]) == "write") {
    st = cqlite::iceberg::Write(argv[2], argv[3]);
  } else if (argc == 3 && std::string(argv[1]) == "read") {
    st = cqlite::iceberg::Read(argv[2]);
  } else {
    std::cerr << "usage: puffin_dv_tool write <out.puffin> <vectors.json> | read <file.puffin>\n";
    return 2;
  }
  if (!st.ok()) {
    std::cerr << "puffin_dv_tool: " << st.ToString() << "\n";
    return 1;
  }
  return 0;
}
