#include "net/s3_file_system.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <optional>
#include <thread>
#include <utility>

#include "util/strings.h"

namespace cqlite::net {

namespace {

// The least CQLITE_S3_PART_SIZE: AWS wants 5 MiB (but for the last part);
// some stores (and test servers) take less.
constexpr uint64_t kMinPartSize = 1024;
constexpr uint64_t kMaxCopySize = 5ull << 30;  // CopyObject's limit

// The text of an XML element's content with the five entities and
// character references decoded.
std::string XmlDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '&') {
      out.push_back(text[i]);
      continue;
    }
    size_t semicolon = text.find(';', i);
    if (semicolon == std::string_view::npos) {
      out.push_back('&');
      continue;
    }
    std::string_view entity = text.substr(i + 1, semicolon - i - 1);
    if (entity == "amp") {
      out.push_back('&');
    } else if (entity == "lt") {
      out.push_back('<');
    } else if (entity == "gt") {
      out.push_back('>');
    } else if (entity == "quot") {
      out.push_back('"');
    } else if (entity == "apos") {
      out.push_back('\'');
    } else if (!entity.empty() && entity[0] == '#') {
      bool hex = entity.size() > 1 && (entity[1] == 'x' || entity[1] == 'X');
      uint32_t code = static_cast<uint32_t>(std::strtoul(std::string(entity.substr(hex ? 2 : 1)).c_str(), nullptr,
                                                         hex ? 16 : 10));
      // UTF-8.
      if (code < 0x80) {
        out.push_back(static_cast<char>(code));
      } else if (code < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (code >> 6)));
        out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
      } else if (code < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (code >> 12)));
        out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
      } else {
        out.push_back(static_cast<char>(0xF0 | (code >> 18)));
        out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
      }
    } else {
      out.append(text.substr(i, semicolon - i + 1));
    }
    i = semicolon;
  }
  return out;
}

std::string XmlEscape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

// The raw contents of every <tag>...</tag> in `xml` (not nested in one
// another), in order; an empty <tag/> counts with empty contents.
std::vector<std::string_view> XmlElements(std::string_view xml, std::string_view tag) {
  std::vector<std::string_view> out;
  const std::string open = StrCat("<", tag, ">");
  const std::string empty = StrCat("<", tag, "/>");
  const std::string close = StrCat("</", tag, ">");
  size_t at = 0;
  while (true) {
    size_t start = xml.find(open, at);
    size_t empty_at = xml.find(empty, at);
    if (empty_at != std::string_view::npos && (start == std::string_view::npos || empty_at < start)) {
      out.push_back(std::string_view());
      at = empty_at + empty.size();
      continue;
    }
    if (start == std::string_view::npos) break;
    size_t end = xml.find(close, start + open.size());
    if (end == std::string_view::npos) break;
    out.push_back(xml.substr(start + open.size(), end - start - open.size()));
    at = end + close.size();
  }
  return out;
}

// The decoded text of the first <tag> in `xml`, or "".
std::string XmlText(std::string_view xml, std::string_view tag) {
  std::vector<std::string_view> found = XmlElements(xml, tag);
  return found.empty() ? std::string() : XmlDecode(found[0]);
}

// An HTTP date ("Wed, 21 Oct 2015 07:28:00 GMT") in seconds since the Unix
// epoch; 0 when it does not parse.
double ParseHttpDate(const std::string& text) {
  std::tm tm{};
  const char* end = strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S", &tm);
  if (end == nullptr) return 0;
  return static_cast<double>(timegm(&tm));
}

std::string StripTrailingSlashes(std::string text) {
  while (!text.empty() && text.back() == '/') text.pop_back();
  return text;
}

// The sections of an INI file (the AWS profile files): section name ->
// key -> value. nullopt when the file cannot be read.
std::optional<std::map<std::string, std::map<std::string, std::string>>> ReadIniFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::map<std::string, std::map<std::string, std::string>> sections;
  std::string section;
  std::string line;
  while (std::getline(in, line)) {
    std::string_view text = Trim(line);
    if (text.empty() || text[0] == '#' || text[0] == ';') continue;
    if (text.front() == '[' && text.back() == ']') {
      section = std::string(Trim(text.substr(1, text.size() - 2)));
      sections[section];
      continue;
    }
    size_t equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    sections[section][ToLowerAscii(Trim(text.substr(0, equals)))] = std::string(Trim(text.substr(equals + 1)));
  }
  return sections;
}

