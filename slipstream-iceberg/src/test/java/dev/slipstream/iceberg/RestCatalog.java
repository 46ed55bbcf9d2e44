/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.slipstream.testkit.RequestInfo;
import dev.slipstream.testkit.S3Wire;
import dev.slipstream.testkit.ScriptedS3Server;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A REST catalog that vends short-lived credentials, over Iceberg's own REST server, in front of a scripted
 * store that enforces them.
 *
 * <p>The catalog is Iceberg's: {@link RestCatalogMain} in a child JVM (Iceberg's REST servlet and adapter over
 * a JDBC catalog on SQLite), whose tables live in the store; its own reads and writes of metadata go as the
 * principal {@code catalog}, which the store lets do anything. Iceberg's test server vends no credentials,
 * so a front on 127.0.0.1 passes every request through to it and adds what a vending catalog (Polaris, Unity,
 * S3 Tables) adds: to each answer that loads a table, {@code storage-credentials} for the table's location,
 * a session credential of the principal {@link #principals} names for the table, and
 * {@code client.refresh-credentials-endpoint}, the table's {@code .../credentials} route, which the front
 * serves with a new credential each time ({@link #refreshes}).
 *
 * <p>The store ({@link #refusal}, for {@link ScriptedS3Server#refuse}) admits a request only if it is signed
 * with a key this catalog vended, carries that key's session token, comes before the key dies, and touches an
 * object under the location of a table its principal was vended for ({@code InvalidAccessKeyId},
 * {@code InvalidToken}, {@code ExpiredToken}, {@code AccessDenied} otherwise). A credential states its expiry
 * ({@code s3.session-token-expires-at-ms}) {@link #lifetime} after it was vended, and its key dies
 * {@link #SKEW} after that: the time a request signed at the last moment takes to arrive.
 */
final class RestCatalog implements AutoCloseable {
  static final String BUCKET = "lake";
  static final String WAREHOUSE = "s3://" + BUCKET + "/wh";
  /** The catalog server's own principal. */
  static final String CATALOG_KEY = "catalog";
  static final Duration SKEW = Duration.ofSeconds(1);
  private static final Pattern CREDENTIALS = Pattern.compile("/v1/namespaces/([^/]+)/tables/([^/]+)/credentials");
  private static final Pattern TABLE = Pattern.compile("/v1/namespaces/([^/]+)/tables(/[^/]+)?|/v1/namespaces/([^/]+)/register");
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A credential this catalog vended. */
  record Token(String principal, String table, String accessKey, String secret, String session, long diesAtMillis) {}

  /** Table ({@code db.a}) to the principal its credentials are vended for. */
  final Map<String, String> principals = new ConcurrentHashMap<>();
  /** Vended keys by access key id. */
  final Map<String, Token> tokens = new ConcurrentHashMap<>();
  /** Table ({@code db.a}) to the number of refreshes served for it. */
  final Map<String, AtomicInteger> refreshes = new ConcurrentHashMap<>();
  /** How long a vended credential is good for, as it states. */
  volatile Duration lifetime = Duration.ofSeconds(3);

  private final AtomicInteger vended = new AtomicInteger();
  private final Process child;
  private final Thread reaper;
  private final URI backend;
  private final HttpServer front;
  private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "rest-catalog-front");
    t.setDaemon(true);
    return t;
  });
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  private RestCatalog(Process child, Thread reaper, URI backend) throws IOException {
    this.child = child;
    this.reaper = reaper;
    this.backend = backend;
    front = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    front.setExecutor(threads);
    front.createContext("/", this::handle);
    front.start();
  }

  /** Starts Iceberg's REST server on the store's bucket {@link #BUCKET}, and the front. */
  static RestCatalog start(ScriptedS3Server store, Path dir) throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Properties p = new Properties();
    p.setProperty("catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog");
    p.setProperty("uri", "jdbc:sqlite:" + dir.toAbsolutePath().resolve("catalog.db"));
    p.setProperty("jdbc.schema-version", "V1");
    p.setProperty("warehouse", WAREHOUSE);
    p.setProperty("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
    p.setProperty("s3.endpoint", store.endpoint().toString());
    p.setProperty("s3.path-style-access", "true");
    p.setProperty("client.region", "us-east-1");
    p.setProperty("s3.access-key-id", CATALOG_KEY);
    p.setProperty("s3.secret-access-key", CATALOG_KEY + "-secret");
    Path properties = dir.resolve("catalog.properties");
    try (Writer w = Files.newBufferedWriter(properties, StandardCharsets.UTF_8)) {
      p.store(w, null);
    }
    Path portFile = dir.resolve("port");
    Path log = dir.resolve("rest-catalog.log");
    String jars = System.getProperty("slipstream.rest.catalog.dir");
    if (jars == null) {
      throw new IllegalStateException("slipstream.rest.catalog.dir is not set: run through Maven, which copies the"
          + " REST catalog's jars there");
    }
    String classes;
    try {
      classes = Path.of(RestCatalogMain.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
    List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
        "-Daws.requestChecksumCalculation=WHEN_REQUIRED", "-Daws.responseChecksumValidation=WHEN_REQUIRED",
        "-cp", jars + "/*" + java.io.File.pathSeparator + classes, RestCatalogMain.class.getName(),
        properties.toString(), portFile.toString());
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    Thread reaper = new Thread(process::destroyForcibly, "rest-catalog-reaper");
    Runtime.getRuntime().addShutdownHook(reaper);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.exists(portFile)) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        process.destroyForcibly();
        Runtime.getRuntime().removeShutdownHook(reaper);
        throw new IllegalStateException("the REST catalog did not start: " + Files.readString(log));
      }
      Thread.sleep(50);
    }
    URI backend = URI.create("http://127.0.0.1:" + Files.readString(portFile).trim());
    return new RestCatalog(process, reaper, backend);
  }

  /** The catalog's {@code uri}. */
  URI uri() {
    return URI.create("http://127.0.0.1:" + front.getAddress().getPort() + "/");
  }

  /** Where a table of namespace {@code db} lives, as the JDBC catalog places it. */
  static String location(String db, String table) {
    return WAREHOUSE + "/" + db + "/" + table;
  }

  /**
   * The store's verdict on {@code r}: null to admit it, else the S3 error code it is refused with.
   */
  String refusal(RequestInfo r) {
    String key = S3Wire.accessKeyOf(r);
    if (CATALOG_KEY.equals(key)) {
      return null;
    }
    Token t = key == null ? null : tokens.get(key);
    if (t == null) {
      return "InvalidAccessKeyId";
    }
    if (!t.session().equals(r.header("x-amz-security-token"))) {
      return "InvalidToken";
    }
    if (System.currentTimeMillis() >= t.diesAtMillis()) {
      return "ExpiredToken";
    }
    String object = S3Wire.objectOf(r);
    if (object.indexOf('/') < 0 || object.endsWith("/")) { // a LIST: what it lists
      String prefix = S3Wire.queryParam(r.query(), "prefix");
      object = BUCKET + "/" + (prefix == null ? "" : prefix);
    }
    String[] table = t.table().split("\\.");
    String allowed = location(table[0], table[1]).substring("s3://".length()) + "/";
    return object.startsWith(allowed) ? null : "AccessDenied";
  }

  /** The principals whose keys signed {@code requests}, and how many distinct keys of each. */
  Map<String, Set<String>> keysByPrincipal(List<RequestInfo> requests) {
    Map<String, Set<String>> by = new java.util.TreeMap<>();
    for (RequestInfo r : requests) {
      String key = S3Wire.accessKeyOf(r);
      Token t = key == null ? null : tokens.get(key);
      String principal = t == null ? String.valueOf(key) : t.principal();
      by.computeIfAbsent(principal, k -> new java.util.TreeSet<>()).add(String.valueOf(key));
    }
    return by;
  }

  int refreshes(String table) {
    AtomicInteger n = refreshes.get(table);
    return n == null ? 0 : n.get();
  }

  /** A new credential for {@code table}'s principal. */
  private ObjectNode vend(String db, String table) {
    String name = db + "." + table;
    String principal = principals.get(name);
    if (principal == null) {
      throw new IllegalStateException("no principal for table " + name);
    }
    int n = vended.incrementAndGet();
    long now = System.currentTimeMillis();
    Duration life = lifetime;
    Token t = new Token(principal, name, principal + "-" + n, principal + "-secret-" + n, "session-" + n,
        now + life.plus(SKEW).toMillis());
    tokens.put(t.accessKey(), t);
    ObjectNode credential = JSON.createObjectNode();
    credential.put("prefix", location(db, table));
    ObjectNode config = credential.putObject("config");
    config.put("s3.access-key-id", t.accessKey());
    config.put("s3.secret-access-key", t.secret());
    config.put("s3.session-token", t.session());
    config.put("s3.session-token-expires-at-ms", Long.toString(now + life.toMillis()));
    return credential;
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      String path = ex.getRequestURI().getRawPath();
      Matcher refresh = CREDENTIALS.matcher(path);
      if (refresh.matches() && ex.getRequestMethod().equals("GET")) {
        String db = decode(refresh.group(1));
        String table = decode(refresh.group(2));
        refreshes.computeIfAbsent(db + "." + table, k -> new AtomicInteger()).incrementAndGet();
        ObjectNode answer = JSON.createObjectNode();
        answer.putArray("storage-credentials").add(vend(db, table));
        send(ex, 200, JSON.writeValueAsBytes(answer));
        return;
      }
      HttpResponse<byte[]> response = forward(ex);
      byte[] body = response.body();
      Matcher table = TABLE.matcher(path);
      boolean loads = table.matches() && (ex.getRequestMethod().equals("GET") ? table.group(2) != null
          : ex.getRequestMethod().equals("POST") && table.group(2) == null); // a load, a create or a register
      if (response.statusCode() == 200 && loads) {
        body = withCredentials(body, table);
      }
      response.headers().firstValue("content-type").ifPresent(v -> ex.getResponseHeaders().set("Content-Type", v));
      send(ex, response.statusCode(), body);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  /** Adds a credential and the refresh endpoint to an answer that loads a table (it has {@code metadata}). */
  private byte[] withCredentials(byte[] body, Matcher table) throws IOException {
    ObjectNode answer = (ObjectNode) JSON.readTree(body);
    if (!answer.has("metadata") || !answer.has("metadata-location")) {
      return body; // a commit's answer, or a listing
    }
    String location = answer.get("metadata").get("location").asText();
    String prefix = WAREHOUSE + "/";
    String[] parts = location.startsWith(prefix) ? location.substring(prefix.length()).split("/") : new String[0];
    if (parts.length != 2) {
      throw new IllegalStateException("a table outside the warehouse's layout: " + location);
    }
    ObjectNode config = answer.has("config") ? (ObjectNode) answer.get("config") : answer.putObject("config");
    config.put("client.refresh-credentials-endpoint", "v1/namespaces/" + parts[0] + "/tables/" + parts[1]
        + "/credentials");
    ArrayNode credentials = answer.putArray("storage-credentials");
    credentials.add(vend(parts[0], parts[1]));
    return JSON.writeValueAsBytes(answer);
  }

  private HttpResponse<byte[]> forward(HttpExchange ex) throws IOException, InterruptedException {
    String query = ex.getRequestURI().getRawQuery();
    URI target = backend.resolve(ex.getRequestURI().getRawPath() + (query == null ? "" : "?" + query));
    byte[] body = ex.getRequestBody().readAllBytes();
    HttpRequest.Builder b = HttpRequest.newBuilder(target).timeout(Duration.ofSeconds(60))
        .method(ex.getRequestMethod(), body.length == 0 ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofByteArray(body));
    for (Map.Entry<String, List<String>> h : ex.getRequestHeaders().entrySet()) {
      String name = h.getKey().toLowerCase(java.util.Locale.ROOT);
      if (Set.of("host", "content-length", "connection", "expect", "upgrade", "accept-encoding",
          "transfer-encoding", "keep-alive").contains(name)) {
        continue;
      }
      h.getValue().forEach(v -> b.header(h.getKey(), v));
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  private static void send(HttpExchange ex, int status, byte[] body) throws IOException {
    if (body.length == 0) {
      ex.sendResponseHeaders(status, -1);
      return;
    }
    if (!ex.getResponseHeaders().containsKey("Content-Type")) {
      ex.getResponseHeaders().set("Content-Type", "application/json");
    }
    ex.sendResponseHeaders(status, body.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(body);
    }
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    front.stop(0);
    threads.shutdownNow();
    try {
      Runtime.getRuntime().removeShutdownHook(reaper);
    } catch (IllegalStateException shuttingDown) {
      // the reaper runs anyway
    }
    child.destroy();
    try {
      if (!child.waitFor(10, TimeUnit.SECONDS)) {
        child.destroyForcibly();
        child.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
