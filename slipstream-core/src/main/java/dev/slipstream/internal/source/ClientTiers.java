/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import dev.slipstream.CacheMode;
import dev.slipstream.ReadStatistics;
import dev.slipstream.SharedMode;
import dev.slipstream.SlipstreamConfig;
import dev.slipstream.spi.HeapAllowance;
import dev.slipstream.spi.SharedBlockStore;
import java.util.Locale;
import java.util.ServiceLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which tiers below memory a client's reads go through, decided once from its configuration when the
 * client is built: the local disk cache's mode, and the shared tier (null when off).
 *
 * <p>A client whose reads carry an SSE-C key ({@code sse.customer.key}) keeps what it reads in its memory
 * cache only. Those objects' plaintext S3 gives only to holders of the key: written to the disk cache or the
 * shared tier, it would rest outside the process, readable by whoever reads those files or reaches
 * memcached, key or no key. In memory it stays with this client, whose every open S3 answers first (rule 8),
 * and a reader without the key gets no answer. Said once, at INFO, when the client starts.
 *
 * @param diskMode the local disk cache's mode for this client's reads
 * @param shared the shared tier, or null
 */
public record ClientTiers(CacheMode diskMode, Sources.Shared shared) {
  // The client's logger: what users configure for it covers what it says at start.
  private static final Logger LOG = LoggerFactory.getLogger("dev.slipstream.Slipstream");

  /**
   * The tiers of {@code config}. The shared tier's store comes from the module on the class path that
   * provides one ({@link SharedBlockStore.Provider}), its heap outside the buffers counted by {@code heap}.
   *
   * @throws IllegalArgumentException if {@code shared.mode} is on and no module provides a store
   */
  public static ClientTiers of(SlipstreamConfig config, ReadStatistics stats, HeapAllowance heap) {
    if (config.sseCustomerKey().isPresent()) {
      String off = (config.cacheMode() != CacheMode.OFF ? ", cache.disk.mode=" + name(config.cacheMode())
          + " not used" : "") + (config.sharedMode() != SharedMode.OFF
          ? ", shared.mode=" + name(config.sharedMode()) + " not used" : "");
      LOG.info("Slipstream: reads carry an SSE-C key, so the blocks read stay in this client's memory only: no disk"
          + " cache, no shared tier{}", off);
      return new ClientTiers(CacheMode.OFF, null);
    }
    return new ClientTiers(config.cacheMode(), sharedTier(config, stats, heap));
  }

  private static Sources.Shared sharedTier(SlipstreamConfig config, ReadStatistics stats, HeapAllowance heap) {
    if (config.sharedMode() == SharedMode.OFF) {
      return null;
    }
    for (SharedBlockStore.Provider p
        : ServiceLoader.load(SharedBlockStore.Provider.class, ClientTiers.class.getClassLoader())) {
      if (config.sharedSecret().isEmpty()) {
        LOG.warn("Slipstream shared tier runs without a secret (shared.secret=none): whoever reaches its memcached "
            + "servers can read the cached blocks, tell which objects are cached{}. Set shared.secret on every host",
            config.sharedMode() == SharedMode.SHADOW ? ""
                : " and plant blocks this client serves once S3 has answered its open");
      }
      return new Sources.Shared(p.open(config, stats, heap), config.sharedMode(),
          new SharedNames(config.sharedNamespace(), config.sharedSecret().orElse(null)), config.sharedShadowFraction());
    }
    throw new IllegalArgumentException("shared.mode=" + name(config.sharedMode()) + " needs a shared tier store on"
        + " the class path: add the slipstream-memcached jar (the drop-in jars of slipstream-hadoop and"
        + " slipstream-iceberg carry it)");
  }

  /** A mode as the configuration spells it. */
  private static String name(Enum<?> mode) {
    return mode.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