std::string EnvOr(const EnvironmentLookup& env, const char* name, std::string fallback = "") {
  const char* value = env(name);
  return value != nullptr && value[0] != '\0' ? std::string(value) : fallback;
}

struct ProfileFiles {
  std::string profile;
  std::string credentials_file;
  std::string config_file;
  std::map<std::string, std::string> credentials;  // the profile's section in the credentials file
  std::map<std::string, std::string> config;       // its section in the config file
};

ProfileFiles ReadProfile(const EnvironmentLookup& env) {
  ProfileFiles files;
  files.profile = EnvOr(env, "AWS_PROFILE", "default");
  const std::string home = EnvOr(env, "HOME");
  files.credentials_file = EnvOr(env, "AWS_SHARED_CREDENTIALS_FILE", home.empty() ? "" : home + "/.aws/credentials");
  files.config_file = EnvOr(env, "AWS_CONFIG_FILE", home.empty() ? "" : home + "/.aws/config");
  if (auto sections = ReadIniFile(files.credentials_file)) {
    auto it = sections->find(files.profile);
    if (it != sections->end()) files.credentials = it->second;
  }
  if (auto sections = ReadIniFile(files.config_file)) {
    auto it = sections->find(files.profile == "default" ? "default" : "profile " + files.profile);
    if (it == sections->end()) it = sections->find(files.profile);
    if (it != sections->end()) files.config = it->second;
  }
  return files;
}

const EnvironmentLookup& ProcessEnvironment() {
  static const EnvironmentLookup lookup = [](const char* name) { return std::getenv(name); };
  return lookup;
}

// An object's file, read by ranged GETs. A small read fetches up to
// kReadAhead bytes from its offset and keeps them for the reads that follow
// (an SSTable's chunks, a Parquet file's pages are read in order).
class S3RandomAccessFile final : public RandomAccessFile {
 public:
  static constexpr uint64_t kReadAhead = 1 << 20;

  S3RandomAccessFile(S3FileSystem& fs, S3Uri uri, std::string path, uint64_t size)
      : fs_(fs), uri_(std::move(uri)), path_(std::move(path)), size_(size) {}

  Result<size_t> ReadAt(uint64_t offset, std::span<uint8_t> out) const override {
    if (offset >= size_ || out.empty()) return size_t{0};
    const uint64_t n = std::min<uint64_t>(out.size(), size_ - offset);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (offset >= cached_offset_ && offset + n <= cached_offset_ + cached_.size()) {
        std::memcpy(out.data(), cached_.data() + (offset - cached_offset_), n);
        return static_cast<size_t>(n);
      }
    }
    const uint64_t fetch = std::min<uint64_t>(std::max<uint64_t>(n, kReadAhead), size_ - offset);
    S3FileSystem::Request request;
    request.method = "GET";
    request.bucket = uri_.bucket;
    request.key = uri_.key;
    request.headers = {{"Range", StrCat("bytes=", offset, "-", offset + fetch - 1)}};
    ASSIGN_OR_RETURN(HttpResponse response, fs_.SendExpectingSuccess(request));
    std::string body = std::move(response.body);
    if (response.status == 200) {
      // The whole object: the store ignored the range.
      body = offset < body.size() ? body.substr(offset, fetch) : std::string();
    }
    size_t got = static_cast<size_t>(std::min<uint64_t>(body.size(), n));
    std::memcpy(out.data(), body.data(), got);
    if (body.size() > n) {
      std::lock_guard<std::mutex> lock(mu_);
      cached_offset_ = offset;
      cached_ = std::move(body);
    }
    return got;
  }
  uint64_t Size() const override { return size_; }
  const std::string& path() const override { return path_; }

 private:
  S3FileSystem& fs_;
  S3Uri uri_;
  std::string path_;
  uint64_t size_;
  mutable std::mutex mu_;
  mutable uint64_t cached_offset_ = 0;  // guarded by mu_
  mutable std::string cached_;          // guarded by mu_
};

// A new object, buffered: one PUT at Close when it fits a part, else a
// multipart upload whose parts go up as they fill.
class S3WritableFile final : public WritableFile {
 public:
  S3WritableFile(S3FileSystem& fs, S3Uri uri) : fs_(fs), uri_(std::move(uri)) {}
  ~S3WritableFile() override {
    // Dropped before Close: nothing becomes visible.
    if (!closed_) Abort();
  }

