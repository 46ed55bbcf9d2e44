/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Immutable, validated configuration. Values are parsed once, here, so that an invalid value fails at
 * start-up with a message naming the key (with the prefix it was given under) and the value.
 *
 * <p>Sizes take the suffixes K, M, G, T (powers of 1024, optionally followed by B or iB); a plain
 * number is bytes. Durations take ms, s, m, h; a plain number is milliseconds.
 *
 * <p>Each key is parsed and checked by the type its {@link ConfigKey} names; what is written out here
 * is only what one key cannot say alone: how keys bound each other, and defaults computed from the JVM.
 */
public final class SlipstreamConfig {
  /** Prefix of every key in Hadoop-style configuration. */
  public static final String HADOOP_PREFIX = "fs.slipstream.";

  private final String prefix;
  private final Map<ConfigKey, String> raw;
  /** Every key set or with a default, as its type parsed it; keys with neither are absent. */
  private final Map<ConfigKey, Object> values = new EnumMap<>(ConfigKey.class);
  private final long memoryMax;
  private final Path cacheDir;

  /** The {@code shared.secret} that runs the shared tier without a secret, deliberately. */
  public static final String NO_SHARED_SECRET = "none";

  private SlipstreamConfig(String prefix, Map<ConfigKey, String> raw) {
    this.prefix = prefix;
    this.raw = Map.copyOf(raw);
    for (ConfigKey key : ConfigKey.values()) {
      String text = text(key);
      if (text != null) {
        Object parsed;
        try {
          parsed = key.valueType().parse(text);
        } catch (ValueType.Refused e) {
          throw invalid(key, e.getMessage());
        }
        if (parsed != null) {
          values.put(key, parsed);
        }
      }
    }

    int block = blockSize();
    long heap = Runtime.getRuntime().maxMemory();
    this.memoryMax = this.<Long>optional(ConfigKey.MEMORY_MAX).orElse(Math.max(heap / 4, block));
    // With memory.max unset its default is at least a block: only a block larger than the heap exceeds it.
    ConfigKey budget = values.containsKey(ConfigKey.MEMORY_MAX) ? ConfigKey.MEMORY_MAX : ConfigKey.BLOCK_SIZE;
    if (memoryMax < block) {
      throw invalid(budget, "must hold at least one block (" + block + " bytes)");
    }
    if (heap != Long.MAX_VALUE && memoryMax > heap) {
      throw invalid(budget, "more than the JVM's max heap (" + heap + " bytes, -Xmx): the buffers"
          + " could never all be allocated");
    }
    if (cacheMax() < block && cacheMode() != CacheMode.OFF) {
      throw invalid(ConfigKey.CACHE_DISK_MAX, "must hold at least one block (" + block + " bytes)");
    }
    if (sharedMode() != SharedMode.OFF && sharedServers().isEmpty()) {
      throw invalid(ConfigKey.SHARED_SERVERS, "names no server, and " + prefix + ConfigKey.SHARED_MODE.key() + " is "
          + text(ConfigKey.SHARED_MODE).trim() + ": list the memcached servers as host:port,...");
    }
    checkSharedSecret();
    if (sharedTtl().compareTo(java.time.Duration.ofDays(30)) > 0) {
      throw invalid(ConfigKey.SHARED_TTL, "more than 30 days (720h), which memcached would read as a date");
    }
    this.cacheDir = this.<Path>optional(ConfigKey.CACHE_DISK_DIR).orElseGet(SlipstreamConfig::defaultCacheDir);
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
    return Math.toIntExact(value(ConfigKey.BLOCK_SIZE));
  }

  public int prefetchBlocks() {
    return value(ConfigKey.PREFETCH_BLOCKS);
  }

  public long memoryMax() {
    return memoryMax;
  }

  public int fetchThreads() {
    return value(ConfigKey.FETCH_THREADS);
  }

  public int fetchPartMin() {
    return Math.toIntExact(value(ConfigKey.FETCH_PART_MIN));
  }

  public Duration stallTimeout() {
    return value(ConfigKey.READ_STALL_TIMEOUT);
  }

  public Duration connectTimeout() {
    return value(ConfigKey.CONNECT_TIMEOUT);
  }

  public int retryMax() {
    return value(ConfigKey.RETRY_MAX);
  }

  public Duration retryInterval() {
    return value(ConfigKey.RETRY_INTERVAL);
  }

