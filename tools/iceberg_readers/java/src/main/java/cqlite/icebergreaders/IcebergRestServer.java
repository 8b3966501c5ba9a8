package cqlite.icebergreaders;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.servlet.FilterHolder;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.servlet.ServletHolder;

/**
 * An Iceberg REST catalog server for tests: Apache Iceberg's own request
 * handling (RESTCatalogAdapter and RESTCatalogServlet from iceberg-core's test
 * jar) over a JdbcCatalog kept in a SQLite file, served by Jetty on 127.0.0.1
 * only.
 *
 * <pre>
 *   IcebergRestServer PORT WAREHOUSE CATALOG_FILE [--credential ID:SECRET]
 * </pre>
 *
 * WAREHOUSE is a directory, a file: URI, or s3://bucket/prefix: then the
 * catalog reads and writes metadata files through Iceberg's S3FileIO, the
 * store's endpoint, region and credentials taken from the environment as
 * cqlite takes them (S3Settings). Clients are handed no S3 configuration:
 * they reach the store with their own.
 *
 * PORT 0 picks a free port. Once it listens it prints one line,
 * {"uri": "http://127.0.0.1:PORT"}, on stdout. With --credential the server
 * wants OAuth2: POST /v1/oauth/tokens with grant_type=client_credentials and
 * that client id and secret (as form fields or in HTTP Basic authentication)
 * gets a bearer token, a wrong pair gets 401
 * (invalid_client), and every other request without that token gets 401
 * (NotAuthorizedException). Without it, no authentication is asked for. It
 * runs until killed.
 */
public final class IcebergRestServer {
    private IcebergRestServer() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 3 && !(args.length == 5 && args[3].equals("--credential"))) {
            System.err.println("usage: IcebergRestServer PORT WAREHOUSE CATALOG_FILE [--credential ID:SECRET]");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        String warehouse = args[1];
        String catalogFile = args[2];
        String credential = args.length == 5 ? args[4] : null;

        Map<String, String> props = new HashMap<>();
        props.put(CatalogProperties.URI, "jdbc:sqlite:" + catalogFile);
        props.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse.contains(":") ? warehouse : "file://" + warehouse);
        props.put("jdbc.schema-version", "V1");
        // An s3:// warehouse: the catalog reads the metadata files tables are registered with, and writes
        // those of commits, through S3FileIO (store, region and credentials from the environment).
        props.putAll(S3Settings.catalogProperties(warehouse));
        JdbcCatalog catalog = new JdbcCatalog();
        catalog.setConf(new Configuration());
        catalog.initialize("rest_backend", props);

        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
        context.addServlet(new ServletHolder(new RESTCatalogServlet(new RESTCatalogAdapter(catalog))), "/*");
        if (credential != null) {
            context.addFilter(new FilterHolder(new OAuthFilter(credential)), "/*",
                    EnumSet.of(DispatcherType.REQUEST));
        }
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        server.addConnector(connector);
        server.setHandler(context);
        server.start();
        System.out.println("{\"uri\": \"http://127.0.0.1:" + connector.getLocalPort() + "\"}");
        System.out.flush();
        server.join();
    }

    /** OAuth2 client credentials in front of the catalog (see the class comment). */
    static final class OAuthFilter implements Filter {
        private final String clientId;
        private final String clientSecret;
        private final String token = "cqlite-test-" + UUID.randomUUID();

        OAuthFilter(String credential) {
            int colon = credential.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("--credential wants ID:SECRET");
            }
            clientId = credential.substring(0, colon);
            clientSecret = credential.substring(colon + 1);
        }

        @Override
        public void doFilter(ServletRequest req, ServletResponse resp, FilterChain chain)
                throws IOException, ServletException {
            HttpServletRequest request = (HttpServletRequest) req;
            HttpServletResponse response = (HttpServletResponse) resp;
            if (request.getRequestURI().equals("/v1/oauth/tokens")) {
                String grant = request.getParameter("grant_type");
                if (!"client_credentials".equals(grant)) {
                    send(response, 400, "{\"error\": \"unsupported_grant_type\", "
                            + "\"error_description\": \"only client_credentials\"}");
                } else if (presentsCredential(request)) {
                    send(response, 200, "{\"access_token\": \"" + token + "\", \"token_type\": \"bearer\", "
                            + "\"issued_token_type\": \"urn:ietf:params:oauth:token-type:access_token\", "
                            + "\"expires_in\": 3600}");
                } else {
                    send(response, 401, "{\"error\": \"invalid_client\", "
                            + "\"error_description\": \"Credentials for the client are invalid\"}");
                }
                return;
            }
            String authorization = request.getHeader("Authorization");
            if (authorization == null || !authorization.equals("Bearer " + token)) {
                send(response, 401, "{\"error\": {\"message\": \"Not authorized: no valid bearer token\", "
                        + "\"type\": \"NotAuthorizedException\", \"code\": 401}}");
                return;
            }
            chain.doFilter(req, resp);
        }

        // The client's id and secret as form fields, or in HTTP Basic
        // authentication (RFC 6749 2.3.1: each URL-encoded), as DuckDB sends them.
        private boolean presentsCredential(HttpServletRequest request) {
            String id = request.getParameter("client_id");
            String secret = request.getParameter("client_secret");
            String authorization = request.getHeader("Authorization");
            if (authorization != null && authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
                String pair = new String(java.util.Base64.getDecoder().decode(authorization.substring(6).trim()),
                        StandardCharsets.UTF_8);
                int colon = pair.indexOf(':');
                if (colon >= 0) {
                    id = java.net.URLDecoder.decode(pair.substring(0, colon), StandardCharsets.UTF_8);
                    secret = java.net.URLDecoder.decode(pair.substring(colon + 1), StandardCharsets.UTF_8);
                }
            }
            return clientId.equals(id) && clientSecret.equals(secret);
        }

        private static void send(HttpServletResponse response, int status, String body) throws IOException {
            response.setStatus(status);
            response.setContentType("application/json");
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            response.setContentLength(bytes.length);
            response.getOutputStream().write(bytes);
        }
    }
}
