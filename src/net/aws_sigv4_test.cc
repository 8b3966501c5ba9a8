#include "net/aws_sigv4.h"

#include <gtest/gtest.h>

namespace cqlite::net {
namespace {

// The example credentials, bucket host and time of the S3 Signature V4
// examples in AWS's documentation ("Examples: Signature Calculations in AWS
// Signature Version 4"); each test takes the example's inputs and its
// published signature.
const AwsCredentials kExampleCredentials{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "", ""};
constexpr char kExampleHost[] = "examplebucket.s3.amazonaws.com";
constexpr char kExampleDate[] = "20130524T000000Z";
constexpr char kEmptyHash[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

SigningInput Example(std::string method, std::string uri, std::vector<std::pair<std::string, std::string>> query,
                     std::vector<std::pair<std::string, std::string>> headers, std::string payload_hash) {
  SigningInput input;
  input.method = std::move(method);
  input.canonical_uri = std::move(uri);
  input.query = std::move(query);
  input.headers = std::move(headers);
  input.headers.emplace_back("Host", kExampleHost);
  input.headers.emplace_back("x-amz-date", kExampleDate);
  input.headers.emplace_back("x-amz-content-sha256", payload_hash);
  input.payload_hash = std::move(payload_hash);
  input.amz_date = kExampleDate;
  input.region = "us-east-1";
  return input;
}

TEST(AwsSigV4Test, GetObjectWithARange) {
  Signature s = SignV4(Example("GET", "/test.txt", {}, {{"Range", "bytes=0-9"}}, kEmptyHash), kExampleCredentials);
  EXPECT_EQ(s.canonical_request,
            "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
            "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
            "x-amz-date:20130524T000000Z\n\nhost;range;x-amz-content-sha256;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(s.signature, "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  EXPECT_EQ(s.authorization,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(AwsSigV4Test, PutObjectWithASignedPayloadAndAKeyThatNeedsEncoding) {
  const std::string body = "Welcome to Amazon S3.";
  EXPECT_EQ(Sha256Hex(body), "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  const std::string uri = "/" + AwsUriEncode("test$file.text", true);
  EXPECT_EQ(uri, "/test%24file.text");
  Signature s = SignV4(Example("PUT", uri, {},
                               {{"Date", "Fri, 24 May 2013 00:00:00 GMT"},
                                {"x-amz-storage-class", "REDUCED_REDUNDANCY"}},
                               Sha256Hex(body)),
                       kExampleCredentials);
  EXPECT_EQ(s.signature, "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
  EXPECT_NE(s.authorization.find("SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,"),
            std::string::npos);
}

TEST(AwsSigV4Test, GetBucketLifecycleAParameterWithoutAValue) {
  Signature s = SignV4(Example("GET", "/", {{"lifecycle", ""}}, {}, kEmptyHash), kExampleCredentials);
  EXPECT_NE(s.canonical_request.find("GET\n/\nlifecycle=\n"), std::string::npos);
  EXPECT_EQ(s.signature, "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
}

TEST(AwsSigV4Test, ListObjectsQueryParametersAreSorted) {
  // Given out of order: the canonical query string sorts them.
  Signature s = SignV4(Example("GET", "/", {{"prefix", "J"}, {"max-keys", "2"}}, {}, kEmptyHash), kExampleCredentials);
  EXPECT_NE(s.canonical_request.find("\nmax-keys=2&prefix=J\n"), std::string::npos);
  EXPECT_EQ(s.signature, "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

TEST(AwsSigV4Test, AnotherSecretGivesAnotherSignature) {
  AwsCredentials other = kExampleCredentials;
  other.secret_access_key += "x";
  Signature s = SignV4(Example("GET", "/test.txt", {}, {{"Range", "bytes=0-9"}}, kEmptyHash), other);
  EXPECT_NE(s.signature, "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  EXPECT_EQ(s.authorization.find(other.secret_access_key), std::string::npos);
}

TEST(AwsSigV4Test, UriEncodingAndHeaderValues) {
  EXPECT_EQ(AwsUriEncode("a b/c+d=é~._-", true), "a%20b/c%2Bd%3D%C3%A9~._-");
  EXPECT_EQ(AwsUriEncode("a/b", false), "a%2Fb");
  EXPECT_EQ(CanonicalQueryString({{"uploadId", "x/y z"}, {"partNumber", "2"}}), "partNumber=2&uploadId=x%2Fy%20z");
  // Values are trimmed and inner runs of spaces made one; names lower-cased.
  SigningInput input = Example("GET", "/", {}, {{"X-Amz-Meta-Note", "  a   b  "}}, kEmptyHash);
  EXPECT_NE(SignV4(input, kExampleCredentials).canonical_request.find("\nx-amz-meta-note:a b\n"), std::string::npos);
  EXPECT_EQ(AmzDate(1369353600), "20130524T000000Z");
}

}  // namespace
}  // namespace cqlite::net