  public Duration retryIntervalMax() {
    return value(ConfigKey.RETRY_INTERVAL_MAX);
  }

  /** How a GET asks for the version its stream reads ({@code change.detection}). */
  public ChangeDetection changeDetection() {
    return value(ConfigKey.CHANGE_DETECTION);
  }

  /** What names the version a stream reads ({@code change.detection.source}). */
  public ChangeSource changeSource() {
    return value(ConfigKey.CHANGE_DETECTION_SOURCE);
  }

  public CacheMode cacheMode() {
    return value(ConfigKey.CACHE_DISK_MODE);
  }

  public Path cacheDir() {
    return cacheDir;
  }

  public long cacheMax() {
    return value(ConfigKey.CACHE_DISK_MAX);
  }

  /** Share of the cache's file system to leave free, in [0, 1). */
  public Duration hedgeDelayMin() {
    return value(ConfigKey.HEDGE_DELAY_MIN);
  }

  public double hedgeBudget() {
    return value(ConfigKey.HEDGE_BUDGET);
  }

  public double cacheMinFree() {
    return value(ConfigKey.CACHE_DISK_MIN_FREE);
  }

  public SharedMode sharedMode() {
    return value(ConfigKey.SHARED_MODE);
  }

  /** The shared tier's servers, in the order listed; empty if none. */
  public java.util.List<java.net.InetSocketAddress> sharedServers() {
    return this.<java.util.List<java.net.InetSocketAddress>>optional(ConfigKey.SHARED_SERVERS).orElse(java.util.List.of());
  }

  /** The shared tier's secret; empty if not set or {@code none}. Never logged. */
  public Optional<String> sharedSecret() {
    return this.<String>optional(ConfigKey.SHARED_SECRET).filter(s -> !s.equals(NO_SHARED_SECRET));
  }

  /**
   * A shared tier without a secret lets whoever reaches memcached read its blocks, tell which objects are
   * cached and plant blocks: it runs so only when told ({@code none}). A secret with white space around
   * it is a copy gone wrong (hosts that trim and hosts that do not would not agree): an error, as is an
   * empty one. The messages never show the value.
   */
  private void checkSharedSecret() {
    Optional<String> secret = optional(ConfigKey.SHARED_SECRET);
    String key = prefix + ConfigKey.SHARED_SECRET.key();
    if (secret.isPresent() && secret.get().isBlank()) {
      throw new IllegalArgumentException(key + " is empty: set the cluster's secret, or '" + NO_SHARED_SECRET
          + "' to run the shared tier without one");
    }
    if (secret.isPresent() && !secret.get().equals(secret.get().strip())) {
      throw new IllegalArgumentException(key + " begins or ends with white space: set the secret without it");
    }
    if (secret.isEmpty() && sharedMode() != SharedMode.OFF) {
      throw new IllegalArgumentException(key + " is not set, and " + prefix + ConfigKey.SHARED_MODE.key() + " is "
          + text(ConfigKey.SHARED_MODE).trim() + ": without a secret, whoever reaches the memcached servers can read"
          + " the blocks, tell which objects are cached and plant blocks. Set the same secret on every host, or '"
          + NO_SHARED_SECRET + "' to run without one");
    }
  }

  public String sharedNamespace() {
    return value(ConfigKey.SHARED_NAMESPACE);
  }

  public java.time.Duration sharedTtl() {
    return value(ConfigKey.SHARED_TTL);
  }

  public java.time.Duration sharedTimeout() {
    return value(ConfigKey.SHARED_TIMEOUT);
  }

  /** Whether a lookup's wait follows the tier's recent answers (below {@link #sharedTimeout}), or is that timeout. */
  public boolean sharedTimeoutAdaptive() {
    return value(ConfigKey.SHARED_TIMEOUT_ADAPTIVE);
  }

  /** Share of blocks shadow mode compares with the shared tier, in [0, 1]; 1 is every block. */
  public double sharedShadowFraction() {
    return value(ConfigKey.SHARED_SHADOW_FRACTION);
  }

  public boolean cacheMemory() {
    return value(ConfigKey.CACHE_MEMORY);
  }

  public boolean cacheClearOnStart() {
    return value(ConfigKey.CACHE_DISK_CLEAR_ON_START);
  }

  private static Path defaultCacheDir() {
    String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
    return Path.of(System.getProperty("java.io.tmpdir"), "slipstream-cache-" + user);
  }

