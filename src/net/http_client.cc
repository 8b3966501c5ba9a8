#include "net/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <random>
#include <thread>

#include "util/strings.h"

namespace cqlite::net {

namespace {

// libcurl's global state is set up once per process, before any handle.
void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

size_t AppendBody(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

// Takes the header lines (the last response's, after redirects or
// 100-continue), and Content-Type from them.
size_t ReadHeader(char* data, size_t size, size_t count, void* out) {
  std::string_view line(data, size * count);
  auto* response = static_cast<HttpResponse*>(out);
  if (StartsWith(line, "HTTP/")) {
    response->content_type.clear();
    response->headers.clear();
  }
  size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    std::string name = ToLowerAscii(Trim(line.substr(0, colon)));
    std::string value(Trim(line.substr(colon + 1)));
    if (name == "content-type") response->content_type = value;
    response->headers.emplace_back(std::move(name), std::move(value));
  }
  return size * count;
}

}  // namespace

struct HttpClient::Handle {
  CURL* curl = nullptr;
  ~Handle() {
    if (curl != nullptr) curl_easy_cleanup(curl);
  }
};

const std::string* HttpResponse::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key == name) return &value;
  }
  return nullptr;
}

bool IsIdempotent(std::string_view method) {
  return method == "GET" || method == "HEAD" || method == "PUT" || method == "DELETE" || method == "OPTIONS";
}

bool IsRetryableStatus(int status) { return status == 500 || status == 502 || status == 503 || status == 504; }

std::string UrlForMessages(std::string_view url) {
  std::string_view rest = url;
  size_t query = rest.find_first_of("?#");
  if (query != std::string_view::npos) rest = rest.substr(0, query);
  size_t scheme = rest.find("://");
  if (scheme == std::string_view::npos) return std::string(rest);
  size_t host_start = scheme + 3;
  size_t path = rest.find('/', host_start);
  std::string_view authority = rest.substr(host_start, path == std::string_view::npos ? rest.npos : path - host_start);
  size_t at = authority.rfind('@');
  if (at == std::string_view::npos) return std::string(rest);
  return StrCat(rest.substr(0, host_start), authority.substr(at + 1),
                path == std::string_view::npos ? std::string_view() : rest.substr(path));
}

HttpClient::HttpClient(HttpClientOptions options) : options_(std::move(options)), handle_(new Handle) {
  GlobalInit();
}

HttpClient::~HttpClient() = default;

int HttpClient::BackoffMs(int attempt) const {
  int64_t pause = options_.initial_backoff_ms;
  for (int i = 1; i < attempt && pause < options_.max_backoff_ms; ++i) pause *= 2;
  pause = std::min<int64_t>(pause, options_.max_backoff_ms);
  // Up to a quarter less, so that writers retrying together spread out.
  static thread_local std::mt19937 random(std::random_device{}());
  int64_t jitter = pause / 4 > 0 ? std::uniform_int_distribution<int64_t>(0, pause / 4)(random) : 0;
  return static_cast<int>(pause - jitter);
}

Result<HttpResponse> HttpClient::Send(const HttpRequest& request) {
  std::string what = StrCat(request.method, " ", UrlForMessages(request.url));
  if (!StartsWith(request.url, "http://") && !StartsWith(request.url, "https://")) {
    return Status::InvalidArgument(StrCat(what, ": not an http:// or https:// URL"));
  }
  if (handle_->curl == nullptr) {
    handle_->curl = curl_easy_init();
    if (handle_->curl == nullptr) return Status::IOError(StrCat(what, ": cannot set up libcurl"));
  }
  CURL* curl = handle_->curl;
  curl_easy_reset(curl);
  HttpResponse response;
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout_ms));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.request_timeout_ms));
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  if (!options_.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, options_.ca_file.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, AppendBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, ReadHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &response);
  if (request.method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else if (request.method != "GET") {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  if (!request.body.empty() || request.method == "POST" || request.method == "PUT") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  }
  curl_slist* headers = nullptr;
  for (const auto& [name, value] : request.headers) {
    headers = curl_slist_append(headers, StrCat(name, ": ", value).c_str());
  }
  // No "Expect: 100-continue" pause before a large body.
  headers = curl_slist_append(headers, "Expect:");
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  CURLcode code = curl_easy_perform(curl);
  curl_slist_free_all(headers);
  if (code != CURLE_OK) {
    // The error buffer may quote the URL libcurl was given; ours carries no
    // secret (credentials travel in headers and bodies only).
    std::string detail = error[0] != '\0' ? std::string(error) : std::string(curl_easy_strerror(code));
    return Status::IOError(StrCat(what, ": ", detail));
  }
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  response.status = static_cast<int>(status);
  return response;
}

Result<HttpResponse> HttpClient::SendWithRetries(const HttpRequest& request) {
  const bool idempotent = IsIdempotent(request.method);
  const int attempts = std::max(1, options_.max_attempts);
  for (int attempt = 1;; ++attempt) {
    Result<HttpResponse> response = Send(request);
    bool retry = response.ok() ? IsRetryableStatus(response->status)
                               : response.status().kind() == StatusKind::kIOError;
    if (!retry || !idempotent || attempt >= attempts) return response;
    int pause = BackoffMs(attempt);
    if (options_.sleep) {
      options_.sleep(pause);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(pause));
    }
  }
}

}  // namespace cqlite::net
