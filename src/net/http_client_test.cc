#include "net/http_client.h"

#include <gtest/gtest.h>

#include <atomic>

#include "net/loopback_http_server_testing.h"

namespace cqlite::net {
namespace {

HttpClientOptions FastOptions(std::vector<int>* pauses = nullptr) {
  HttpClientOptions options;
  options.connect_timeout_ms = 2'000;
  options.request_timeout_ms = 2'000;
  options.max_attempts = 4;
  options.initial_backoff_ms = 100;
  options.max_backoff_ms = 300;
  options.sleep = [pauses](int ms) {
    if (pauses) pauses->push_back(ms);
  };
  return options;
}

TEST(HttpClientTest, SendsMethodHeadersAndBodyAndReadsTheAnswer) {
  LoopbackHttpServer server([](const ReceivedRequest& r) {
    return ScriptedAnswer{201, StrCat("{\"got\": \"", r.method, " ", r.target, "\"}")};
  });
  ASSERT_TRUE(server.ok());
  HttpClient client(FastOptions());
  HttpRequest request;
  request.method = "POST";
  request.url = server.Url("/v1/namespaces?x=1");
  request.headers = {{"Content-Type", "application/json"}, {"X-Test", "yes"}};
  request.body = "{\"a\": 1}";
  auto response = client.Send(request);
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->status, 201);
  EXPECT_EQ(response->body, "{\"got\": \"POST /v1/namespaces?x=1\"}");
  EXPECT_EQ(response->content_type, "application/json");
  auto received = server.requests();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].body, "{\"a\": 1}");
  EXPECT_EQ(received[0].headers["x-test"], "yes");
  EXPECT_EQ(received[0].headers["content-type"], "application/json");
}

TEST(HttpClientTest, AnErrorStatusIsAResponseNotAnError) {
  LoopbackHttpServer server([](const ReceivedRequest&) { return ScriptedAnswer{404, "{\"error\": {}}"}; });
  HttpClient client(FastOptions());
  auto response = client.SendWithRetries({"GET", server.Url("/v1/config"), {}, ""});
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->status, 404);
  EXPECT_EQ(server.requests().size(), 1u);  // a 4xx is not retried
}

TEST(HttpClientTest, AnIdempotentRequestIsRetriedOn5xxWithGrowingPauses) {
  std::atomic<int> calls{0};
  LoopbackHttpServer server([&](const ReceivedRequest&) {
    int n = ++calls;
    return n <= 2 ? ScriptedAnswer{n == 1 ? 503 : 502, "busy"} : ScriptedAnswer{200, "{}"};
  });
  std::vector<int> pauses;
  HttpClient client(FastOptions(&pauses));
  auto response = client.SendWithRetries({"GET", server.Url("/v1/config"), {}, ""});
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(calls.load(), 3);
  ASSERT_EQ(pauses.size(), 2u);
  // 100 ms then 200 ms, each less up to a quarter (jitter).
  EXPECT_GE(pauses[0], 75);
  EXPECT_LE(pauses[0], 100);
  EXPECT_GE(pauses[1], 150);
  EXPECT_LE(pauses[1], 200);
}

TEST(HttpClientTest, RetriesStopAfterMaxAttemptsAndGiveTheLastAnswer) {
  std::atomic<int> calls{0};
  LoopbackHttpServer server([&](const ReceivedRequest&) {
    ++calls;
    return ScriptedAnswer{500, "{\"error\": {\"message\": \"boom\"}}"};
  });
  std::vector<int> pauses;
  HttpClient client(FastOptions(&pauses));
  auto response = client.SendWithRetries({"GET", server.Url("/x"), {}, ""});
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->status, 500);
  EXPECT_EQ(calls.load(), 4);
  ASSERT_EQ(pauses.size(), 3u);
  EXPECT_LE(pauses[2], 300);  // capped at max_backoff_ms
  EXPECT_GE(pauses[2], 225);
}