  Status Append(std::span<const uint8_t> data) override {
    if (closed_) return Status::InvalidArgument(StrCat(Path(), ": append after close"));
    RETURN_IF_ERROR(failed_);
    const size_t part_size = fs_.options().part_size;
    const char* bytes = reinterpret_cast<const char*>(data.data());
    size_t left = data.size();
    // Each part goes up as soon as it is full, moved out of the buffer, not
    // copied: a file being written holds at most one part's bytes.
    while (buffer_.size() + left >= part_size) {
      const size_t taken = part_size - buffer_.size();
      buffer_.append(bytes, taken);
      bytes += taken;
      left -= taken;
      Status s = UploadPart(std::exchange(buffer_, std::string()));
      if (!s.ok()) {
        failed_ = s;
        Abort();
        return s;
      }
    }
    buffer_.append(bytes, left);
    return Status::OK();
  }

  // Nothing to do: the object is written (and durable) at Close.
  Status Sync() override { return failed_; }

  Status Close() override {
    if (closed_) return Status::OK();
    closed_ = true;
    if (!failed_.ok()) return failed_;
    Status s;
    if (upload_id_.empty()) {
      s = fs_.PutObject(uri_, std::move(buffer_));
    } else {
      if (!buffer_.empty()) s = UploadPart(std::move(buffer_));
      if (s.ok()) s = Complete();
      if (!s.ok()) Abort();
    }
    buffer_.clear();
    return s;
  }

 private:
  std::string Path() const { return StrCat("s3://", uri_.bucket, "/", uri_.key); }

  S3FileSystem::Request ObjectRequest(std::string method) const {
    S3FileSystem::Request request;
    request.method = std::move(method);
    request.bucket = uri_.bucket;
    request.key = uri_.key;
    return request;
  }

  Status UploadPart(std::string body) {
    if (upload_id_.empty()) {
      S3FileSystem::Request create = ObjectRequest("POST");
      create.query = {{"uploads", ""}};
      create.headers = {{"Content-Type", "application/octet-stream"}};
      ASSIGN_OR_RETURN(HttpResponse response, fs_.SendExpectingSuccess(create));
      upload_id_ = XmlText(response.body, "UploadId");
      if (upload_id_.empty()) {
        return Status::IOError(StrCat(Path(), ": CreateMultipartUpload at ", fs_.EndpointForMessages(),
                                      " answered without an UploadId"));
      }
    }
    const int number = static_cast<int>(etags_.size()) + 1;
    S3FileSystem::Request part = ObjectRequest("PUT");
    part.query = {{"partNumber", std::to_string(number)}, {"uploadId", upload_id_}};
    part.body = std::move(body);
    ASSIGN_OR_RETURN(HttpResponse response, fs_.SendExpectingSuccess(part));
    const std::string* etag = response.Header("etag");
    if (etag == nullptr || etag->empty()) {
      return Status::IOError(StrCat(Path(), ": UploadPart ", number, " at ", fs_.EndpointForMessages(),
                                    " answered without an ETag"));
    }
    etags_.push_back(*etag);
    return Status::OK();
  }

  Status Complete() {
    S3FileSystem::Request complete = ObjectRequest("POST");
    complete.query = {{"uploadId", upload_id_}};
    complete.headers = {{"Content-Type", "application/xml"}};
    complete.body = "<CompleteMultipartUpload>";
    for (size_t i = 0; i < etags_.size(); ++i) {
      complete.body += StrCat("<Part><PartNumber>", i + 1, "</PartNumber><ETag>", XmlEscape(etags_[i]),
                              "</ETag></Part>");
    }
    complete.body += "</CompleteMultipartUpload>";
    ASSIGN_OR_RETURN(HttpResponse response, fs_.Send(complete));
    if (response.status / 100 == 2 && response.body.find("<Error>") == std::string::npos) {
      upload_id_.clear();
      return Status::OK();
    }
    // A repeated Complete whose first attempt took effect (its answer lost)
    // finds the upload gone and the object there.
    if (response.status == 404 && XmlText(response.body, "Code") == "NoSuchUpload" && fs_.Head(uri_).ok()) {
      upload_id_.clear();
      return Status::OK();
    }
    return fs_.ErrorFor(complete, response);
  }

  // Best effort: an upload left behind holds storage but is never visible.
  void Abort() {
    if (upload_id_.empty()) return;
    S3FileSystem::Request abort = ObjectRequest("DELETE");
    abort.query = {{"uploadId", upload_id_}};
    (void)fs_.Send(abort);
    upload_id_.clear();
  }