  /** Key ranges a large listing is split into ({@code list.parallelism}). */
  public int listParallelism() {
    return value(ConfigKey.LIST_PARALLELISM);
  }

  /** Most objects fetched ahead of being opened ({@code openahead.files}); 0 if open-ahead is off. */
  public int openAheadFiles() {
    return value(ConfigKey.OPENAHEAD_FILES);
  }

  /** How long an answer from S3 stands for an object version in this client ({@code access.ttl}; 0: never). */
  public Duration accessTtl() {
    return value(ConfigKey.ACCESS_TTL);
  }

  /** How long a glob's flat listing answers the listings of its directories ({@code list.reuse.ttl}; 0: off). */
  public Duration listReuseTtl() {
    return value(ConfigKey.LIST_REUSE_TTL);
  }

  /** Sizes of the shadow caches ({@code cache.shadow.sizes}); empty: none. */
  public java.util.List<Long> shadowCacheSizes() {
    java.util.Optional<java.util.List<Long>> sizes = optional(ConfigKey.CACHE_SHADOW_SIZES);
    return sizes.orElse(java.util.List.of());
  }

  /** The prices {@link Slipstream#cost()} counts with ({@code cost.*}). */
  public Prices prices() {
    return new Prices(value(ConfigKey.COST_GET), value(ConfigKey.COST_HEAD), value(ConfigKey.COST_LIST),
        value(ConfigKey.COST_TRANSFER));
  }

  public Optional<URI> endpoint() {
    return optional(ConfigKey.ENDPOINT);
  }

  public Optional<String> region() {
    return optional(ConfigKey.REGION);
  }

  public boolean pathStyleAccess() {
    return value(ConfigKey.PATH_STYLE_ACCESS);
  }

  public Optional<String> accessKey() {
    return optional(ConfigKey.ACCESS_KEY);
  }

  public Optional<String> secretKey() {
    return optional(ConfigKey.SECRET_KEY);
  }

  public Optional<String> sessionToken() {
    return optional(ConfigKey.SESSION_TOKEN);
  }

  /**
   * The SSE-C key sent on every GET and HEAD ({@code sse.customer.key}, base64 of 256 bits); empty if none.
   * Never logged.
   */
  public Optional<String> sseCustomerKey() {
    return optional(ConfigKey.SSE_CUSTOMER_KEY);
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
        sb.append(sep).append(k.key()).append('=').append(k.type() == ValueKind.SECRET ? "****" : v);
        sep = ", ";
      }
    }
    return sb.append('}').toString();
  }

  /** The text of {@code key}: as set, else its default; null if it has neither. */
  private String text(ConfigKey key) {
    String v = raw.get(key);
    return v != null ? v : key.defaultValue().orElse(null);
  }

  /** The parsed value of a key that always has one (a default); the caller's type is the key's. */
  @SuppressWarnings("unchecked")
  private <T> T value(ConfigKey key) {
    return (T) Objects.requireNonNull(values.get(key), key::key);
  }

  /** The parsed value of a key, if set (or defaulted). */
  @SuppressWarnings("unchecked")
  private <T> Optional<T> optional(ConfigKey key) {
    return Optional.ofNullable((T) values.get(key));
  }

  private IllegalArgumentException invalid(ConfigKey key, String why) {
    String shown = key.type() == ValueKind.SECRET ? "****" : text(key);
    return new IllegalArgumentException(prefix + key.key() + "='" + shown + "' is invalid: " + why);
  }

  /**
   * Parses a size as configuration writes it: {@code 8M}, {@code 512K}, {@code 1G}, {@code 4096};
   * suffixes K, M, G, T are powers of 1024, optionally followed by B or iB, case ignored.
   *
   * @throws IllegalArgumentException saying what was expected
   */
  public static long parseSize(String text) {
    return ValueType.parseSize(text);
  }

  /**
   * Parses a duration above zero as configuration writes it: {@code 500ms}, {@code 30s}, {@code 10m},
   * {@code 2h}, case ignored; a plain number is milliseconds; at most 365 days.
   *
   * @throws IllegalArgumentException saying what was expected
   */
  public static Duration parseDuration(String text) {
    try {
      return ValueType.positiveDuration().parse(text == null ? "" : text);
    } catch (ValueType.Refused e) {
      throw new IllegalArgumentException(e.getMessage());
    }
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
