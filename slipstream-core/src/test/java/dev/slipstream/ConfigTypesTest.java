/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Each kind of value a key takes: the syntax it accepts, the value it gives, and the exact words of a refusal. */
class ConfigTypesTest {

  private static SlipstreamConfig with(String key, String value) {
    return SlipstreamConfig.builder().set(key, value).build();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      block.size          | eight            | expected a size such as 8M, 512K or 1G
      block.size          | 512              | must be between 1K and 1G
      block.size          | 2G               | must be between 1K and 1G
      cache.disk.max      | 99999999999999T  | too large
      cache.disk.max      | 999999999999999999999 | too large
      prefetch.blocks     | -1               | must be between 0 and 1024
      prefetch.blocks     | many             | expected an integer
      fetch.threads       | 0                | must be between 1 and 1024
      retry.max           | 101              | must be between 0 and 100
      list.parallelism    | 65               | must be between 1 and 64
      openahead.files     | 65               | must be between 0 and 64
      retry.interval      | 5 parsecs        | expected a duration such as 500ms, 30s or 2m
      retry.interval      | 99999999999999999999s | too large
      list.reuse.ttl      | 9999999h         | too large: at most 8760h (365 days)
      retry.interval.max  | 9999999999999999h | too large: at most 8760h (365 days)
      read.stall.timeout  | 0s               | must be greater than zero
      connect.timeout     | 0                | must be greater than zero
      path.style.access   | yes              | expected true or false
      cache.disk.clear.on.start | 1          | expected true or false
      cache.disk.mode     | some             | expected one of off, seek, all
      cache.disk.min.free | 100%             | must be at least 0% and below 100%
      cache.disk.min.free | -0.1             | must be at least 0% and below 100%
      cache.disk.min.free | lots             | expected a percentage such as 10% or a fraction such as 0.1
      shared.shadow.fraction | 1.5          | must be between 0 and 1 (0% and 100%)
      shared.shadow.fraction | -0.01        | must be between 0 and 1 (0% and 100%)
      shared.shadow.fraction | 101%         | must be between 0 and 1 (0% and 100%)
      shared.shadow.fraction | NaN          | must be between 0 and 1 (0% and 100%)
      shared.shadow.fraction | half         | expected a percentage such as 10% or a fraction such as 0.1
      cache.shadow.sizes  | 1G,lots          | expected a size such as 8M, 512K or 1G
      cache.shadow.sizes  | 1G,0             | each size must be above zero
      cache.shadow.sizes  | 1,2,3,4,5,6,7,8,9 | at most 8 sizes
      cost.get            | cheap            | expected an amount of US dollars such as 0.0004
      cost.list           | -0.005           | must be a finite amount of at least 0
      cost.transfer       | Infinity         | must be a finite amount of at least 0
      endpoint            | localhost        | expected a URI such as http://127.0.0.1:9000
      endpoint            | ftp://h.example/ | the scheme must be http or https, not ftp
      endpoint            | http://a b       | not a URI: Illegal character in authority
      """)
  void refusalsNameKeyValueAndReason(String key, String value, String why) {
    assertThatThrownBy(() -> with(key, value))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(key + "='" + value + "' is invalid: " + why);
    assertThatThrownBy(() -> SlipstreamConfig.fromMap(Map.of("fs.slipstream." + key, value), "fs.slipstream."))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("fs.slipstream." + key + "='" + value + "' is invalid: " + why);
  }

  @Test
  void relationsBetweenKeysAreCheckedToo() {
    assertThatThrownBy(() -> SlipstreamConfig.builder().set("block.size", "8M").set("cache.disk.max", "4M").build())
        .hasMessage("cache.disk.max='4M' is invalid: must hold at least one block (8388608 bytes)");
    assertThat(SlipstreamConfig.builder().set("block.size", "8M").set("cache.disk.max", "4M")
        .set("cache.disk.mode", "off").build().cacheMax()).isEqualTo(4L << 20);
    assertThatThrownBy(() -> SlipstreamConfig.builder().set("block.size", "8M").set("memory.max", "4M").build())
        .hasMessage("memory.max='4M' is invalid: must hold at least one block (8388608 bytes)");
    assertThatThrownBy(() -> with("access.key", "AKID"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("access.key and secret.key must be set together");
    assertThatThrownBy(() -> SlipstreamConfig.fromMap(Map.of("fs.slipstream.secret.key", "s"), "fs.slipstream."))
        .hasMessage("fs.slipstream.access.key and fs.slipstream.secret.key must be set together");
  }

  @Test
  void acceptedSyntax() {
    assertThat(with("block.size", " 1k ").blockSize()).isEqualTo(1024);
    assertThat(with("block.size", "1G").blockSize()).isEqualTo(1 << 30);
    assertThat(with("block.size", "2mib").blockSize()).isEqualTo(2 << 20);
    assertThat(with("block.size", "65536").blockSize()).isEqualTo(65536);
    assertThat(with("cache.disk.max", "1TB").cacheMax()).isEqualTo(1L << 40);
    assertThat(with("prefetch.blocks", " 3 ").prefetchBlocks()).isEqualTo(3);
    assertThat(with("retry.interval", "2 S").retryInterval()).isEqualTo(Duration.ofSeconds(2));
    assertThat(with("retry.interval", "1h").retryInterval()).isEqualTo(Duration.ofHours(1));
    assertThat(with("retry.interval", "0").retryInterval()).isZero();
    assertThat(with("list.reuse.ttl", "0").listReuseTtl()).isZero();
    assertThat(with("path.style.access", " TRUE ").pathStyleAccess()).isTrue();
    assertThat(with("cache.disk.clear.on.start", "true").cacheClearOnStart()).isTrue();
    assertThat(with("cache.disk.mode", " ALL ").cacheMode()).isEqualTo(CacheMode.ALL);
    assertThat(with("cache.disk.min.free", "0.25").cacheMinFree()).isEqualTo(0.25);
    assertThat(with("cache.disk.min.free", "5 %").cacheMinFree()).isEqualTo(0.05);
    assertThat(with("shared.shadow.fraction", "0.25").sharedShadowFraction()).isEqualTo(0.25);
    assertThat(with("shared.shadow.fraction", " 0 ").sharedShadowFraction()).isZero();
    assertThat(with("shared.shadow.fraction", "1").sharedShadowFraction()).isEqualTo(1.0);
    assertThat(with("shared.shadow.fraction", "100%").sharedShadowFraction()).isEqualTo(1.0);
    assertThat(with("cache.disk.dir", " /var/cache/x ").cacheDir()).isEqualTo(Path.of("/var/cache/x"));
    assertThat(with("cache.disk.dir", "  ").cacheDir()).isEqualTo(SlipstreamConfig.defaults().cacheDir());
    assertThat(with("endpoint", "http://127.0.0.1:9000").endpoint()).contains(URI.create("http://127.0.0.1:9000"));
    assertThat(with("region", " eu-west-1").region()).contains(" eu-west-1");
    assertThat(SlipstreamConfig.parseSize("8M")).isEqualTo(8 << 20);
  }

  /** The public duration parser is the keys' own: the same texts, zero refused, the reason without a key. */
  @Test
  void publicDurationParserIsTheKeysOwn() {
    assertThat(SlipstreamConfig.parseDuration("30s")).isEqualTo(Duration.ofSeconds(30));
    assertThat(SlipstreamConfig.parseDuration("250")).isEqualTo(Duration.ofMillis(250));
    assertThatThrownBy(() -> SlipstreamConfig.parseDuration("0s")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("must be greater than zero");
    assertThatThrownBy(() -> SlipstreamConfig.parseDuration(null)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("expected a duration such as");
  }

  /** Every accessor on the defaults and on a configuration that sets every key: each key gives its accessor's type. */
  @Test
  void everyAccessorAnswersOnDefaultsAndOnEveryKeySet() {
    SlipstreamConfig d = SlipstreamConfig.defaults();
    assertThat(d.connectTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(d.retryInterval()).isEqualTo(Duration.ofMillis(100));
    assertThat(d.retryIntervalMax()).isEqualTo(Duration.ofSeconds(5));
    assertThat(d.cacheMode()).isEqualTo(CacheMode.SEEK);
    assertThat(d.cacheDir().getFileName().toString()).startsWith("slipstream-cache-");
    assertThat(d.cacheMax()).isEqualTo(4L << 30);
    assertThat(d.cacheMinFree()).isEqualTo(0.1);
    assertThat(d.cacheClearOnStart()).isFalse();
    assertThat(d.sharedShadowFraction()).as("every block compared").isEqualTo(1.0);
    assertThat(d.listParallelism()).isEqualTo(4);
    assertThat(d.openAheadFiles()).isEqualTo(8);
    assertThat(d.listReuseTtl()).isEqualTo(Duration.ofSeconds(30));
    assertThat(d.region()).isEmpty();
    assertThat(d.accessKey()).isEmpty();
    assertThat(d.secretKey()).isEmpty();
    assertThat(d.sessionToken()).isEmpty();

    SlipstreamConfig all = SlipstreamConfig.builder()
        .set("block.size", "4M").set("prefetch.blocks", "2").set("memory.max", "64M").set("fetch.threads", "3")
        .set("read.stall.timeout", "5s").set("connect.timeout", "2s").set("retry.max", "1")
        .set("retry.interval", "10ms").set("retry.interval.max", "1s").set("cache.disk.mode", "all")
        .set("cache.disk.dir", "/tmp/c").set("cache.disk.max", "1G").set("cache.disk.min.free", "0.2")
        .set("cache.disk.clear.on.start", "true").set("list.parallelism", "2").set("openahead.files", "0")
        .set("list.reuse.ttl", "0").set("endpoint", "https://s3.example.com").set("region", "r")
        .set("path.style.access", "true").set("access.key", "a").set("secret.key", "s").set("session.token", "t")
        .build();
    assertThat(all.blockSize()).isEqualTo(4 << 20);
    assertThat(all.prefetchBlocks()).isEqualTo(2);
    assertThat(all.memoryMax()).isEqualTo(64L << 20);
    assertThat(all.fetchThreads()).isEqualTo(3);
    assertThat(all.stallTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(all.connectTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(all.retryMax()).isEqualTo(1);
    assertThat(all.retryInterval()).isEqualTo(Duration.ofMillis(10));
    assertThat(all.retryIntervalMax()).isEqualTo(Duration.ofSeconds(1));
    assertThat(all.cacheMode()).isEqualTo(CacheMode.ALL);
    assertThat(all.cacheDir()).isEqualTo(Path.of("/tmp/c"));
    assertThat(all.cacheMax()).isEqualTo(1L << 30);
    assertThat(all.cacheMinFree()).isEqualTo(0.2);
    assertThat(all.cacheClearOnStart()).isTrue();
    assertThat(all.listParallelism()).isEqualTo(2);
    assertThat(all.openAheadFiles()).isZero();
    assertThat(all.listReuseTtl()).isZero();
    assertThat(all.endpoint()).contains(URI.create("https://s3.example.com"));
    assertThat(all.region()).contains("r");
    assertThat(all.pathStyleAccess()).isTrue();
    assertThat(all.accessKey()).contains("a");
    assertThat(all.secretKey()).contains("s");
    assertThat(all.sessionToken()).contains("t");
    assertThat(all.toBuilder().build().toString()).isEqualTo(all.toString());
  }
}