  S3FileSystem& fs_;
  S3Uri uri_;
  std::string buffer_;
  std::string upload_id_;
  std::vector<std::string> etags_;
  bool closed_ = false;
  Status failed_;
};

}  // namespace

bool IsS3Uri(std::string_view path) { return StartsWith(path, "s3://"); }

Result<S3Uri> ParseS3Uri(std::string_view path) {
  if (!IsS3Uri(path)) return Status::InvalidArgument(StrCat(path, ": not an s3:// URI"));
  std::string_view rest = path.substr(5);
  size_t slash = rest.find('/');
  S3Uri uri;
  uri.bucket = std::string(rest.substr(0, slash));
  if (slash != std::string_view::npos) uri.key = std::string(rest.substr(slash + 1));
  if (uri.bucket.empty()) return Status::InvalidArgument(StrCat(path, ": an s3:// URI needs a bucket"));
  return uri;
}

Result<AwsCredentials> LoadAwsCredentials(const EnvironmentLookup& env) {
  const std::string id = EnvOr(env, "AWS_ACCESS_KEY_ID");
  const std::string secret = EnvOr(env, "AWS_SECRET_ACCESS_KEY");
  if (!id.empty() || !secret.empty()) {
    if (id.empty() || secret.empty()) {
      return Status::InvalidArgument(StrCat(id.empty() ? "AWS_SECRET_ACCESS_KEY" : "AWS_ACCESS_KEY_ID",
                                            " is set but ", id.empty() ? "AWS_ACCESS_KEY_ID" : "AWS_SECRET_ACCESS_KEY",
                                            " is not"));
    }
    return AwsCredentials{id, secret, EnvOr(env, "AWS_SESSION_TOKEN"), "the environment (AWS_ACCESS_KEY_ID)"};
  }
  ProfileFiles files = ReadProfile(env);
  for (const auto* section : {&files.credentials, &files.config}) {
    auto key = section->find("aws_access_key_id");
    auto value = section->find("aws_secret_access_key");
    if (key == section->end() || value == section->end()) continue;
    auto token = section->find("aws_session_token");
    const std::string& file = section == &files.credentials ? files.credentials_file : files.config_file;
    return AwsCredentials{key->second, value->second, token == section->end() ? "" : token->second,
                          StrCat("profile ", files.profile, " of ", file)};
  }
  return Status::InvalidArgument(
      StrCat("no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or give profile ", files.profile,
             " aws_access_key_id and aws_secret_access_key in ",
             files.credentials_file.empty() ? "~/.aws/credentials" : files.credentials_file,
             " (AWS_PROFILE, AWS_SHARED_CREDENTIALS_FILE choose another)"));
}

Result<S3Options> S3OptionsFromEnvironment(const EnvironmentLookup& env) {
  S3Options options;
  options.endpoint = EnvOr(env, "CQLITE_S3_ENDPOINT", EnvOr(env, "AWS_ENDPOINT_URL_S3", EnvOr(env, "AWS_ENDPOINT_URL")));
  options.endpoint = StripTrailingSlashes(options.endpoint);
  if (!options.endpoint.empty() && !StartsWith(options.endpoint, "http://") &&
      !StartsWith(options.endpoint, "https://")) {
    return Status::InvalidArgument(
        StrCat("the S3 endpoint ", UrlForMessages(options.endpoint), " is not an http:// or https:// URL"));
  }
  ProfileFiles files = ReadProfile(env);
  auto region = files.config.find("region");
  options.region = EnvOr(env, "AWS_REGION",
                         EnvOr(env, "AWS_DEFAULT_REGION", region != files.config.end() ? region->second : "us-east-1"));
  ASSIGN_OR_RETURN(options.credentials, LoadAwsCredentials(env));
  const std::string part_size = EnvOr(env, "CQLITE_S3_PART_SIZE");
  if (!part_size.empty()) {
    std::optional<int64_t> bytes = ParseInt64(part_size);
    if (!bytes || *bytes < static_cast<int64_t>(kMinPartSize) || *bytes > static_cast<int64_t>(kMaxCopySize)) {
      return Status::InvalidArgument(StrCat("CQLITE_S3_PART_SIZE=", part_size, ": give bytes, from ", kMinPartSize,
                                            " to ", kMaxCopySize, " (5 GiB); AWS wants at least 5 MiB"));
    }
    options.part_size = static_cast<size_t>(*bytes);
  }
  options.http.ca_file = EnvOr(env, "AWS_CA_BUNDLE");
  return options;
}

