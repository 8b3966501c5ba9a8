// A warehouse on S3 or an S3-compatible store, behind the FileSystem
// interface, so that the pipeline writes `s3://bucket/prefix/...` as it
// writes local paths. Requests are signed with AWS Signature V4
// (net/aws_sigv4.h) and sent over net/http_client.h, repeated on connection
// failures and 5xx answers.
//
// - Reads: a HEAD for the size, then ranged GETs of at least 1 MiB, the
//   last kept for the reads that follow.
// - Writes are buffered: an object no larger than a part is one PUT at
//   Close; a larger one is a multipart upload whose parts go up as they fill
//   and which CompleteMultipartUpload makes visible at Close. Until then
//   nothing of the object is visible; a file dropped or failed before Close
//   aborts its upload. Sync() does nothing: an object is durable once Close
//   returns OK.
// - Rename is a server-side copy and a delete: `to` appears whole (the copy
//   is atomic), and a crash between the two leaves `from` behind as well,
//   an unreferenced file as a crash leaves locally.
// - Directories do not exist in S3: CreateDirectories only checks, once per
//   bucket, that the bucket can be listed (so that wrong credentials or a
//   missing bucket fail a run before it folds anything); a directory exists
//   when some key lies under it.
//
// Configuration (S3OptionsFromEnvironment): the endpoint from
// CQLITE_S3_ENDPOINT, else AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL
// (addressed path-style: <endpoint>/<bucket>/<key>), else AWS's own
// (virtual-hosted); the region from AWS_REGION, AWS_DEFAULT_REGION, the
// profile's `region` in the config file, else us-east-1; credentials from
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, else from
// the profile (AWS_PROFILE, default "default") of the shared credentials
// file (AWS_SHARED_CREDENTIALS_FILE, default ~/.aws/credentials) or of the
// config file (AWS_CONFIG_FILE, default ~/.aws/config). Messages name the
// endpoint, bucket and key, and S3's error code and message; never a secret.
//
// Thread-safe: requests of several threads go over connections of their own.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "io/file_system.h"
#include "net/aws_sigv4.h"
#include "net/http_client.h"
#include "util/status.h"

namespace cqlite::net {

// Whether `path` is an s3:// URI.
bool IsS3Uri(std::string_view path);

struct S3Uri {
  std::string bucket;
  std::string key;  // without a leading '/'; empty for the bucket itself
};
// "s3://bucket/some/key" -> {bucket, "some/key"}. InvalidArgument when not
// an s3:// URI or without a bucket.
Result<S3Uri> ParseS3Uri(std::string_view path);

struct S3Options {
  // "http://127.0.0.1:9000" (path-style addressing); empty: AWS's endpoint
  // for the region, virtual-hosted.
  std::string endpoint;
  std::string region = "us-east-1";
  AwsCredentials credentials;
  // Objects up to this size are one PUT; larger ones are uploaded in parts
  // of this size (S3 wants at least 5 MiB but for the last).
  size_t part_size = 8 << 20;
  HttpClientOptions http;
  // Seconds since the Unix epoch, for signatures (tests fix it).
  std::function<int64_t()> now;
};

// Looks up an environment variable (std::getenv, or a map in tests).
using EnvironmentLookup = std::function<const char*(const char*)>;

// The credentials from the environment or the profile files, as described
// above. InvalidArgument naming the places looked at when there are none.
Result<AwsCredentials> LoadAwsCredentials(const EnvironmentLookup& env);
// Endpoint, region, credentials and part size (CQLITE_S3_PART_SIZE, bytes:
// at least 5 MiB for AWS, which refuses smaller parts but the last; at least
// 1 KiB for stores that take less) from the environment.
Result<S3Options> S3OptionsFromEnvironment(const EnvironmentLookup& env);
Result<S3Options> S3OptionsFromEnvironment();

class S3FileSystem final : public FileSystem {
 public:
  explicit S3FileSystem(S3Options options);
  ~S3FileSystem() override;

  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> OpenForWrite(const std::string& path) override;
  Result<std::vector<DirectoryEntry>> ListDirectory(const std::string& path) override;
  bool Exists(const std::string& path) override;
  bool IsDirectory(const std::string& path) override;
  Status CreateDirectories(const std::string& path) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status Remove(const std::string& path) override;
  Result<double> ModifiedTime(const std::string& path) override;

  const S3Options& options() const { return options_; }
  // "http://127.0.0.1:9000" or "https://s3.<region>.amazonaws.com": what messages name.
  std::string EndpointForMessages() const;

  // One S3 request, signed, sent and repeated as the class comment says.
  struct Request {
    std::string method = "GET";
    std::string bucket;
    std::string key;  // empty: the bucket
    std::vector<std::pair<std::string, std::string>> query;
    std::vector<std::pair<std::string, std::string>> headers;  // signed too
    std::string body;
  };
  // The response, whatever its status; IOError when none came back.
  Result<HttpResponse> Send(const Request& request);
  // Send, then an error unless the status is 2xx (and, for answers that
  // may carry an error in a 200, no <Error> in the body).
  Result<HttpResponse> SendExpectingSuccess(const Request& request);

  // The object's size and last-modified time; NotFound when it is missing.
  struct ObjectInfo {
    uint64_t size = 0;
    double modified = 0;  // seconds since the Unix epoch; 0 when not said
  };
  Result<ObjectInfo> Head(const S3Uri& uri);
  Status PutObject(const S3Uri& uri, std::string body);

  // The error for a response that is not a success: names the request's
  // endpoint, bucket and key, the status, and S3's code and message.
  Status ErrorFor(const Request& request, const HttpResponse& response) const;

 private:
  std::unique_ptr<HttpClient> BorrowClient();
  void ReturnClient(std::unique_ptr<HttpClient> client);
  std::string Url(const Request& request, std::string* host, std::string* canonical_uri) const;
  std::string What(const Request& request) const;

  S3Options options_;
  std::mutex mu_;
  std::vector<std::unique_ptr<HttpClient>> idle_;  // guarded by mu_
  std::set<std::string> checked_buckets_;          // guarded by mu_
};

// Local paths to the machine's file system, s3:// URIs to S3 (created with
// the environment's configuration on first use, or given): what the
// pipeline uses when the warehouse may be on S3 and the SSTables are local.
class LocalAndS3FileSystem final : public FileSystem {
 public:
  explicit LocalAndS3FileSystem(std::unique_ptr<S3FileSystem> s3 = nullptr);

  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> OpenForWrite(const std::string& path) override;
  Result<std::vector<DirectoryEntry>> ListDirectory(const std::string& path) override;
  bool Exists(const std::string& path) override;
  bool IsDirectory(const std::string& path) override;
  Status CreateDirectories(const std::string& path) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status Remove(const std::string& path) override;
  Status SyncFile(const std::string& path) override;
  Status LinkOrCopy(const std::string& from, const std::string& to) override;
  Result<double> ModifiedTime(const std::string& path) override;

 private:
  // The S3 file system, made from the environment the first time.
  Result<S3FileSystem*> S3();

  std::mutex mu_;
  std::unique_ptr<S3FileSystem> s3_;  // guarded by mu_ until set
  Status s3_error_;
};

}  // namespace cqlite::net
