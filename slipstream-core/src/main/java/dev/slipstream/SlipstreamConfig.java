/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Immutable, validated configuration. Values are parsed once, here, so that an invalid value fails at
 * start-up with a message naming the key (with the prefix it was given under) and the value.
 *
 * <p>Sizes take the suffixes K, M, G, T (powers of 1024, optionally followed by B or iB); a plain
 * number is bytes. Durations take ms, s, m, h; a plain number is milliseconds.
 */
public final class SlipstreamConfig {
  /** Prefix of every key in Hadoop-style configuration. */
  public static final String HADOOP_PREFIX = "fs.slipstream.";

  private final String prefix;
  private final Map<ConfigKey, String> raw;

  private final int blockSize;
  private final int prefetchBlocks;
  private final long memoryMax;
  private final int fetchThreads;
  private final Duration stallTimeout;
  private final Duration connectTimeout;
  private final int retryMax;
  private final Duration retryInterval;
  private final Duration retryIntervalMax;
  private final int openAheadFiles;
  private final URI endpoint;
  private final boolean pathStyleAccess;
  private final CacheMode cacheMode;
  private final java.nio.file.Path cacheDir;
  private final long cacheMax;
  private final double cacheMinFree;
  private final boolean cacheClearOnStart;

  /** What the local disk cache keeps ({@code cache.disk.mode}). */
  public enum CacheMode {
    /** No disk cache. */
    OFF,
    /** Blocks a seek, a close or an unbuffer leaves behind, fetched and not read to their end. */
    SEEK,
    /** Every block fetched from S3. */
    ALL
  }
  private final int listParallelism;
  private final Duration listReuseTtl;

