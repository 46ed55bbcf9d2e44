/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import dev.slipstream.ConfigKey;
import dev.slipstream.SlipstreamConfig;
import dev.slipstream.ValueKind;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Turns an Iceberg catalog's properties into Slipstream's configuration.
 *
 * <p>Two sources, so that one set of catalog properties configures both S3FileIO and Slipstream:
 * <ul>
 *   <li>S3FileIO's own connection properties, each mapped to the Slipstream key of the same meaning
 *       ({@link #MAPPED}): endpoint, path-style access, static credentials, region;</li>
 *   <li>{@code slipstream.<key>} for any of Slipstream's keys ({@link ConfigKey}), which wins over a
 *       mapped property of the same meaning.</li>
 * </ul>
 * {@code memory.max}, unless set, is a plain client's quarter of the heap: a FileIO runs inside an
 * engine whose heap is the engine's, and the pool's idle memory yields to it. Every value is checked here, once, so that a bad one fails the catalog's {@code initialize} with the
 * property named as the user wrote it; secret values are never shown.
 */
final class CatalogProperties {
  /** Prefix of Slipstream's own keys among the catalog properties. */
  static final String PREFIX = "slipstream.";

  /** S3FileIO's property (and AwsClientProperties' region) to the Slipstream key of the same meaning. */
  static final Map<String, ConfigKey> MAPPED = mapped();

  private CatalogProperties() {}

  private static Map<String, ConfigKey> mapped() {
    Map<String, ConfigKey> m = new LinkedHashMap<>();
    m.put("s3.endpoint", ConfigKey.ENDPOINT);
    m.put("s3.path-style-access", ConfigKey.PATH_STYLE_ACCESS);
    m.put("s3.access-key-id", ConfigKey.ACCESS_KEY);
    m.put("s3.secret-access-key", ConfigKey.SECRET_KEY);
    m.put("s3.session-token", ConfigKey.SESSION_TOKEN);
    m.put("client.region", ConfigKey.REGION);
    return java.util.Collections.unmodifiableMap(m);
  }

  /**
   * The Slipstream configuration of these catalog properties.
   *
   * @throws IllegalArgumentException naming the property whose value is invalid, or an unknown
   *     {@code slipstream.*} key
   */
  static SlipstreamConfig toConfig(Map<String, String> properties) {
    if (properties.containsKey("s3.access-key-id") != properties.containsKey("s3.secret-access-key")) {
      throw new IllegalArgumentException("s3.access-key-id and s3.secret-access-key must be set together");
    }
    Map<String, String> merged = new LinkedHashMap<>();
    for (Map.Entry<String, ConfigKey> m : MAPPED.entrySet()) {
      String value = properties.get(m.getKey());
      String own = PREFIX + m.getValue().key();
      if (value != null && !properties.containsKey(own)) {
        check(m.getKey(), m.getValue(), value);
        merged.put(own, value);
      }
    }
    for (Map.Entry<String, String> e : properties.entrySet()) {
      if (e.getKey().startsWith(PREFIX)) {
        merged.put(e.getKey(), e.getValue());
      }
    }
    // Errors from here on are about Slipstream's own keys, or how keys bound each other: named with the prefix.
    return SlipstreamConfig.fromMap(merged, PREFIX);
  }

  /** Checks one mapped property alone, so that its error names the catalog property, not the Slipstream key. */
  private static void check(String property, ConfigKey key, String value) {
    if (key.type() == ValueKind.SECRET) {
      if (value.isBlank()) {
        throw new IllegalArgumentException(property + " is empty");
      }
      return; // nothing else to check, and a secret is never shown
    }
    try {
      SlipstreamConfig.builder().set(key, value).build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(property + ": " + e.getMessage(), e);
    }
  }
}