Result<S3Options> S3OptionsFromEnvironment() { return S3OptionsFromEnvironment(ProcessEnvironment()); }

S3FileSystem::S3FileSystem(S3Options options) : options_(std::move(options)) {
  options_.endpoint = StripTrailingSlashes(options_.endpoint);
}

S3FileSystem::~S3FileSystem() = default;

std::string S3FileSystem::EndpointForMessages() const {
  if (!options_.endpoint.empty()) return UrlForMessages(options_.endpoint);
  return StrCat("https://s3.", options_.region, ".amazonaws.com");
}

std::string S3FileSystem::Url(const Request& request, std::string* host, std::string* canonical_uri) const {
  std::string scheme, path_prefix;
  std::string object_path = request.key.empty() ? "" : "/" + AwsUriEncode(request.key, true);
  if (!options_.endpoint.empty()) {
    size_t authority = options_.endpoint.find("://") + 3;
    size_t path = options_.endpoint.find('/', authority);
    scheme = options_.endpoint.substr(0, authority);
    *host = options_.endpoint.substr(authority, path == std::string::npos ? std::string::npos : path - authority);
    size_t at = host->rfind('@');
    if (at != std::string::npos) *host = host->substr(at + 1);
    if (path != std::string::npos) path_prefix = options_.endpoint.substr(path);
    *canonical_uri = StrCat(path_prefix, "/", AwsUriEncode(request.bucket, false), object_path);
  } else if (request.bucket.find('.') == std::string::npos) {
    scheme = "https://";
    *host = StrCat(request.bucket, ".s3.", options_.region, ".amazonaws.com");
    *canonical_uri = object_path.empty() ? "/" : object_path;
  } else {
    scheme = "https://";
    *host = StrCat("s3.", options_.region, ".amazonaws.com");
    *canonical_uri = StrCat("/", AwsUriEncode(request.bucket, false), object_path);
  }
  std::string url = StrCat(scheme, *host, *canonical_uri);
  if (!request.query.empty()) url += "?" + CanonicalQueryString(request.query);
  return url;
}

std::string S3FileSystem::What(const Request& request) const {
  std::string key = request.key;
  if (key.empty()) {
    // A listing: name the prefix listed.
    for (const auto& [name, value] : request.query) {
      if (name == "prefix") key = value;
    }
  }
  return StrCat(request.method, " s3://", request.bucket, "/", key, " at ", EndpointForMessages());
}

std::unique_ptr<HttpClient> S3FileSystem::BorrowClient() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      std::unique_ptr<HttpClient> client = std::move(idle_.back());
      idle_.pop_back();
      return client;
    }
  }
  return std::make_unique<HttpClient>(options_.http);
}

void S3FileSystem::ReturnClient(std::unique_ptr<HttpClient> client) {
  std::lock_guard<std::mutex> lock(mu_);
  idle_.push_back(std::move(client));
}

Result<HttpResponse> S3FileSystem::Send(const Request& request) {
  std::string host, canonical_uri;
  const std::string url = Url(request, &host, &canonical_uri);
  const std::string payload_hash = Sha256Hex(request.body);
  std::unique_ptr<HttpClient> client = BorrowClient();
  const int attempts = std::max(1, options_.http.max_attempts);
  Result<HttpResponse> outcome = Status::IOError(StrCat(What(request), ": not sent"));
  for (int attempt = 1;; ++attempt) {
    // Signed anew each time: a signature is good for 15 minutes.
    const int64_t now = options_.now ? options_.now()
                                     : static_cast<int64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                           std::chrono::system_clock::now().time_since_epoch())
                                                                .count());
    SigningInput input;
    input.method = request.method;
    input.canonical_uri = canonical_uri;
    input.query = request.query;
    input.headers = request.headers;
    if ((request.method == "PUT" || request.method == "POST") &&
        std::none_of(request.headers.begin(), request.headers.end(),
                     [](const auto& h) { return ToLowerAscii(h.first) == "content-type"; })) {
      // Else libcurl sends a body as a form (application/x-www-form-urlencoded).
      input.headers.emplace_back("Content-Type", "application/octet-stream");
    }
    input.headers.emplace_back("host", host);
    input.headers.emplace_back("x-amz-content-sha256", payload_hash);
    input.headers.emplace_back("x-amz-date", AmzDate(now));
    if (!options_.credentials.session_token.empty()) {
      input.headers.emplace_back("x-amz-security-token", options_.credentials.session_token);
    }
    input.payload_hash = payload_hash;
    input.amz_date = AmzDate(now);
    input.region = options_.region;
    Signature signature = SignV4(input, options_.credentials);
    HttpRequest http;
    http.method = request.method;
    http.url = url;
    http.headers = input.headers;
    http.headers.emplace_back("Authorization", signature.authorization);
    http.body = request.body;
    outcome = client->Send(http);
    bool retry = outcome.ok() ? IsRetryableStatus(outcome->status) : outcome.status().kind() == StatusKind::kIOError;
    if (!retry || attempt >= attempts) break;
    int pause = client->BackoffMs(attempt);
    if (options_.http.sleep) {
      options_.http.sleep(pause);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(pause));
    }
  }
  ReturnClient(std::move(client));
  if (!outcome.ok()) {
    return Status::IOError(StrCat(What(request), ": ", outcome.status().message()));
  }
  return outcome;
}