  private SlipstreamConfig(String prefix, Map<ConfigKey, String> raw) {
    this.prefix = prefix;
    this.raw = Map.copyOf(raw);
    long block = size(ConfigKey.BLOCK_SIZE);
    if (block < 1024 || block > (1L << 30)) {
      throw invalid(ConfigKey.BLOCK_SIZE, "must be between 1K and 1G");
    }
    this.blockSize = (int) block;
    this.prefetchBlocks = intValue(ConfigKey.PREFETCH_BLOCKS, 0, 1024);
    if (raw.containsKey(ConfigKey.MEMORY_MAX)) {
      this.memoryMax = size(ConfigKey.MEMORY_MAX);
    } else {
      this.memoryMax = Math.max(Runtime.getRuntime().maxMemory() / 4, blockSize);
    }
    if (memoryMax < blockSize) {
      throw invalid(ConfigKey.MEMORY_MAX, "must hold at least one block (" + blockSize + " bytes)");
    }
    long heap = Runtime.getRuntime().maxMemory();
    if (heap != Long.MAX_VALUE && memoryMax > heap) {
      throw invalid(ConfigKey.MEMORY_MAX, "more than the JVM's max heap (" + heap + " bytes, -Xmx): the buffers"
          + " could never all be allocated");
    }
    this.fetchThreads = intValue(ConfigKey.FETCH_THREADS, 1, 1024);
    this.stallTimeout = positive(ConfigKey.READ_STALL_TIMEOUT);
    this.connectTimeout = positive(ConfigKey.CONNECT_TIMEOUT);
    this.retryMax = intValue(ConfigKey.RETRY_MAX, 0, 100);
    this.retryInterval = duration(ConfigKey.RETRY_INTERVAL);
    this.retryIntervalMax = duration(ConfigKey.RETRY_INTERVAL_MAX);
    this.openAheadFiles = intValue(ConfigKey.OPENAHEAD_FILES, 0, 64);
    String ep = get(ConfigKey.ENDPOINT).orElse(null);
    if (ep != null) {
      try {
        URI uri = new URI(ep);
        if (uri.getScheme() == null || uri.getHost() == null) {
          throw invalid(ConfigKey.ENDPOINT, "expected a URI such as http://127.0.0.1:9000");
        }
        String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
          throw invalid(ConfigKey.ENDPOINT, "the scheme must be http or https, not " + uri.getScheme());
        }
        this.endpoint = uri;
      } catch (java.net.URISyntaxException e) {
        throw invalid(ConfigKey.ENDPOINT, "not a URI: " + e.getReason());
      }
    } else {
      this.endpoint = null;
    }
    this.pathStyleAccess = bool(ConfigKey.PATH_STYLE_ACCESS);
    this.cacheMode = choice(ConfigKey.CACHE_DISK_MODE, CacheMode.class);
    this.cacheDir = get(ConfigKey.CACHE_DISK_DIR).map(String::trim).filter(d -> !d.isEmpty())
        .map(java.nio.file.Path::of).orElseGet(SlipstreamConfig::defaultCacheDir);
    this.cacheMax = size(ConfigKey.CACHE_DISK_MAX);
    if (cacheMax < blockSize && cacheMode != CacheMode.OFF) {
      throw invalid(ConfigKey.CACHE_DISK_MAX, "must hold at least one block (" + blockSize + " bytes)");
    }
    this.cacheMinFree = fraction(ConfigKey.CACHE_DISK_MIN_FREE);
    this.cacheClearOnStart = bool(ConfigKey.CACHE_DISK_CLEAR_ON_START);
    this.listParallelism = intValue(ConfigKey.LIST_PARALLELISM, 1, 64);
    this.listReuseTtl = duration(ConfigKey.LIST_REUSE_TTL);
    if (get(ConfigKey.ACCESS_KEY).isPresent() != get(ConfigKey.SECRET_KEY).isPresent()) {
      throw new IllegalArgumentException(prefix + ConfigKey.ACCESS_KEY.key() + " and " + prefix
          + ConfigKey.SECRET_KEY.key() + " must be set together");
    }
  }

  public static SlipstreamConfig defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder("");
  }

  /**
   * Reads every {@code prefix + key} entry of {@code source}, e.g. a Hadoop Configuration's
   * {@code fs.slipstream.*} entries. Unknown keys under the prefix are rejected, naming the key, so a
   * typo never silently falls back to a default.
   */
  public static SlipstreamConfig fromMap(Map<String, String> source, String prefix) {
    Builder b = new Builder(prefix);
    for (Map.Entry<String, String> e : source.entrySet()) {
      if (e.getKey().startsWith(prefix)) {
        b.set(e.getKey().substring(prefix.length()), e.getValue());
      }
    }
    return b.build();
  }

  public int blockSize() {
    return blockSize;
  }

  public int prefetchBlocks() {
    return prefetchBlocks;
  }

  public long memoryMax() {
    return memoryMax;
  }

  public int fetchThreads() {
    return fetchThreads;
  }

  public Duration stallTimeout() {
    return stallTimeout;
  }

  public Duration connectTimeout() {
    return connectTimeout;
  }

  public int retryMax() {
    return retryMax;
  }

  public Duration retryInterval() {
    return retryInterval;
  }

  public Duration retryIntervalMax() {
    return retryIntervalMax;
  }

  public CacheMode cacheMode() {
    return cacheMode;
  }

  public java.nio.file.Path cacheDir() {
    return cacheDir;
  }

  public long cacheMax() {
    return cacheMax;
  }

  /** Share of the cache's file system to leave free, in [0, 1). */
  public double cacheMinFree() {
    return cacheMinFree;
  }

  public boolean cacheClearOnStart() {
    return cacheClearOnStart;
  }

  private static java.nio.file.Path defaultCacheDir() {
    String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
    return java.nio.file.Path.of(System.getProperty("java.io.tmpdir"), "slipstream-cache-" + user);
  }

  /** Key ranges a large listing is split into ({@code list.parallelism}). */
  public int listParallelism() {
    return listParallelism;
  }

  /** Most objects fetched ahead of being opened ({@code openahead.files}); 0 if open-ahead is off. */
  public int openAheadFiles() {
    return openAheadFiles;
  }

  /** How long a glob's flat listing answers the listings of its directories ({@code list.reuse.ttl}; 0: off). */
  public Duration listReuseTtl() {
    return listReuseTtl;
  }

  public Optional<URI> endpoint() {
    return Optional.ofNullable(endpoint);
  }

  public Optional<String> region() {
    return get(ConfigKey.REGION);
  }

  public boolean pathStyleAccess() {
    return pathStyleAccess;
  }

  public Optional<String> accessKey() {
    return get(ConfigKey.ACCESS_KEY);
  }

  public Optional<String> secretKey() {
    return get(ConfigKey.SECRET_KEY);
  }

  public Optional<String> sessionToken() {
    return get(ConfigKey.SESSION_TOKEN);
  }

  /** The raw value set for {@code key}, if any (not the default). */
  public Optional<String> get(ConfigKey key) {
    return Optional.ofNullable(raw.get(key));
  }

  /** A builder starting from this configuration. */
  public Builder toBuilder() {
    Builder b = new Builder(prefix);
    b.values.putAll(raw);
    return b;
  }

  /** Secrets are shown as {@code ****}. */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("SlipstreamConfig{");
    String sep = "";
    for (ConfigKey k : ConfigKey.values()) {
      String v = raw.get(k);
      if (v != null) {
        sb.append(sep).append(k.key()).append('=').append(k.type() == ConfigKey.Type.SECRET ? "****" : v);
        sep = ", ";
      }
    }
    return sb.append('}').toString();
  }

  private String value(ConfigKey key) {
    String v = raw.get(key);
    return v != null ? v : key.defaultValue().orElseThrow();
  }

  private IllegalArgumentException invalid(ConfigKey key, String why) {
    return new IllegalArgumentException(
        prefix + key.key() + "='" + display(key) + "' is invalid: " + why);
  }

  private String display(ConfigKey key) {
    return key.type() == ConfigKey.Type.SECRET ? "****" : value(key);
  }

  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmgt]?)(i?b)?");
  private static final Pattern TIME = Pattern.compile("(\\d+)\\s*(ms|s|m|h)?");
  /** The longest duration any key takes: long enough to mean "for ever", short enough to add to a clock. */
  private static final Duration MAX_DURATION = Duration.ofDays(365);

  private long size(ConfigKey key) {
    try {
      return parseSize(value(key));
    } catch (IllegalArgumentException e) {
      throw invalid(key, e.getMessage());
    }
  }

  /**
   * Parses a size as configuration writes it: {@code 8M}, {@code 512K}, {@code 1G}, {@code 4096};
   * suffixes K, M, G, T are powers of 1024, optionally followed by B or iB, case ignored.
   *
   * @throws IllegalArgumentException saying what was expected
   */
  public static long parseSize(String text) {
    Matcher m = SIZE.matcher(text == null ? "" : text.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException("expected a size such as 8M, 512K or 1G");
    }
    int shift = switch (m.group(2)) {
      case "k" -> 10;
      case "m" -> 20;
      case "g" -> 30;
      case "t" -> 40;
      default -> 0;
    };
    long n;
    try {
      n = Long.parseLong(m.group(1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("too large");
    }
    if (n > (Long.MAX_VALUE >> shift)) {
      throw new IllegalArgumentException("too large");
    }
    return n << shift;
  }

  private Duration duration(ConfigKey key) {
    Matcher m = TIME.matcher(value(key).trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw invalid(key, "expected a duration such as 500ms, 30s or 2m");
    }
    long n;
    try {
      n = Long.parseLong(m.group(1));
    } catch (NumberFormatException e) {
      throw invalid(key, "too large");
    }
    String unit = m.group(2) == null ? "ms" : m.group(2);
    try {
      Duration d = switch (unit) {
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        default -> Duration.ofMillis(n);
      };
      if (d.compareTo(MAX_DURATION) > 0) {
        // Deadlines are computed in nanoseconds from now: far beyond a year they overflow.
        throw invalid(key, "too large: at most " + MAX_DURATION.toHours() + "h (365 days)");
      }
      return d;
    } catch (ArithmeticException e) {
      throw invalid(key, "too large: at most " + MAX_DURATION.toHours() + "h (365 days)");
    }
  }

  private Duration positive(ConfigKey key) {
    Duration d = duration(key);
    if (d.isZero()) {
      throw invalid(key, "must be greater than zero");
    }
    return d;
  }

  private int intValue(ConfigKey key, int min, int max) {
    try {
      int n = Integer.parseInt(value(key).trim());
      if (n < min || n > max) {
        throw invalid(key, "must be between " + min + " and " + max);
      }
      return n;
    } catch (NumberFormatException e) {
      throw invalid(key, "expected an integer");
    }
  }

  private <E extends Enum<E>> E choice(ConfigKey key, Class<E> type) {
    String v = value(key).trim();
    StringBuilder names = new StringBuilder();
    for (E e : type.getEnumConstants()) {
      if (e.name().equalsIgnoreCase(v)) {
        return e;
      }
      names.append(names.length() == 0 ? "" : ", ").append(e.name().toLowerCase(Locale.ROOT));
    }
    throw invalid(key, "expected one of " + names);
  }

  /** A share such as {@code 10%} or {@code 0.1}, in [0, 1). */
  private double fraction(ConfigKey key) {
    String v = value(key).trim();
    try {
      double d = v.endsWith("%") ? Double.parseDouble(v.substring(0, v.length() - 1).trim()) / 100
          : Double.parseDouble(v);
      if (!(d >= 0 && d < 1)) {
        throw invalid(key, "must be at least 0% and below 100%");
      }
      return d;
    } catch (NumberFormatException e) {
      throw invalid(key, "expected a percentage such as 10% or a fraction such as 0.1");
    }
  }

  private boolean bool(ConfigKey key) {
    String v = value(key).trim().toLowerCase(Locale.ROOT);
    if (v.equals("true")) {
      return true;
    }
    if (v.equals("false")) {
      return false;
    }
    throw invalid(key, "expected true or false");
  }

  /** Collects raw values; {@link #build()} validates them all. */
  public static final class Builder {
    private final String prefix;
    private final Map<ConfigKey, String> values = new LinkedHashMap<>();

    private Builder(String prefix) {
      this.prefix = prefix;
    }

    /** Sets {@code key} (without prefix); a null value unsets it. Unknown keys are rejected. */
    public Builder set(String key, String value) {
      ConfigKey k = ConfigKey.byName(key).orElseThrow(() -> new IllegalArgumentException(
          "unknown configuration key '" + prefix + key + "'; known keys: " + knownKeys()));
      return set(k, value);
    }

    public Builder set(ConfigKey key, String value) {
      Objects.requireNonNull(key, "key");
      if (value == null) {
        values.remove(key);
      } else {
        values.put(key, value);
      }
      return this;
    }

    private String knownKeys() {
      StringBuilder sb = new StringBuilder();
      for (ConfigKey k : ConfigKey.values()) {
        sb.append(sb.length() == 0 ? "" : ", ").append(prefix).append(k.key());
      }
      return sb.toString();
    }

    public SlipstreamConfig build() {
      return new SlipstreamConfig(prefix, values);
    }
  }
}
