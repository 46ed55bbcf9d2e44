/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigTest {

  @Test
  void defaults() {
    SlipstreamConfig c = SlipstreamConfig.defaults();
    assertThat(c.blockSize()).isEqualTo(8 << 20);
    assertThat(c.prefetchBlocks()).isEqualTo(16);
    assertThat(c.memoryMax()).isEqualTo(Math.max(Runtime.getRuntime().maxMemory() / 4, 8 << 20));
    assertThat(c.fetchThreads()).isEqualTo(16);
    assertThat(c.fetchPartMin()).isEqualTo(2 << 20);
    assertThat(c.stallTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.retryMax()).isEqualTo(7);
    assertThat(c.pathStyleAccess()).isFalse();
    assertThat(c.endpoint()).isEmpty();
  }

  @Test
  void sizesAndDurationsTakeSuffixes() {
    SlipstreamConfig c = SlipstreamConfig.builder()
        .set("block.size", "16M").set("memory.max", "1g").set("read.stall.timeout", "1500ms")
        .set("retry.interval.max", "2m").set("connect.timeout", "250").build();
    assertThat(c.blockSize()).isEqualTo(16 << 20);
    assertThat(c.memoryMax()).isEqualTo(1L << 30);
    assertThat(c.stallTimeout()).isEqualTo(Duration.ofMillis(1500));
    assertThat(c.retryIntervalMax()).isEqualTo(Duration.ofMinutes(2));
    assertThat(c.connectTimeout()).isEqualTo(Duration.ofMillis(250));
    assertThat(SlipstreamConfig.builder().set("block.size", "512KiB").build().blockSize()).isEqualTo(512 << 10);
  }

  @Test
  void invalidValuesNameTheKeyAndTheValue() {
    assertThatThrownBy(() -> SlipstreamConfig.builder().set("block.size", "eight").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("block.size").hasMessageContaining("'eight'");
    assertThatThrownBy(() -> SlipstreamConfig.fromMap(Map.of("fs.slipstream.prefetch.blocks", "-1"), "fs.slipstream."))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fs.slipstream.prefetch.blocks").hasMessageContaining("'-1'");
    assertThatThrownBy(() -> SlipstreamConfig.builder().set("read.stall.timeout", "0s").build())
        .hasMessageContaining("read.stall.timeout");
    assertThatThrownBy(() -> SlipstreamConfig.builder().set("fetch.part.min", "64K").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fetch.part.min").hasMessageContaining("'64K'");
    assertThatThrownBy(() -> SlipstreamConfig.builder().set("block.size", "8M").set("memory.max", "4M").build())
        .hasMessageContaining("memory.max").hasMessageContaining("at least one block");
    assertThatThrownBy(() -> SlipstreamConfig.builder().set("endpoint", "not a uri").build())
        .hasMessageContaining("endpoint");
    assertThatThrownBy(() -> SlipstreamConfig.builder().set("path.style.access", "yes").build())
        .hasMessageContaining("path.style.access");
    assertThatThrownBy(() -> SlipstreamConfig.builder().set("read.stall.timeout", "9999999999999999h").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("read.stall.timeout");
  }

  @Test
  void valuesThatCannotWorkFailAtStartNamingKeyAndValue() {
    // Parsed fine once, then overflowed when a deadline was computed from it.
    assertThatThrownBy(() -> SlipstreamConfig.builder().set("list.reuse.ttl", "9999999h").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("list.reuse.ttl").hasMessageContaining("'9999999h'").hasMessageContaining("too large");
    assertThat(SlipstreamConfig.builder().set("list.reuse.ttl", "8760h").build().listReuseTtl().toNanos())
        .isPositive();
    long heap = Runtime.getRuntime().maxMemory();
    String aboveHeap = ((heap >> 20) + 1024) + "M";
    assertThatThrownBy(() -> SlipstreamConfig.builder().set("memory.max", aboveHeap).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("memory.max").hasMessageContaining("'" + aboveHeap + "'").hasMessageContaining("heap");
    assertThatThrownBy(() -> SlipstreamConfig.builder().set("endpoint", "ftp://files.example.com/").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("endpoint").hasMessageContaining("'ftp://files.example.com/'")
        .hasMessageContaining("http or https");
    assertThat(SlipstreamConfig.builder().set("endpoint", "HTTPS://s3.example.com").build().endpoint()).isPresent();
  }

  @Test
  void theSharedTierNeedsServersAndCheckWhatItIsGiven() {
    assertThatThrownBy(() -> SlipstreamConfig.builder().set("shared.mode", "read-write").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shared.servers")
        .hasMessageContaining("read-write");
    assertThatThrownBy(() -> SlipstreamConfig.builder().set("shared.mode", "sometimes").build())
        .hasMessageContaining("shared.mode").hasMessageContaining("off, read-write, read-only");
    assertThatThrownBy(() -> SlipstreamConfig.builder().set("shared.servers", "cache1:eleven").build())
        .hasMessageContaining("shared.servers").hasMessageContaining("'cache1:eleven'");
    assertThatThrownBy(() -> SlipstreamConfig.builder().set("shared.servers", "cache1:70000").build())
        .hasMessageContaining("shared.servers").hasMessageContaining("1-65535");
    assertThatThrownBy(() -> SlipstreamConfig.builder().set("shared.ttl", "1000h").build())
        .hasMessageContaining("shared.ttl").hasMessageContaining("30 days");
    SlipstreamConfig c = SlipstreamConfig.builder().set("shared.mode", "read-only")
        .set("shared.servers", "cache1, cache2:11311").set("shared.secret", "s3cr3t-value").build();
    assertThat(c.sharedMode()).isEqualTo(SharedMode.READ_ONLY);
    assertThat(c.sharedServers()).extracting(a -> a.getHostString() + ":" + a.getPort())
        .containsExactly("cache1:11211", "cache2:11311");
    assertThat(c.toString()).doesNotContain("s3cr3t-value");
    // On the class path of core alone there is no store: the error says what to add.
    assertThatThrownBy(() -> Slipstream.builder().isolatedResources().config(c).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("slipstream-memcached");
  }

  /**
   * Without a secret, anyone who reaches memcached can read the blocks, tell which objects are cached and
   * plant blocks: running so takes shared.secret=none. A secret that is empty or padded with white space
   * (a copy and paste gone wrong) is an error that names the key and never shows the value.
   */
  @Test
  void theSharedTierNeedsASecretOrNoneSaidDeliberately() {
    for (String mode : new String[] {"read-write", "read-only", "shadow"}) {
      assertThatThrownBy(() -> SlipstreamConfig.builder().set("shared.mode", mode).set("shared.servers", "cache1").build())
          .as(mode).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shared.secret")
          .hasMessageContaining(mode).hasMessageContaining("none");
    }
    String[] bad = {"", "   ", " padded-secret", "padded-secret\n", "\tpadded-secret "};
    for (String secret : bad) {
      assertThatThrownBy(() -> SlipstreamConfig.builder().set("shared.mode", "read-write").set("shared.servers", "cache1")
          .set("shared.secret", secret).build())
          .as("'%s'", secret).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shared.secret")
          .hasMessageNotContaining("padded");
    }
    assertThatThrownBy(() -> SlipstreamConfig.fromMap(Map.of("fs.slipstream.shared.secret", " padded-secret"),
        "fs.slipstream.")).hasMessageContaining("fs.slipstream.shared.secret").hasMessageNotContaining("padded");
    SlipstreamConfig none = SlipstreamConfig.builder().set("shared.mode", "read-only").set("shared.servers", "cache1")
        .set("shared.secret", "none").build();
    assertThat(none.sharedSecret()).as("none is no secret").isEmpty();
    assertThat(SlipstreamConfig.builder().set("shared.mode", "read-write").set("shared.servers", "cache1")
        .set("shared.secret", "s3cr3t value").build().sharedSecret()).contains("s3cr3t value");
    assertThat(SlipstreamConfig.defaults().sharedSecret()).as("off needs none").isEmpty();
  }

  @Test
  void unknownKeysAreRejectedNotIgnored() {
    assertThatThrownBy(() -> SlipstreamConfig.fromMap(Map.of("fs.slipstream.blocksize", "8M"), "fs.slipstream."))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fs.slipstream.blocksize")
        .hasMessageContaining("fs.slipstream.block.size");
  }

  @Test
  void secretsNeverAppearInTextOrErrors() {
    SlipstreamConfig c = SlipstreamConfig.builder()
        .set("access.key", "AKIDEXAMPLE").set("secret.key", "s3cr3t-value").set("session.token", "tok3n").build();
    assertThat(c.toString()).doesNotContain("s3cr3t-value").doesNotContain("tok3n").contains("****");
    assertThatThrownBy(() -> SlipstreamConfig.builder().set("secret.key", "s3cr3t-value").build())
        .hasMessageNotContaining("s3cr3t-value");
  }

  /** The configuration table of docs/configuration.md is this enum, rendered; regenerate it from the failure message. */
  @Test
  void configurationDocListsEveryKeyWithItsDefault() throws IOException {
    String doc = Files.readString(ConfigDocsTest.CONFIGURATION);
    String table = markdownTable();
    assertThat(doc)
        .as("docs/configuration.md's table is out of date; replace it with:%n%s", table)
        .contains(table);
  }

  static String markdownTable() {
    StringBuilder sb = new StringBuilder();
    sb.append("| key (Hadoop: `fs.slipstream.` + key) | default | meaning |\n");
    sb.append("|---|---|---|\n");
    for (ConfigKey k : ConfigKey.values()) {
      String def = k.defaultValue().map(v -> "`" + v + "`").orElse(k == ConfigKey.MEMORY_MAX ? "¼ of max heap" : "—");
      sb.append("| `").append(k.key()).append("` | ").append(def).append(" | ").append(k.description()).append(" |\n");
    }
    return sb.toString();
  }
}