Result<HttpResponse> S3FileSystem::SendExpectingSuccess(const Request& request) {
  ASSIGN_OR_RETURN(HttpResponse response, Send(request));
  // CopyObject and CompleteMultipartUpload may fail after a 200.
  bool error_in_ok = request.method != "GET" && response.body.find("<Error>") != std::string::npos;
  if (response.status / 100 != 2 || error_in_ok) return ErrorFor(request, response);
  return response;
}

Status S3FileSystem::ErrorFor(const Request& request, const HttpResponse& response) const {
  std::string code = XmlText(response.body, "Code");
  std::string message = XmlText(response.body, "Message");
  std::string text = StrCat(What(request), ": HTTP ", response.status);
  if (!code.empty()) text += " " + code;
  if (!message.empty()) text += ": " + message;
  if (code.empty() && message.empty() && request.method == "HEAD") text += " (an answer to HEAD has no error detail)";
  if (response.status == 403 || code == "InvalidAccessKeyId" || code == "SignatureDoesNotMatch") {
    text += StrCat(" (credentials from ", options_.credentials.source.empty() ? "the caller" : options_.credentials.source,
                   ", region ", options_.region, ")");
  }
  if (response.status == 404) return Status::NotFound(text);
  return Status::IOError(text);
}

Result<S3FileSystem::ObjectInfo> S3FileSystem::Head(const S3Uri& uri) {
  Request request;
  request.method = "HEAD";
  request.bucket = uri.bucket;
  request.key = uri.key;
  ASSIGN_OR_RETURN(HttpResponse response, Send(request));
  if (response.status == 404) {
    return Status::NotFound(StrCat("s3://", uri.bucket, "/", uri.key, ": no such object at ", EndpointForMessages()));
  }
  if (response.status / 100 != 2) return ErrorFor(request, response);
  ObjectInfo info;
  const std::string* length = response.Header("content-length");
  std::optional<int64_t> size = length ? ParseInt64(*length) : std::nullopt;
  if (!size || *size < 0) {
    return Status::IOError(StrCat(What(request), ": the answer has no Content-Length"));
  }
  info.size = static_cast<uint64_t>(*size);
  if (const std::string* modified = response.Header("last-modified")) info.modified = ParseHttpDate(*modified);
  return info;
}

Status S3FileSystem::PutObject(const S3Uri& uri, std::string body) {
  Request request;
  request.method = "PUT";
  request.bucket = uri.bucket;
  request.key = uri.key;
  request.headers = {{"Content-Type", "application/octet-stream"}};
  request.body = std::move(body);
  return SendExpectingSuccess(request).status();
}

Result<std::unique_ptr<RandomAccessFile>> S3FileSystem::OpenForRead(const std::string& path) {
  ASSIGN_OR_RETURN(S3Uri uri, ParseS3Uri(path));
  ASSIGN_OR_RETURN(ObjectInfo info, Head(uri));
  return std::unique_ptr<RandomAccessFile>(std::make_unique<S3RandomAccessFile>(*this, uri, path, info.size));
}

Result<std::unique_ptr<WritableFile>> S3FileSystem::OpenForWrite(const std::string& path) {
  ASSIGN_OR_RETURN(S3Uri uri, ParseS3Uri(path));
  if (uri.key.empty() || uri.key.back() == '/') {
    return Status::InvalidArgument(StrCat(path, ": not an object's name"));
  }
  return std::unique_ptr<WritableFile>(std::make_unique<S3WritableFile>(*this, uri));
}

