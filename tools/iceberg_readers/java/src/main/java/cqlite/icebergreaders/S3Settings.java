package cqlite.icebergreaders;

import java.util.HashMap;
import java.util.Map;

import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.aws.AwsClientProperties;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.aws.s3.S3FileIOProperties;

/**
 * The catalog properties that give an Iceberg catalog Iceberg's S3FileIO
 * (iceberg-aws) for an s3://bucket/prefix warehouse, from the environment
 * variables cqlite takes its store from:
 *
 * <pre>
 *   CQLITE_S3_ENDPOINT (or AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL)   s3.endpoint, addressed path-style
 *   AWS_REGION (or AWS_DEFAULT_REGION; else us-east-1)             client.region
 *   AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN    s3.access-key-id, s3.secret-access-key,
 *                                                                  s3.session-token
 * </pre>
 *
 * Without an access key in the environment the AWS SDK's own chain of
 * credential providers is left to find one. A warehouse that is not s3://
 * gets no properties: the catalog keeps its default FileIO.
 */
final class S3Settings {
    private S3Settings() {}

    static boolean isS3(String warehouse) {
        return warehouse != null && warehouse.startsWith("s3://");
    }

    static Map<String, String> catalogProperties(String warehouse) {
        Map<String, String> props = new HashMap<>();
        if (!isS3(warehouse)) {
            return props;
        }
        props.put(CatalogProperties.FILE_IO_IMPL, S3FileIO.class.getName());
        String endpoint = firstSet("CQLITE_S3_ENDPOINT", "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL");
        if (endpoint != null) {
            // A store at an endpoint of its own is addressed <endpoint>/<bucket>/<key>, as cqlite does.
            props.put(S3FileIOProperties.ENDPOINT, endpoint);
            props.put(S3FileIOProperties.PATH_STYLE_ACCESS, "true");
        }
        String region = firstSet("AWS_REGION", "AWS_DEFAULT_REGION");
        props.put(AwsClientProperties.CLIENT_REGION, region != null ? region : "us-east-1");
        String keyId = firstSet("AWS_ACCESS_KEY_ID");
        String secret = firstSet("AWS_SECRET_ACCESS_KEY");
        if (keyId != null && secret != null) {
            props.put(S3FileIOProperties.ACCESS_KEY_ID, keyId);
            props.put(S3FileIOProperties.SECRET_ACCESS_KEY, secret);
            String token = firstSet("AWS_SESSION_TOKEN");
            if (token != null) {
                props.put(S3FileIOProperties.SESSION_TOKEN, token);
            }
        }
        return props;
    }

    private static String firstSet(String... names) {
        for (String name : names) {
            String value = System.getenv(name);
            if (value != null && !value.isEmpty()) {
                return value;
            }
        }
        return null;
    }
}