TEST(HttpClientTest, APostIsNotRetried) {
  std::atomic<int> calls{0};
  LoopbackHttpServer server([&](const ReceivedRequest&) {
    ++calls;
    return ScriptedAnswer{503, ""};
  });
  HttpClient client(FastOptions());
  auto response = client.SendWithRetries({"POST", server.Url("/v1/namespaces/a/tables/t"), {}, "{}"});
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->status, 503);
  EXPECT_EQ(calls.load(), 1);
}

TEST(HttpClientTest, ALostConnectionIsAnIOErrorNamingTheEndpointAndIsRetried) {
  std::atomic<int> calls{0};
  LoopbackHttpServer server([&](const ReceivedRequest&) {
    ScriptedAnswer answer{200, "{}"};
    answer.drop = ++calls == 1;
    return answer;
  });
  HttpClient client(FastOptions());
  auto once = client.Send({"GET", server.Url("/v1/config?warehouse=w"), {}, ""});
  ASSERT_FALSE(once.ok());
  EXPECT_EQ(once.status().kind(), StatusKind::kIOError);
  EXPECT_NE(once.status().message().find(StrCat("GET http://127.0.0.1:", server.port(), "/v1/config")),
            std::string::npos)
      << once.status().message();
  EXPECT_EQ(once.status().message().find("warehouse=w"), std::string::npos) << once.status().message();
  auto retried = client.SendWithRetries({"GET", server.Url("/v1/config"), {}, ""});
  ASSERT_TRUE(retried.ok()) << retried.status().ToString();
  EXPECT_EQ(retried->status, 200);
  EXPECT_EQ(calls.load(), 2);
}

TEST(HttpClientTest, AnAnswerLaterThanTheTimeoutIsAnIOError) {
  LoopbackHttpServer server([](const ReceivedRequest&) {
    ScriptedAnswer answer{200, "{}"};
    answer.delay_ms = 1'500;
    return answer;
  });
  HttpClientOptions options = FastOptions();
  options.request_timeout_ms = 300;
  options.max_attempts = 1;
  HttpClient client(options);
  auto start = std::chrono::steady_clock::now();
  auto response = client.SendWithRetries({"GET", server.Url("/slow"), {}, ""});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().kind(), StatusKind::kIOError);
  EXPECT_LT(seconds, 1.4);
}

TEST(HttpClientTest, ARefusedConnectionIsAnIOError) {
  int port;
  {
    LoopbackHttpServer server([](const ReceivedRequest&) { return ScriptedAnswer{}; });
    port = server.port();
  }  // stopped: nothing listens there now
  std::vector<int> pauses;
  HttpClient client(FastOptions(&pauses));
  auto response = client.SendWithRetries({"GET", StrCat("http://127.0.0.1:", port, "/v1/config"), {}, ""});
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().kind(), StatusKind::kIOError);
  EXPECT_EQ(pauses.size(), 3u);  // tried max_attempts times
}

TEST(HttpClientTest, MessagesLeaveOutTheUserPartAndQueryOfAUrl) {
  EXPECT_EQ(UrlForMessages("http://user:secret@host:8181/api/catalog?token=abc"), "http://host:8181/api/catalog");
  EXPECT_EQ(UrlForMessages("https://host/v1/config"), "https://host/v1/config");
  EXPECT_EQ(UrlForMessages("https://u@host"), "https://host");
  HttpClient client(FastOptions());
  auto response = client.Send({"GET", "ftp://user:secret@host/x", {}, ""});
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().kind(), StatusKind::kInvalidArgument);
  EXPECT_EQ(response.status().message().find("secret"), std::string::npos);
}

TEST(HttpClientTest, IdempotentMethodsAndRetryableStatuses) {
  for (const char* m : {"GET", "HEAD", "PUT", "DELETE"}) EXPECT_TRUE(IsIdempotent(m)) << m;
  EXPECT_FALSE(IsIdempotent("POST"));
  for (int s : {500, 502, 503, 504}) EXPECT_TRUE(IsRetryableStatus(s)) << s;
  for (int s : {200, 400, 401, 403, 404, 409, 501}) EXPECT_FALSE(IsRetryableStatus(s)) << s;
}

}  // namespace
}  // namespace cqlite::net