Result<std::vector<DirectoryEntry>> S3FileSystem::ListDirectory(const std::string& path) {
  ASSIGN_OR_RETURN(S3Uri uri, ParseS3Uri(path));
  std::string prefix = StripTrailingSlashes(uri.key);
  if (!prefix.empty()) prefix += "/";
  std::vector<DirectoryEntry> entries;
  std::string token;
  do {
    Request request;
    request.bucket = uri.bucket;
    request.query = {{"list-type", "2"}, {"prefix", prefix}, {"delimiter", "/"}};
    if (!token.empty()) request.query.emplace_back("continuation-token", token);
    ASSIGN_OR_RETURN(HttpResponse response, SendExpectingSuccess(request));
    for (std::string_view contents : XmlElements(response.body, "Contents")) {
      std::string key = XmlText(contents, "Key");
      if (key.size() > prefix.size() && StartsWith(key, prefix)) entries.push_back({key.substr(prefix.size()), false});
    }
    for (std::string_view common : XmlElements(response.body, "CommonPrefixes")) {
      std::string name = StripTrailingSlashes(XmlText(common, "Prefix"));
      if (name.size() > prefix.size() && StartsWith(name, prefix)) entries.push_back({name.substr(prefix.size()), true});
    }
    token = XmlText(response.body, "IsTruncated") == "true" ? XmlText(response.body, "NextContinuationToken") : "";
  } while (!token.empty());
  std::sort(entries.begin(), entries.end(),
            [](const DirectoryEntry& a, const DirectoryEntry& b) { return a.name < b.name; });
  return entries;
}

bool S3FileSystem::Exists(const std::string& path) {
  auto uri = ParseS3Uri(path);
  if (!uri.ok()) return false;
  if (!uri->key.empty() && uri->key.back() != '/' && Head(*uri).ok()) return true;
  return IsDirectory(path);
}

bool S3FileSystem::IsDirectory(const std::string& path) {
  auto uri = ParseS3Uri(path);
  if (!uri.ok()) return false;
  std::string prefix = StripTrailingSlashes(uri->key);
  if (!prefix.empty()) prefix += "/";
  Request request;
  request.bucket = uri->bucket;
  request.query = {{"list-type", "2"}, {"prefix", prefix}, {"max-keys", "1"}};
  auto response = SendExpectingSuccess(request);
  if (!response.ok()) return false;
  if (prefix.empty()) return true;  // the bucket
  return !XmlElements(response->body, "Contents").empty() || !XmlElements(response->body, "CommonPrefixes").empty();
}

Status S3FileSystem::CreateDirectories(const std::string& path) {
  ASSIGN_OR_RETURN(S3Uri uri, ParseS3Uri(path));
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (checked_buckets_.count(uri.bucket)) return Status::OK();
  }
  Request request;
  request.bucket = uri.bucket;
  // Under the path: a key allowed a prefix of the bucket only may list it.
  request.query = {{"list-type", "2"}, {"max-keys", "1"}, {"prefix", uri.key}};
  RETURN_IF_ERROR(SendExpectingSuccess(request).status());
  std::lock_guard<std::mutex> lock(mu_);
  checked_buckets_.insert(uri.bucket);
  return Status::OK();
}

Status S3FileSystem::Rename(const std::string& from, const std::string& to) {
  ASSIGN_OR_RETURN(S3Uri source, ParseS3Uri(from));
  ASSIGN_OR_RETURN(S3Uri target, ParseS3Uri(to));
  ASSIGN_OR_RETURN(ObjectInfo info, Head(source));
  if (info.size > kMaxCopySize) {
    RETURN_IF_ERROR(CopyFile(from, to));
  } else {
    Request copy;
    copy.method = "PUT";
    copy.bucket = target.bucket;
    copy.key = target.key;
    copy.headers = {{"x-amz-copy-source", StrCat("/", AwsUriEncode(source.bucket, false), "/",
                                                 AwsUriEncode(source.key, true))}};
    RETURN_IF_ERROR(SendExpectingSuccess(copy).status());
  }
  return Remove(from);
}

Status S3FileSystem::Remove(const std::string& path) {
  ASSIGN_OR_RETURN(S3Uri uri, ParseS3Uri(path));
  if (uri.key.empty() || uri.key.back() == '/') return Status::OK();  // no directories to remove
  Request request;
  request.method = "DELETE";
  request.bucket = uri.bucket;
  request.key = uri.key;
  ASSIGN_OR_RETURN(HttpResponse response, Send(request));
  if (response.status / 100 == 2 || response.status == 404) return Status::OK();
  return ErrorFor(request, response);
}

