#include "net/s3_file_system.h"

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <map>
#include <mutex>
#include <set>

#include "io/temp_dir_testing.h"
#include "net/loopback_http_server_testing.h"
#include "util/strings.h"

namespace cqlite::net {
namespace {

constexpr char kKeyId[] = "AKIDTEST";
constexpr char kSecret[] = "test-secret-never-printed";

std::string PercentDecode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      out.push_back(static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

// An S3 store in memory, path-style, that checks each request's signature
// against the credentials it knows (recomputed from the request as
// received), and can be told to fail some requests.
class FakeS3 {
 public:
  struct Parsed {
    std::string bucket, key;
    std::map<std::string, std::string> query;
  };

  // Called first for each request; an answer with status != 0 is sent instead.
  std::function<ScriptedAnswer(const ReceivedRequest&, const Parsed&)> fault;

  // Called after a request took effect: true drops the connection instead of answering.
  std::function<bool(const ReceivedRequest&, const Parsed&)> lose_answer;

  ScriptedAnswer Handle(const ReceivedRequest& r) {
    std::lock_guard<std::mutex> lock(mu_);
    Parsed p = Parse(r.target);
    if (fault) {
      ScriptedAnswer a = fault(r, p);
      if (a.status != 0 || a.drop) return a;
    }
    ScriptedAnswer a = HandleLocked(r, p);
    if (lose_answer && lose_answer(r, p)) a.drop = true;
    return a;
  }

 private:
  ScriptedAnswer HandleLocked(const ReceivedRequest& r, Parsed& p) {
    if (std::string problem = CheckSignature(r, p); !problem.empty()) {
      return Error(403, "SignatureDoesNotMatch", problem);
    }
    if (p.bucket != "bucket") return Error(404, "NoSuchBucket", "The specified bucket does not exist");
    const std::string name = p.key;
    if (r.method == "GET" && name.empty()) return List(p);
    if (r.method == "HEAD" || r.method == "GET") {
      auto it = objects_.find(name);
      if (it == objects_.end()) return Error(404, "NoSuchKey", "The specified key does not exist.");
      ScriptedAnswer a{200, it->second, "application/octet-stream"};
      a.headers = {{"Last-Modified", "Wed, 21 Oct 2015 07:28:00 GMT"}};
      auto range = r.headers.find("range");
      if (r.method == "GET" && range != r.headers.end()) {
        std::string spec = range->second.substr(6);
        size_t first = std::stoul(spec.substr(0, spec.find('-')));
        size_t last = std::stoul(spec.substr(spec.find('-') + 1));
        a.status = 206;
        a.body = it->second.substr(first, last - first + 1);
      }
      return a;
    }
    if (r.method == "PUT" && p.query.count("uploadId")) {
      auto upload = uploads_.find(p.query["uploadId"]);
      if (upload == uploads_.end()) return Error(404, "NoSuchUpload", "no such upload");
      int number = std::stoi(p.query["partNumber"]);
      upload->second[number] = r.body;
      ++parts_received;
      ScriptedAnswer a{200, "", ""};
      a.headers = {{"ETag", StrCat("\"etag-", number, "-", r.body.size(), "\"")}};
      return a;
    }
    if (r.method == "PUT" && r.headers.count("x-amz-copy-source")) {
      std::string source = PercentDecode(r.headers.at("x-amz-copy-source"));
      std::string source_key = source.substr(std::string("/bucket/").size());
      auto it = objects_.find(source_key);
      if (it == objects_.end()) return Error(404, "NoSuchKey", "The specified key does not exist.");
      objects_[name] = it->second;
      return ScriptedAnswer{200, "<CopyObjectResult><ETag>\"x\"</ETag></CopyObjectResult>", "application/xml"};
    }
    if (r.method == "PUT") {
      objects_[name] = r.body;
      ++puts;
      return ScriptedAnswer{200, "", ""};
    }
    if (r.method == "POST" && p.query.count("uploads")) {
      std::string id = StrCat("upload-", ++next_upload_);
      uploads_[id];
      upload_keys_[id] = name;
      return ScriptedAnswer{200, StrCat("<InitiateMultipartUploadResult><UploadId>", id,
                                        "</UploadId></InitiateMultipartUploadResult>"),
                            "application/xml"};
    }
    if (r.method == "POST" && p.query.count("uploadId")) {
      auto upload = uploads_.find(p.query["uploadId"]);
      if (upload == uploads_.end()) return Error(404, "NoSuchUpload", "no such upload");
      std::string whole;
      for (const auto& [number, bytes] : upload->second) whole += bytes;
      // The parts listed must be those received, with their ETags.
      for (const auto& [number, bytes] : upload->second) {
        if (r.body.find(StrCat("<PartNumber>", number, "</PartNumber><ETag>\"etag-", number, "-", bytes.size())) ==
            std::string::npos) {
          return Error(400, "InvalidPart", StrCat("part ", number, " missing from the list"));
        }
      }
      objects_[name] = whole;
      uploads_.erase(upload);
      ++completed;
      return ScriptedAnswer{200, "<CompleteMultipartUploadResult/>", "application/xml"};
    }
    if (r.method == "DELETE" && p.query.count("uploadId")) {
      uploads_.erase(p.query["uploadId"]);
      ++aborted;
      return ScriptedAnswer{204, "", ""};
    }
    if (r.method == "DELETE") {
      objects_.erase(name);
      return ScriptedAnswer{204, "", ""};
    }
    return Error(400, "NotImplemented", "not in the fake");
  }

 public:
  std::map<std::string, std::string> objects() {
    std::lock_guard<std::mutex> lock(mu_);
    return objects_;
  }
  void Put(const std::string& key, std::string value) {
    std::lock_guard<std::mutex> lock(mu_);
    objects_[key] = std::move(value);
  }
  size_t open_uploads() {
    std::lock_guard<std::mutex> lock(mu_);
    return uploads_.size();
  }

  std::atomic<int> puts{0}, parts_received{0}, completed{0}, aborted{0};
  std::string secret = kSecret;

 private:
  static ScriptedAnswer Error(int status, const std::string& code, const std::string& message) {
    return ScriptedAnswer{status,
                          StrCat("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>", code, "</Code><Message>",
                                 message, "</Message><RequestId>1</RequestId></Error>"),
                          "application/xml"};
  }

  static Parsed Parse(const std::string& target) {
    Parsed p;
    std::string path = target.substr(0, target.find('?'));
    if (target.find('?') != std::string::npos) {
      for (const std::string& pair : Split(target.substr(target.find('?') + 1), '&')) {
        size_t eq = pair.find('=');
        p.query[PercentDecode(pair.substr(0, eq))] = eq == std::string::npos ? "" : PercentDecode(pair.substr(eq + 1));
      }
    }
    path = PercentDecode(path.substr(1));
    p.bucket = path.substr(0, path.find('/'));
    if (path.find('/') != std::string::npos) p.key = path.substr(path.find('/') + 1);
    return p;
  }

  // The signature recomputed from the request as received: "" when it matches.
  std::string CheckSignature(const ReceivedRequest& r, const Parsed& p) {
    auto auth = r.headers.find("authorization");
    if (auth == r.headers.end()) return "no Authorization";
    const std::string& value = auth->second;
    size_t credential = value.find("Credential=");
    size_t signed_at = value.find("SignedHeaders=");
    size_t signature_at = value.find("Signature=");
    if (credential == std::string::npos || signed_at == std::string::npos || signature_at == std::string::npos) {
      return "malformed Authorization";
    }
    std::string key_id = value.substr(credential + 11, value.find('/', credential) - credential - 11);
    if (key_id != kKeyId) return "unknown access key";
    std::string signed_headers = value.substr(signed_at + 14, value.find(',', signed_at) - signed_at - 14);
    SigningInput input;
    input.method = r.method;
    input.canonical_uri = r.target.substr(0, r.target.find('?'));
    for (const auto& [name, v] : p.query) input.query.emplace_back(name, v);
    for (const std::string& name : Split(signed_headers, ';')) {
      auto h = r.headers.find(name);
      if (h == r.headers.end()) return "a signed header is missing";
      input.headers.emplace_back(name, h->second);
    }
    if (r.headers.count("x-amz-content-sha256") == 0 || r.headers.at("x-amz-content-sha256") != Sha256Hex(r.body)) {
      return "the payload hash is not the body's";
    }
    input.payload_hash = r.headers.at("x-amz-content-sha256");
    input.amz_date = r.headers.at("x-amz-date");
    input.region = "us-east-1";
    AwsCredentials credentials{kKeyId, secret, "", ""};
    if (SignV4(input, credentials).signature != value.substr(signature_at + 10)) return "signature mismatch";
    return "";
  }

  ScriptedAnswer List(const Parsed& p) {
    auto q = p.query;
    std::string prefix = q["prefix"];
    std::string delimiter = q["delimiter"];
    size_t max_keys = q.count("max-keys") ? std::stoul(q["max-keys"]) : 2;  // small pages, to test paging
    std::string after = q["continuation-token"];
    std::string contents, prefixes;
    std::set<std::string> common;
    size_t n = 0;
    std::string last;
    bool truncated = false;
    for (const auto& [key, value] : objects_) {
      if (!StartsWith(key, prefix) || (!after.empty() && key <= after)) continue;
      std::string rest = key.substr(prefix.size());
      size_t slash = delimiter.empty() ? std::string::npos : rest.find(delimiter);
      if (n == max_keys) {
        truncated = true;
        break;
      }
      if (slash != std::string::npos) {
        std::string cp = prefix + rest.substr(0, slash + 1);
        if (common.insert(cp).second) {
          prefixes += StrCat("<CommonPrefixes><Prefix>", cp, "</Prefix></CommonPrefixes>");
          ++n;
        }
      } else {
        contents += StrCat("<Contents><Key>", key, "</Key><Size>", value.size(), "</Size></Contents>");
        ++n;
      }
      last = key;
    }
    std::string body = StrCat("<ListBucketResult><Prefix>", prefix, "</Prefix><IsTruncated>",
                              truncated ? "true" : "false", "</IsTruncated>");
    if (truncated) body += StrCat("<NextContinuationToken>", last, "</NextContinuationToken>");
    body += contents + prefixes + "</ListBucketResult>";
    return ScriptedAnswer{200, body, "application/xml"};
  }

  std::mutex mu_;
  std::map<std::string, std::string> objects_;
  std::map<std::string, std::map<int, std::string>> uploads_;
  std::map<std::string, std::string> upload_keys_;
  int next_upload_ = 0;
};

class S3FileSystemTest : public ::testing::Test {
 protected:
  S3FileSystemTest() : server_([this](const ReceivedRequest& r) { return fake_.Handle(r); }) {}

  S3Options Options() {
    S3Options options;
    options.endpoint = server_.Url();
    options.credentials = AwsCredentials{kKeyId, kSecret, "", "the test"};
    options.part_size = 10;
    options.http.connect_timeout_ms = 2'000;
    options.http.request_timeout_ms = 2'000;
    options.http.max_attempts = 3;
    options.http.sleep = [](int) {};
    return options;
  }

  Status Write(S3FileSystem& fs, const std::string& path, const std::vector<std::string>& pieces) {
    ASSIGN_OR_RETURN(auto file, fs.OpenForWrite(path));
    for (const std::string& piece : pieces) RETURN_IF_ERROR(file->Append(piece));
    RETURN_IF_ERROR(file->Sync());
    return file->Close();
  }

  FakeS3 fake_;
  LoopbackHttpServer server_;
};

TEST_F(S3FileSystemTest, ASmallFileIsOnePutAndReadsBackByRanges) {
  ASSERT_TRUE(server_.ok());
  S3FileSystem fs(Options());
  ASSERT_TRUE(fs.CreateDirectories("s3://bucket/wh/ns/t").ok());
  ASSERT_TRUE(Write(fs, "s3://bucket/wh/ns/t/a b$.json", {"0123", "456"}).ok());
  EXPECT_EQ(fake_.puts, 1);
  EXPECT_EQ(fake_.parts_received, 0);
  EXPECT_EQ(fake_.objects().at("wh/ns/t/a b$.json"), "0123456");
  auto file = fs.OpenForRead("s3://bucket/wh/ns/t/a b$.json");
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ((*file)->Size(), 7u);
  uint8_t buffer[5];
  auto n = (*file)->ReadAt(4, std::span<uint8_t>(buffer, 5));
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 3u);  // the end of the object
  EXPECT_EQ(std::string(reinterpret_cast<char*>(buffer), 3), "456");
  EXPECT_EQ(server_.requests().back().headers.at("range"), "bytes=4-6");
  auto whole = fs.ReadFileToString("s3://bucket/wh/ns/t/a b$.json");
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(*whole, "0123456");
  // Path-style, the key encoded as the signature wants it.
  EXPECT_EQ(server_.requests().back().target, "/bucket/wh/ns/t/a%20b%24.json");
  auto missing = fs.OpenForRead("s3://bucket/wh/none");
  EXPECT_EQ(missing.status().kind(), StatusKind::kNotFound);
}

TEST_F(S3FileSystemTest, ALargeFileIsAMultipartUploadVisibleOnlyWhenComplete) {
  S3FileSystem fs(Options());
  auto file = fs.OpenForWrite("s3://bucket/big");
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE((*file)->Append(std::string("abcdefghijklmnopqrstuvwxy")).ok());  // 25 bytes: two parts of 10 go up
  EXPECT_EQ(fake_.parts_received, 2);
  EXPECT_EQ(fake_.objects().count("big"), 0u) << "nothing visible before Close";
  ASSERT_TRUE((*file)->Append(std::string("z")).ok());
  ASSERT_TRUE((*file)->Close().ok());
  EXPECT_EQ(fake_.parts_received, 3);
  EXPECT_EQ(fake_.completed, 1);
  EXPECT_EQ(fake_.puts, 0);
  EXPECT_EQ(fake_.objects().at("big"), "abcdefghijklmnopqrstuvwxyz");
  EXPECT_EQ(fake_.open_uploads(), 0u);
}

TEST_F(S3FileSystemTest, AFileDroppedBeforeCloseLeavesNothingAndAbortsItsUpload) {
  S3FileSystem fs(Options());
  {
    auto file = fs.OpenForWrite("s3://bucket/dropped");
    ASSERT_TRUE(file.ok());
    ASSERT_TRUE((*file)->Append(std::string(35, 'x')).ok());
    EXPECT_EQ(fake_.open_uploads(), 1u);
  }
  EXPECT_EQ(fake_.objects().count("dropped"), 0u);
  EXPECT_EQ(fake_.open_uploads(), 0u);
  EXPECT_EQ(fake_.aborted, 1);
  {
    auto small = fs.OpenForWrite("s3://bucket/small-dropped");
    ASSERT_TRUE(small.ok());
    ASSERT_TRUE((*small)->Append(std::string("abc")).ok());
  }
  EXPECT_TRUE(fake_.objects().empty());
}

TEST_F(S3FileSystemTest, ALostConnectionDuringAPartIsRetried) {
  int drops = 0;
  fake_.fault = [&drops](const ReceivedRequest& r, const FakeS3::Parsed& p) {
    ScriptedAnswer a{0, "", ""};
    if (r.method == "PUT" && p.query.count("partNumber") && p.query.at("partNumber") == "2" && drops++ == 0) {
      a.drop = true;
    }
    return a;
  };
  S3FileSystem fs(Options());
  ASSERT_TRUE(Write(fs, "s3://bucket/retried", {std::string(25, 'r')}).ok());
  EXPECT_EQ(drops, 2);
  EXPECT_EQ(fake_.objects().at("retried"), std::string(25, 'r'));
}

TEST_F(S3FileSystemTest, AFailedUploadIsAbortedAndNothingIsVisible) {
  fake_.fault = [](const ReceivedRequest& r, const FakeS3::Parsed& p) {
    ScriptedAnswer a{0, "", ""};
    if (r.method == "PUT" && p.query.count("partNumber") && p.query.at("partNumber") == "2") a.drop = true;
    return a;
  };
  S3FileSystem fs(Options());
  auto file = fs.OpenForWrite("s3://bucket/failed");
  ASSERT_TRUE(file.ok());
  Status s = (*file)->Append(std::string(25, 'f'));
  EXPECT_EQ(s.kind(), StatusKind::kIOError);
  EXPECT_NE(s.message().find("s3://bucket/failed"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(server_.Url()), std::string::npos) << s.message();
  EXPECT_FALSE((*file)->Close().ok());
  EXPECT_EQ(fake_.open_uploads(), 0u);
  EXPECT_EQ(fake_.aborted, 1);
  EXPECT_TRUE(fake_.objects().empty());
}

TEST_F(S3FileSystemTest, ACompleteWhoseAnswerIsLostIsRepeatedAndSucceeds) {
  int completes = 0;
  // The first CompleteMultipartUpload takes effect, but its answer is lost.
  fake_.lose_answer = [&completes](const ReceivedRequest& r, const FakeS3::Parsed& p) {
    return r.method == "POST" && p.query.count("uploadId") && completes++ == 0;
  };
  S3FileSystem fs(Options());
  Status s = Write(fs, "s3://bucket/once", {std::string(15, 'o')});
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(completes, 2);
  EXPECT_EQ(fake_.completed, 1);
  EXPECT_EQ(fake_.objects().at("once"), std::string(15, 'o'));
}

TEST_F(S3FileSystemTest, ListsRenamesAndRemoves) {
  S3FileSystem fs(Options());
  for (const char* key : {"wh/t/data/a.parquet", "wh/t/data/b.parquet", "wh/t/metadata/1.json", "wh/t/x",
                          "wh/other"}) {
    fake_.Put(key, "v");
  }
  auto entries = fs.ListDirectory("s3://bucket/wh/t/");
  ASSERT_TRUE(entries.ok()) << entries.status().ToString();
  ASSERT_EQ(entries->size(), 3u);  // over two pages of the fake
  EXPECT_EQ((*entries)[0].name, "data");
  EXPECT_TRUE((*entries)[0].is_directory);
  EXPECT_EQ((*entries)[1].name, "metadata");
  EXPECT_EQ((*entries)[2].name, "x");
  EXPECT_FALSE((*entries)[2].is_directory);
  EXPECT_TRUE(fs.Exists("s3://bucket/wh/t/x"));
  EXPECT_TRUE(fs.Exists("s3://bucket/wh/t/data"));
  EXPECT_TRUE(fs.IsDirectory("s3://bucket/wh/t/data"));
  EXPECT_FALSE(fs.IsDirectory("s3://bucket/wh/t/x"));
  EXPECT_FALSE(fs.Exists("s3://bucket/wh/t/nothing"));
  ASSERT_TRUE(fs.Rename("s3://bucket/wh/t/x", "s3://bucket/wh/t/y").ok());
  EXPECT_EQ(fake_.objects().count("wh/t/x"), 0u);
  EXPECT_EQ(fake_.objects().at("wh/t/y"), "v");
  ASSERT_TRUE(fs.Remove("s3://bucket/wh/t/y").ok());
  ASSERT_TRUE(fs.Remove("s3://bucket/wh/t/y").ok());  // already gone: fine, as locally
  EXPECT_EQ(fake_.objects().count("wh/t/y"), 0u);
  auto modified = fs.ModifiedTime("s3://bucket/wh/other");
  ASSERT_TRUE(modified.ok());
  EXPECT_EQ(*modified, 1445412480.0);
}

TEST_F(S3FileSystemTest, WrongCredentialsFailClearlyWithoutTheSecret) {
  fake_.secret = "another-secret";
  S3FileSystem fs(Options());
  Status s = fs.CreateDirectories("s3://bucket/wh");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(server_.Url()), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("s3://bucket/"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("403 SignatureDoesNotMatch"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("credentials from the test"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find(kSecret), std::string::npos) << s.message();
  Status put = Write(fs, "s3://bucket/wh/f", {"x"});
  EXPECT_FALSE(put.ok());
  EXPECT_EQ(put.message().find(kSecret), std::string::npos);
}

TEST_F(S3FileSystemTest, AMissingBucketIsNamed) {
  S3FileSystem fs(Options());
  Status s = fs.CreateDirectories("s3://nobucket/wh");
  EXPECT_EQ(s.kind(), StatusKind::kNotFound);
  EXPECT_NE(s.message().find("NoSuchBucket"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("GET s3://nobucket/wh at "), std::string::npos) << s.message();
}

TEST_F(S3FileSystemTest, AStoppedServerIsAnIOErrorNamingTheEndpoint) {
  S3Options options = Options();
  {
    LoopbackHttpServer gone([](const ReceivedRequest&) { return ScriptedAnswer{}; });
    options.endpoint = gone.Url();
  }
  S3FileSystem fs(options);
  Status s = Write(fs, "s3://bucket/k", {"x"});
  EXPECT_EQ(s.kind(), StatusKind::kIOError);
  EXPECT_NE(s.message().find(options.endpoint), std::string::npos) << s.message();
}

TEST(S3UriTest, Parses) {
  auto uri = ParseS3Uri("s3://bucket/a/b.json");
  ASSERT_TRUE(uri.ok());
  EXPECT_EQ(uri->bucket, "bucket");
  EXPECT_EQ(uri->key, "a/b.json");
  EXPECT_EQ(ParseS3Uri("s3://bucket")->key, "");
  EXPECT_FALSE(ParseS3Uri("s3:///key").ok());
  EXPECT_FALSE(ParseS3Uri("/local/path").ok());
  EXPECT_TRUE(IsS3Uri("s3://b/k"));
  EXPECT_FALSE(IsS3Uri("/tmp/s3://b"));
}

EnvironmentLookup Env(std::map<std::string, std::string> values) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(values));
  return [shared](const char* name) -> const char* {
    auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

TEST(S3OptionsTest, FromTheEnvironment) {
  auto options = S3OptionsFromEnvironment(Env({{"AWS_ACCESS_KEY_ID", "id"},
                                               {"AWS_SECRET_ACCESS_KEY", "secret"},
                                               {"AWS_SESSION_TOKEN", "token"},
                                               {"AWS_ENDPOINT_URL", "http://other:1"},
                                               {"CQLITE_S3_ENDPOINT", "http://127.0.0.1:9000/"},
                                               {"AWS_DEFAULT_REGION", "eu-west-1"},
                                               {"CQLITE_S3_PART_SIZE", "6291456"}}));
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_EQ(options->endpoint, "http://127.0.0.1:9000");
  EXPECT_EQ(options->region, "eu-west-1");
  EXPECT_EQ(options->credentials.access_key_id, "id");
  EXPECT_EQ(options->credentials.secret_access_key, "secret");
  EXPECT_EQ(options->credentials.session_token, "token");
  EXPECT_EQ(options->part_size, 6291456u);
  auto defaults = S3OptionsFromEnvironment(Env({{"AWS_ACCESS_KEY_ID", "id"}, {"AWS_SECRET_ACCESS_KEY", "s"}}));
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->endpoint, "");
  EXPECT_EQ(defaults->region, "us-east-1");
  EXPECT_EQ(defaults->part_size, 8u << 20);
  auto small = S3OptionsFromEnvironment(
      Env({{"AWS_ACCESS_KEY_ID", "id"}, {"AWS_SECRET_ACCESS_KEY", "s"}, {"CQLITE_S3_PART_SIZE", "1000"}}));
  EXPECT_EQ(small.status().kind(), StatusKind::kInvalidArgument);
  auto half = S3OptionsFromEnvironment(Env({{"AWS_ACCESS_KEY_ID", "id"}}));
  EXPECT_EQ(half.status().kind(), StatusKind::kInvalidArgument);
  EXPECT_NE(half.status().message().find("AWS_SECRET_ACCESS_KEY"), std::string::npos);
}

TEST(S3OptionsTest, FromTheProfileFiles) {
  TempDir dir;
  {
    std::ofstream credentials(dir.path() + "/credentials");
    credentials << "[default]\naws_access_key_id = default-id\naws_secret_access_key = default-secret\n\n"
                   "# a comment\n[work]\naws_access_key_id=work-id\naws_secret_access_key=work-secret\n"
                   "aws_session_token = work-token\n";
    std::ofstream config(dir.path() + "/config");
    config << "[default]\nregion = us-west-2\n[profile work]\nregion = ap-south-1\n";
  }
  auto by_default = S3OptionsFromEnvironment(Env({{"HOME", "/nonexistent"},
                                                  {"AWS_SHARED_CREDENTIALS_FILE", dir.path() + "/credentials"},
                                                  {"AWS_CONFIG_FILE", dir.path() + "/config"}}));
  ASSERT_TRUE(by_default.ok()) << by_default.status().ToString();
  EXPECT_EQ(by_default->credentials.access_key_id, "default-id");
  EXPECT_EQ(by_default->credentials.secret_access_key, "default-secret");
  EXPECT_EQ(by_default->region, "us-west-2");
  EXPECT_NE(by_default->credentials.source.find("profile default"), std::string::npos);
  auto work = S3OptionsFromEnvironment(Env({{"HOME", dir.path()},
                                            {"AWS_PROFILE", "work"},
                                            {"AWS_SHARED_CREDENTIALS_FILE", dir.path() + "/credentials"},
                                            {"AWS_CONFIG_FILE", dir.path() + "/config"}}));
  ASSERT_TRUE(work.ok());
  EXPECT_EQ(work->credentials.access_key_id, "work-id");
  EXPECT_EQ(work->credentials.session_token, "work-token");
  EXPECT_EQ(work->region, "ap-south-1");
  auto none = S3OptionsFromEnvironment(Env({{"HOME", dir.path()}, {"AWS_PROFILE", "absent"}}));
  EXPECT_EQ(none.status().kind(), StatusKind::kInvalidArgument);
  EXPECT_NE(none.status().message().find("absent"), std::string::npos);
}

TEST(LocalAndS3FileSystemTest, LocalPathsStayLocalAndS3GoesToS3) {
  FakeS3 fake;
  LoopbackHttpServer server([&fake](const ReceivedRequest& r) { return fake.Handle(r); });
  S3Options options;
  options.endpoint = server.Url();
  options.credentials = AwsCredentials{kKeyId, kSecret, "", "the test"};
  LocalAndS3FileSystem fs(std::make_unique<S3FileSystem>(options));
  TempDir dir;
  const std::string local = dir.path() + "/sstable-Data.db";
  ASSERT_TRUE(fs.WriteStringToFile(local, "local bytes").ok());
  EXPECT_TRUE(fake.objects().empty());
  ASSERT_TRUE(fs.LinkOrCopy(local, "s3://bucket/wh/kept/Data.db").ok());
  EXPECT_EQ(fake.objects().at("wh/kept/Data.db"), "local bytes");
  auto back = fs.ReadFileToString("s3://bucket/wh/kept/Data.db");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, "local bytes");
  EXPECT_EQ(fs.Rename(local, "s3://bucket/x").kind(), StatusKind::kInvalidArgument);
  EXPECT_TRUE(fs.Exists(local));
}

}  // namespace
}  // namespace cqlite::net
