/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import dev.slipstream.ConfigKey;
import dev.slipstream.SlipstreamConfig;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Turns an Iceberg catalog's properties into Slipstream's configuration.
 *
 * <p>Who reads and where is not Slipstream's to decide here: it reads through the S3 client Iceberg
 * builds for the S3FileIO from the same properties ({@link FileIOClients}). So Slipstream's own client
 * keys ({@link #CLIENT_KEYS}: endpoint, region, path style, static credentials) are refused with the
 * catalog property to set instead, rather than read as a second identity. What is Slipstream's comes as
 * {@code slipstream.<key>} for any other of its keys ({@link ConfigKey}), and SSE-C from S3FileIO's own
 * {@code s3.sse.type=custom} with {@code s3.sse.key} ({@code sse.customer.key}).
 *
 * <p>{@code memory.max}, unless set, is a plain client's quarter of the heap: a FileIO runs inside an
 * engine whose heap is the engine's, and the pool's idle memory yields to it. Every value is checked
 * here, once, so that a bad one fails the catalog's {@code initialize} with the property named as the
 * user wrote it; secret values are never shown.
 */
final class CatalogProperties {
  /** Prefix of Slipstream's own keys among the catalog properties. */
  static final String PREFIX = "slipstream.";

  /** Slipstream's keys of its own S3 client, which a FileIO does not build: the catalog property that applies instead. */
  static final Map<ConfigKey, String> CLIENT_KEYS = clientKeys();

  static final String SSE_TYPE = "s3.sse.type";
  static final String SSE_KEY = "s3.sse.key";
  static final String SSE_MD5 = "s3.sse.md5";

  /**
   * S3FileIO's properties checked as the Slipstream key of the same meaning would be, though Slipstream does
   * not use them: a bad value then fails {@code initialize} naming the property, not later in the SDK
   * (or, for path style, not at all: Iceberg reads any word but "true" as false).
   */
  static final Map<String, ConfigKey> CHECKED = Map.of(
      "s3.endpoint", ConfigKey.ENDPOINT,
      "s3.path-style-access", ConfigKey.PATH_STYLE_ACCESS);

  private CatalogProperties() {}

  private static Map<ConfigKey, String> clientKeys() {
    Map<ConfigKey, String> m = new LinkedHashMap<>();
    m.put(ConfigKey.ENDPOINT, "s3.endpoint");
    m.put(ConfigKey.REGION, "client.region");
    m.put(ConfigKey.PATH_STYLE_ACCESS, "s3.path-style-access");
    m.put(ConfigKey.ACCESS_KEY, "s3.access-key-id");
    m.put(ConfigKey.SECRET_KEY, "s3.secret-access-key");
    m.put(ConfigKey.SESSION_TOKEN, "s3.session-token");
    return java.util.Collections.unmodifiableMap(m);
  }

  /**
   * The Slipstream configuration of these catalog properties.
   *
   * @throws IllegalArgumentException naming the property whose value is invalid, an unknown
   *     {@code slipstream.*} key, or one of Slipstream's client keys, which a FileIO does not use
   */
  static SlipstreamConfig toConfig(Map<String, String> properties) {
    if (properties.containsKey("s3.access-key-id") != properties.containsKey("s3.secret-access-key")) {
      throw new IllegalArgumentException("s3.access-key-id and s3.secret-access-key must be set together");
    }
    for (Map.Entry<ConfigKey, String> c : CLIENT_KEYS.entrySet()) {
      String own = PREFIX + c.getKey().key();
      if (properties.containsKey(own)) {
        throw new IllegalArgumentException(own + " does not apply to SlipstreamFileIO: it reads through S3FileIO's"
            + " S3 client, as the same principal and to the same place as its writes; set " + c.getValue()
            + " (or another of S3FileIO's client properties) instead");
      }
    }
    for (Map.Entry<String, ConfigKey> c : CHECKED.entrySet()) {
      String value = properties.get(c.getKey());
      if (value != null) {
        check(c.getKey(), c.getValue(), value);
      }
    }
    String ownKey = PREFIX + ConfigKey.SSE_CUSTOMER_KEY.key();
    if (properties.containsKey(ownKey)) {
      // One key for reads and writes: S3FileIO's, or reads would carry a key its writes do not.
      throw new IllegalArgumentException(ownKey + " does not apply to SlipstreamFileIO: set " + SSE_TYPE
          + "=custom and " + SSE_KEY + " (S3FileIO's SSE-C key), which reads carry too");
    }
    Map<String, String> merged = new LinkedHashMap<>();
    String customerKey = sseCustomerKey(properties);
    if (customerKey != null) {
      merged.put(ownKey, customerKey);
    }
    for (Map.Entry<String, String> e : properties.entrySet()) {
      if (e.getKey().startsWith(PREFIX)) {
        merged.put(e.getKey(), e.getValue());
      }
    }
    // Errors from here on are about Slipstream's own keys, or how keys bound each other: named with the prefix.
    return SlipstreamConfig.fromMap(merged, PREFIX);
  }

  /**
   * S3FileIO's SSE-C key ({@code s3.sse.type=custom}, {@code s3.sse.key}, and {@code s3.sse.md5} if given,
   * which must be the key's MD5 as S3 checks it), checked; null unless the type is custom.
   */
  private static String sseCustomerKey(Map<String, String> properties) {
    String type = properties.get(SSE_TYPE);
    if (type == null || !type.trim().toLowerCase(Locale.ROOT).equals("custom")) {
      return null;
    }
    String key = properties.get(SSE_KEY);
    if (key == null || key.isBlank()) {
      throw new IllegalArgumentException(SSE_TYPE + " is custom (SSE-C) but " + SSE_KEY + " is not set: S3 serves"
          + " SSE-C objects only to requests that carry their key");
    }
    key = key.trim();
    try {
      SlipstreamConfig.builder().set(ConfigKey.SSE_CUSTOMER_KEY, key).build();
    } catch (IllegalArgumentException e) {
      // Slipstream's message names its own key and never shows the value: say which property it came from.
      throw new IllegalArgumentException(SSE_KEY + " (SSE-C) is refused: " + e.getMessage(), e);
    }
    String md5 = properties.get(SSE_MD5);
    if (md5 != null && !md5.trim().equals(md5Of(key))) {
      throw new IllegalArgumentException(SSE_MD5 + " is not the base64 MD5 of the key in " + SSE_KEY
          + ": S3 would refuse every request that carries them");
    }
    return key;
  }

  /** Checks one property alone, so that its error names the catalog property, not the Slipstream key. */
  private static void check(String property, ConfigKey key, String value) {
    try {
      SlipstreamConfig.builder().set(key, value).build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(property + ": " + e.getMessage(), e);
    }
  }

  private static String md5Of(String keyBase64) {
    try {
      byte[] digest = MessageDigest.getInstance("MD5")
          .digest(Base64.getDecoder().decode(keyBase64.getBytes(StandardCharsets.US_ASCII)));
      return Base64.getEncoder().encodeToString(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM has no MD5, which every Java platform must have", e);
    }
  }
}