Result<double> S3FileSystem::ModifiedTime(const std::string& path) {
  ASSIGN_OR_RETURN(S3Uri uri, ParseS3Uri(path));
  ASSIGN_OR_RETURN(ObjectInfo info, Head(uri));
  return info.modified;
}

LocalAndS3FileSystem::LocalAndS3FileSystem(std::unique_ptr<S3FileSystem> s3) : s3_(std::move(s3)) {}

Result<S3FileSystem*> LocalAndS3FileSystem::S3() {
  std::lock_guard<std::mutex> lock(mu_);
  if (s3_ != nullptr) return s3_.get();
  if (!s3_error_.ok()) return s3_error_;
  auto options = S3OptionsFromEnvironment();
  if (!options.ok()) {
    s3_error_ = options.status();
    return s3_error_;
  }
  s3_ = std::make_unique<S3FileSystem>(std::move(*options));
  return s3_.get();
}

Result<std::unique_ptr<RandomAccessFile>> LocalAndS3FileSystem::OpenForRead(const std::string& path) {
  if (!IsS3Uri(path)) return LocalFileSystem().OpenForRead(path);
  ASSIGN_OR_RETURN(S3FileSystem * s3, S3());
  return s3->OpenForRead(path);
}

Result<std::unique_ptr<WritableFile>> LocalAndS3FileSystem::OpenForWrite(const std::string& path) {
  if (!IsS3Uri(path)) return LocalFileSystem().OpenForWrite(path);
  ASSIGN_OR_RETURN(S3FileSystem * s3, S3());
  return s3->OpenForWrite(path);
}

Result<std::vector<DirectoryEntry>> LocalAndS3FileSystem::ListDirectory(const std::string& path) {
  if (!IsS3Uri(path)) return LocalFileSystem().ListDirectory(path);
  ASSIGN_OR_RETURN(S3FileSystem * s3, S3());
  return s3->ListDirectory(path);
}

bool LocalAndS3FileSystem::Exists(const std::string& path) {
  if (!IsS3Uri(path)) return LocalFileSystem().Exists(path);
  auto s3 = S3();
  return s3.ok() && (*s3)->Exists(path);
}

bool LocalAndS3FileSystem::IsDirectory(const std::string& path) {
  if (!IsS3Uri(path)) return LocalFileSystem().IsDirectory(path);
  auto s3 = S3();
  return s3.ok() && (*s3)->IsDirectory(path);
}

Status LocalAndS3FileSystem::CreateDirectories(const std::string& path) {
  if (!IsS3Uri(path)) return LocalFileSystem().CreateDirectories(path);
  ASSIGN_OR_RETURN(S3FileSystem * s3, S3());
  return s3->CreateDirectories(path);
}

Status LocalAndS3FileSystem::Rename(const std::string& from, const std::string& to) {
  if (IsS3Uri(from) != IsS3Uri(to)) {
    return Status::InvalidArgument(StrCat(from, ": cannot be renamed to ", to, ", on another file system"));
  }
  if (!IsS3Uri(from)) return LocalFileSystem().Rename(from, to);
  ASSIGN_OR_RETURN(S3FileSystem * s3, S3());
  return s3->Rename(from, to);
}

Status LocalAndS3FileSystem::Remove(const std::string& path) {
  if (!IsS3Uri(path)) return LocalFileSystem().Remove(path);
  ASSIGN_OR_RETURN(S3FileSystem * s3, S3());
  return s3->Remove(path);
}

Status LocalAndS3FileSystem::SyncFile(const std::string& path) {
  if (!IsS3Uri(path)) return LocalFileSystem().SyncFile(path);
  return Status::OK();  // an object is durable once written
}

Status LocalAndS3FileSystem::LinkOrCopy(const std::string& from, const std::string& to) {
  if (!IsS3Uri(from) && !IsS3Uri(to)) return LocalFileSystem().LinkOrCopy(from, to);
  return FileSystem::LinkOrCopy(from, to);  // a copy through OpenForRead and OpenForWrite
}

Result<double> LocalAndS3FileSystem::ModifiedTime(const std::string& path) {
  if (!IsS3Uri(path)) return LocalFileSystem().ModifiedTime(path);
  ASSIGN_OR_RETURN(S3FileSystem * s3, S3());
  return s3->ModifiedTime(path);
}

}  // namespace cqlite::net
