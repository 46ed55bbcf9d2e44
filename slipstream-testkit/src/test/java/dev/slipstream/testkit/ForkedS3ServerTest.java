/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * s3proxy in a child JVM, spoken to over plain HTTP with AWS signature version 2: what the read path
 * and Hadoop's S3A rely on, for both storages.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ForkedS3ServerTest {
  private static final String BUCKET = "forked-test";

  /** Status, headers (lowercase names) and body of one response. */
  private record Response(int status, Map<String, String> headers, byte[] body) {
    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  @ParameterizedTest
  @EnumSource(ForkedS3Server.Storage.class)
  void servesSignedObjectRequestsAndStopsOnClose(ForkedS3Server.Storage storage) throws Exception {
    byte[] data = TestData.bytes(11, 100_000);
    ForkedS3Server server = ForkedS3Server.start(storage);
    int port = server.port();
    try {
      assertThat(server.storage()).isEqualTo(storage);
      assertThat(server.endpoint().toString()).isEqualTo("http://127.0.0.1:" + port);
      server.createBucket(BUCKET);

      assertThat(send(server, "PUT", "/" + BUCKET + "/dir/obj", data, Map.of()).status()).isEqualTo(200);

      Response head = send(server, "HEAD", "/" + BUCKET + "/dir/obj", null, Map.of());
      assertThat(head.status()).isEqualTo(200);
      assertThat(head.headers().get("content-length")).isEqualTo(Integer.toString(data.length));
      String etag = head.headers().get("etag");
      assertThat(etag).startsWith("\"").endsWith("\"");

      Response ranged = send(server, "GET", "/" + BUCKET + "/dir/obj", null, Map.of("Range", "bytes=1000-1999"));
      assertThat(ranged.status()).isEqualTo(206);
      assertThat(TestData.firstMismatch(11, 1000, ranged.body(), 0, 1000)).isEqualTo(-1);
      assertThat(ranged.body()).hasSize(1000);

      assertThat(send(server, "GET", "/" + BUCKET + "/dir/obj", null, Map.of("If-Match", etag)).body())
          .isEqualTo(data);
      assertThat(send(server, "GET", "/" + BUCKET + "/dir/obj", null, Map.of("If-Match", "\"0123\"")).status())
          .as("If-Match with another ETag")
          .isEqualTo(412);
      assertThat(send(server, "GET", "/" + BUCKET + "/missing", null, Map.of()).status()).isEqualTo(404);

      // SDK 2.30+ sends flexible checksum headers that s3proxy does not know.
      assertThat(send(server, "GET", "/" + BUCKET + "/dir/obj", null,
          Map.of("x-amz-checksum-mode", "ENABLED")).status()).isEqualTo(200);

      assertThat(unsigned(server, "/" + BUCKET + "/dir/obj")).isEqualTo(403);
      assertThat(send(server, "GET", "/" + BUCKET + "?list-type=2&prefix=dir/", null, Map.of()).text())
          .contains("<Key>dir/obj</Key>");

      if (storage == ForkedS3Server.Storage.FILESYSTEM) {
        assertThat(server.dataDir().resolve(BUCKET)).isDirectory();
      } else {
        assertThatThrownBy(server::dataDir).isInstanceOf(IllegalStateException.class);
        // S3 key semantics, as S3A's directory emulation needs: a key, the same key as a prefix, a marker.
        assertThat(send(server, "PUT", "/" + BUCKET + "/a", new byte[] {1}, Map.of()).status()).isEqualTo(200);
        assertThat(send(server, "PUT", "/" + BUCKET + "/a/b", new byte[] {2}, Map.of()).status()).isEqualTo(200);
        assertThat(send(server, "PUT", "/" + BUCKET + "/empty/", new byte[0], Map.of()).status()).isEqualTo(200);
        assertThat(send(server, "GET", "/" + BUCKET + "?list-type=2&prefix=empty/", null, Map.of()).text())
            .contains("<Key>empty/</Key>");
        assertThat(send(server, "GET", "/" + BUCKET + "/a", null, Map.of()).body()).containsExactly(1);
      }
      assertThatThrownBy(() -> server.createBucket("No_Such"))
          .isInstanceOf(IllegalArgumentException.class);
    } finally {
      server.close();
    }
    assertThat(listening(port)).as("port " + port + " after close").isFalse();
  }

  @Test
  void failsClearlyWithoutTheJar() {
    String saved = System.getProperty(ForkedS3Server.JAR_PROPERTY);
    System.setProperty(ForkedS3Server.JAR_PROPERTY, "/nonexistent/s3proxy.jar");
    try {
      assertThatThrownBy(ForkedS3Server::start)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(ForkedS3Server.JAR_PROPERTY);
    } finally {
      System.setProperty(ForkedS3Server.JAR_PROPERTY, saved);
    }
  }

  private static boolean listening(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static int unsigned(ForkedS3Server server, String path) throws IOException {
    HttpURLConnection c = (HttpURLConnection) server.endpoint().resolve(path).toURL().openConnection();
    try {
      return c.getResponseCode();
    } finally {
      c.disconnect();
    }
  }

  /** One request signed with AWS signature version 2 (path-style resource, no sub-resources but list). */
  private static Response send(ForkedS3Server server, String method, String pathAndQuery, byte[] body,
      Map<String, String> headers) throws IOException, GeneralSecurityException {
    String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC));
    String contentType = body == null ? "" : "application/octet-stream";
    TreeMap<String, String> amz = new TreeMap<>();
    headers.forEach((k, v) -> {
      if (k.toLowerCase(Locale.ROOT).startsWith("x-amz-")) {
        amz.put(k.toLowerCase(Locale.ROOT), v);
      }
    });
    StringBuilder toSign = new StringBuilder()
        .append(method).append('\n')
        .append('\n')
        .append(contentType).append('\n')
        .append(date).append('\n');
    amz.forEach((k, v) -> toSign.append(k).append(':').append(v).append('\n'));
    int q = pathAndQuery.indexOf('?');
    toSign.append(q < 0 ? pathAndQuery : pathAndQuery.substring(0, q));
    Mac mac = Mac.getInstance("HmacSHA1");
    mac.init(new SecretKeySpec(EmbeddedS3Server.SECRET_KEY.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
    String signature = Base64.getEncoder().encodeToString(
        mac.doFinal(toSign.toString().getBytes(StandardCharsets.UTF_8)));

    HttpURLConnection c = (HttpURLConnection) server.endpoint().resolve(pathAndQuery).toURL().openConnection();
    try {
      c.setRequestMethod(method);
      c.setConnectTimeout(10_000);
      c.setReadTimeout(30_000);
      c.setRequestProperty("Date", date);
      c.setRequestProperty("Authorization", "AWS " + EmbeddedS3Server.ACCESS_KEY + ":" + signature);
      headers.forEach(c::setRequestProperty);
      if (body != null) {
        c.setRequestProperty("Content-Type", contentType);
        c.setDoOutput(true);
        c.setFixedLengthStreamingMode(body.length);
        try (OutputStream out = c.getOutputStream()) {
          out.write(body);
        }
      }
      int status = c.getResponseCode();
      Map<String, String> responseHeaders = new LinkedHashMap<>();
      c.getHeaderFields().forEach((k, v) -> {
        if (k != null) {
          responseHeaders.put(k.toLowerCase(Locale.ROOT), String.join(",", v));
        }
      });
      InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
      byte[] bytes = in == null ? new byte[0] : in.readAllBytes();
      return new Response(status, responseHeaders, bytes);
    } finally {
      c.disconnect();
    }
  }
}
