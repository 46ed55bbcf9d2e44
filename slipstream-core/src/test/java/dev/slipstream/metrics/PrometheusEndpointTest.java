/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.Counter;
import dev.slipstream.S3Location;
import dev.slipstream.ShadowCache;
import dev.slipstream.Slipstream;
import dev.slipstream.SlipstreamConfig;
import dev.slipstream.SlipstreamInputStream;
import dev.slipstream.testkit.EmbeddedS3Server;
import dev.slipstream.testkit.S3ServerExtension;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A client's metrics, with its cost and shadow caches, scraped over HTTP from the endpoint. */
class PrometheusEndpointTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();

  @Test
  void aClientsCountersCostAndShadowCachesAreScrapedOverHttp() throws IOException {
    S3.server().createBucket("prom");
    S3.server().putGenerated("prom", "data", 3, 3L * 256 * 1024);
    SlipstreamConfig config = SlipstreamConfig.builder()
        .set("endpoint", S3.server().endpoint().toString())
        .set("region", EmbeddedS3Server.REGION)
        .set("path.style.access", "true")
        .set("access.key", EmbeddedS3Server.ACCESS_KEY)
        .set("secret.key", EmbeddedS3Server.SECRET_KEY)
        .set("cache.disk.mode", "off")
        .set("block.size", "256K")
        .set("cache.shadow.sizes", "256K,1M")
        .build();
    try (Slipstream client = Slipstream.builder().isolatedResources().config(config).build();
         PrometheusEndpoint endpoint = PrometheusEndpoint.start(
             new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), new SlipstreamMetrics(client))) {
      for (int round = 0; round < 2; round++) {
        try (SlipstreamInputStream in = client.open(S3Location.parse("s3://prom/data"))) {
          in.readAllBytes();
        }
      }
      assertThat(endpoint.uri().toString()).startsWith("http://127.0.0.1:").endsWith("/metrics");
      List<String> lines = get(endpoint.uri()).lines().filter(l -> !l.startsWith("#")).toList();

      long gets = client.statistics().get(Counter.GET_REQUESTS);
      assertThat(gets).isPositive();
      assertThat(lines).contains("slipstream_get_requests_total " + (double) gets);
      List<ShadowCache> shadows = client.shadowCaches();
      assertThat(lines).contains(
          "slipstream_shadow_cache_lookups_total{size=\"262144\"} " + (double) shadows.get(0).lookups(),
          // one block's cache may or may not meet a block again, as prefetches finish in either order
          "slipstream_shadow_cache_hits_total{size=\"262144\"} " + (double) shadows.get(0).hits(),
          "slipstream_shadow_cache_lookups_total{size=\"1048576\"} 6.0",
          "slipstream_shadow_cache_hits_total{size=\"1048576\"} 3.0");
      double dollars = lines.stream().filter(l -> l.startsWith("slipstream_cost_dollars_total "))
          .mapToDouble(l -> Double.parseDouble(l.substring(l.indexOf(' ') + 1))).findFirst().orElseThrow();
      assertThat(dollars).isEqualTo(client.cost().totalDollars()).isPositive();
      assertThat(String.join("\n", lines)).doesNotContain("prom/").doesNotContain("data\"")
          .doesNotContain(EmbeddedS3Server.ACCESS_KEY);

      URI other = endpoint.uri().resolve("/other");
      assertThat(status(other)).isEqualTo(404);
    }
  }

  @Test
  void aPortInUseIsAnIoExceptionNamingTheAddress() throws IOException {
    try (PrometheusEndpoint first = PrometheusEndpoint.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
      InetSocketAddress taken = new InetSocketAddress(InetAddress.getLoopbackAddress(), first.uri().getPort());
      assertThatThrownBy(() -> PrometheusEndpoint.start(taken)).isInstanceOf(IOException.class)
          .hasMessageContaining("cannot serve Prometheus metrics at").hasMessageContaining(":" + taken.getPort());
    }
  }

  private static String get(URI uri) throws IOException {
    HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
    try (InputStream in = c.getInputStream()) {
      assertThat(c.getResponseCode()).isEqualTo(200);
      assertThat(c.getContentType()).startsWith("text/plain");
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } finally {
      c.disconnect();
    }
  }

  private static int status(URI uri) throws IOException {
    HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
    try {
      return c.getResponseCode();
    } finally {
      c.disconnect();
    }
  }
}
